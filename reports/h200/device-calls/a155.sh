#!/bin/bash
# Call 155: the evidence for main as it stands (two rows a block for 16-bit LayerNorm and RMSNorm
# rows of one warp on the 16-byte grid; the bulk-copy backward kernels, which auto takes where the
# register kernels would stream), on the carried binary: verify (every op, dtype and variant,
# fixtures included, the backward bulk variants new to the grid) and its worst-error tables;
# bench (the wide backward rows new to its list) and the peers beside it; the device's own
# cmake/nvcc/Catch2 v3 build (in the background during verify) and its ctest (gpu label
# included). Files go to $OUT as each step ends, so a run cut short keeps what finished.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels
o=/tmp/o155; mkdir -p $o $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build155.txt 2>&1 ) &
bp=$!
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=120 OUT=$o bash scripts/device_check.sh $1) > /tmp/o155-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o155-$1.txt | head -14
         cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
wait $bp; grep -E "error|real" /tmp/build155.txt | head
step bench
step peers
cat /tmp/o155-verify.txt /tmp/o155-worst.txt /tmp/o155-bench.txt /tmp/o155-peers.txt > $OUT/device_log.txt
{ echo "== build on the device machine"; grep real /tmp/build155.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((585-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $OUT/device-tests.txt
echo "total $SECONDS s"
true
