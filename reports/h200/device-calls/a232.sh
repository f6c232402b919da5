#!/bin/bash
# Call 232: the evidence for main with the resources recording (ladder bench's `kernels`, the run
# documents' `images`; no kernel or plan changed since call 229): ladder bench and
# scripts/bench_peers.py in the same call, so that the report's bench table has each launch's
# registers, memory, blocks an SM and waves from the H200's own images; then every verify rung of
# every op, fixtures included, whose document now lists each rung's kernels. Carried:
# .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
{ echo "# Call 232 ($LADDER_COMMIT, a232.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout 170 $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== peers"; (time timeout 90 python3 scripts/bench_peers.py --json $OUT/peers.json > /tmp/t/peers.txt 2>&1) 2>&1 | grep real; tail -2 /tmp/t/peers.txt
  echo "== against call 229's bench.json"; $B compare reports/h200/bench.json $OUT/bench.json | tail -3
} > $OUT/log-232.txt 2>&1
cat $OUT/log-232.txt
echo "bench done $SECONDS s"
timeout $(left 585) $B verify --jobs 14 --json $OUT/verify.json > $OUT/verify.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify.txt | grep -v " PASS " | head -20
tail -3 $OUT/verify.txt
echo "total $SECONDS s"
true
