#!/bin/bash
# Call 209: the evidence for main after reduce=grid (the backward bulk kernels reducing their own
# weight gradients after a grid-wide barrier; auto takes it for layernorm_bwd's cluster plans)
# and the launch path's cooperative flag. The device's own cmake/nvcc/Catch2 v3 build in the
# background; with the carried binary meanwhile: bench and peers (same run, same machine), verify
# of every op, dtype and variant with its worst-error tables; then both ladders (the H200 ladder
# alone and both, warm, each with the overhead benchmark and a trace); last the
# device build's planner tests (the new reduce=grid cases among them) and its gpu-label test.
# Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
R=$PWD
( export LADDER_BUILD_DIR=$R/build-device; { time scripts/build; } > /tmp/build209.txt 2>&1 ) &
bp=$!
B=$R/.device/ladder
export LADDER_KERNELS_DIR=$R/kernels LADDER_CACHE_DIR=/tmp/lc
sum() { python3 -c "import json;d=json.load(open('$1'));print('wall_ms', round(d['wall_ms']), d['counts'], 'child_time_ms', {k:round(v) for k,v in d['extra']['child_time_ms'].items()})"; }
{ echo "# Call 209 ($LADDER_COMMIT, a209.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout 200 $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== peers"; (time timeout 200 python3 scripts/bench_peers.py --json $OUT/peers.json > /tmp/t/peers.txt 2>&1) 2>&1 | grep real; tail -3 /tmp/t/peers.txt
  echo "== verify"; (time timeout 380 $B verify --jobs 12 --json $OUT/verify.json > /tmp/t/verify.txt 2>&1) 2>&1 | grep real
  grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/t/verify.txt | head -20
  $B verify --worst-from $OUT/verify.json > $OUT/verify-worst.txt 2>&1; echo "worst tables: exit $?"
  wait $bp; echo "== device build"; grep -E "error|real" /tmp/build209.txt | head
  echo "== the H200 ladder alone, warm, overhead benchmark"
  $B run --ladder probes/ladder.json --json $OUT/ladder.json --measure-overhead 12 --trace /tmp/t/trace-ladder.json 2>&1 | tail -3
  echo "== both ladders, warm, overhead benchmark"
  $B run --json $OUT/run.json --measure-overhead 12 --trace /tmp/t/trace-both.json 2>&1 | tail -3
  echo "== the device build's tests: the planners (reduce=grid's among them), then the gpu label"
  (cd build-device && timeout $((575-SECONDS)) ./ladder_tests "[kernels]" 2>&1 | tail -2)
  (cd build-device && time timeout $((590-SECONDS)) ctest -L gpu --output-on-failure 2>&1 | tail -6)
} > $OUT/log-209.txt 2>&1
cp /tmp/t/verify.txt /tmp/build209.txt /tmp/t/ 2>/dev/null
(cd /tmp/t && tar czf $OUT/extra-209.tgz *.json *.txt)
cat $OUT/log-209.txt
echo "total $SECONDS s"
true
