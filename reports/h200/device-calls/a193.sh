#!/bin/bash
# Call 193: where the isolation overhead goes. Both ladders (warm compile cache) with the overhead
# benchmark and --trace; each ladder alone; both at 1, 3 and 12 jobs. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
$B run --json /tmp/warm.json > /dev/null 2>&1; echo "cache warmed: exit $?"
{ echo "# Call 193 ($LADDER_COMMIT, a193.sh)"
  echo "== both ladders, 6 jobs (default), overhead benchmark"
  $B run --json $OUT/run.json --measure-overhead 12 --trace $OUT/trace-both.json 2>&1 | tail -4
  echo "== the H200 ladder alone"
  $B run --ladder probes/ladder.json --json /tmp/l.json --measure-overhead 12 --trace $OUT/trace-ladder.json 2>&1 | tail -3
  echo "== the selftest ladder alone"
  $B run --ladder probes/selftest.json --json /tmp/s.json --trace $OUT/trace-selftest.json 2>&1 | tail -2
  for j in 1 3 12; do
    echo "== both ladders, $j jobs"
    $B run --jobs $j --json /tmp/j$j.json --trace /tmp/trace-j$j.json 2>&1 | tail -1
    python3 -c "import json;d=json.load(open('/tmp/j$j.json'));print('wall_ms', round(d['wall_ms']), 'child_time_ms', {k:round(v) for k,v in d['extra']['child_time_ms'].items()})"
  done; } > $OUT/overhead-193.txt 2>&1
cp /tmp/j1.json /tmp/j3.json /tmp/j12.json /tmp/l.json /tmp/s.json /tmp/ 2>/dev/null
(cd /tmp && tar czf $OUT/traces-193.tgz trace-j1.json trace-j3.json trace-j12.json j1.json j3.json j12.json l.json s.json)
cat $OUT/overhead-193.txt
echo "total $SECONDS s"
true
