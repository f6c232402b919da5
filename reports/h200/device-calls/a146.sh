#!/bin/bash
# Call 146: the evidence for main as it stands (auto copying 16-bit LayerNorm rows of 4096 chunks
# whole into shared memory, layernorm_fwd_bulk; cold times taken with a clean L2 too), on the
# carried binary: verify (every op, dtype and variant, fixtures included) and its worst-error
# tables, bench, the peers beside it;
# the device's own cmake/nvcc/Catch2 v3 build (in the background during verify) and its ctest
# (gpu label included). Files go to $OUT as each step ends, so a run cut short keeps what
# finished.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels
o=/tmp/o146; mkdir -p $o $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build146.txt 2>&1 ) &
bp=$!
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=90 OUT=$o bash scripts/device_check.sh $1) > /tmp/o146-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o146-$1.txt | head -14
         cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
wait $bp; grep -E "error|real" /tmp/build146.txt | head
step bench
step peers
cat /tmp/o146-verify.txt /tmp/o146-worst.txt /tmp/o146-bench.txt /tmp/o146-peers.txt > $OUT/device_log.txt
{ echo "== build on the device machine"; grep real /tmp/build146.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((585-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $OUT/device-tests.txt
echo "total $SECONDS s"
true
