#!/bin/bash
# Call 194: the isolation overhead after call 193's findings (the timeout clock starts at the
# child's context; a rung expected to time out starts mid-order; st_timeout's limit 1 s). Both
# ladders at 3, 4, 6 and 8 jobs, with the children tearing their contexts down (default) or
# leaving at once after their last line (LADDER_CHILD_QUICK_EXIT=1, an experiment); 12 jobs once;
# the overhead benchmark at the default. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
$B run --json /tmp/warm.json > /dev/null 2>&1; echo "cache warmed: exit $?"
mkdir -p /tmp/t
sum() { python3 -c "import json;d=json.load(open('$1'));print('wall_ms', round(d['wall_ms']), d['counts'], 'child_time_ms', {k:round(v) for k,v in d['extra']['child_time_ms'].items()})"; }
{ echo "# Call 194 ($LADDER_COMMIT, a194.sh)"
  echo "== both ladders, default jobs, overhead benchmark"
  $B run --json $OUT/run.json --measure-overhead 12 --trace /tmp/t/trace-default.json 2>&1 | tail -4
  for rep in 1 2; do
    for j in 3 4 6 8; do
      echo "== rep $rep, $j jobs, teardown"; $B run --jobs $j --json /tmp/t/td-$j-$rep.json --trace /tmp/t/trace-td-$j-$rep.json > /dev/null 2>&1; sum /tmp/t/td-$j-$rep.json
      echo "== rep $rep, $j jobs, quick exit"; LADDER_CHILD_QUICK_EXIT=1 $B run --jobs $j --json /tmp/t/qx-$j-$rep.json --trace /tmp/t/trace-qx-$j-$rep.json > /dev/null 2>&1; sum /tmp/t/qx-$j-$rep.json
    done
  done
  echo "== 12 jobs, teardown"; $B run --jobs 12 --json /tmp/t/td-12.json --trace /tmp/t/trace-td-12.json 2>&1 | tail -1; sum /tmp/t/td-12.json
  echo "== quick exit, overhead benchmark"
  LADDER_CHILD_QUICK_EXIT=1 $B run --json /tmp/t/qx-overhead.json --measure-overhead 12 2>&1 | tail -3
} > $OUT/overhead-194.txt 2>&1
(cd /tmp/t && tar czf $OUT/traces-194.tgz *.json)
cat $OUT/overhead-194.txt
echo "total $SECONDS s"
true
