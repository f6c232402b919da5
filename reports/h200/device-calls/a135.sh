#!/bin/bash
# Call 135: the evidence for auto's streamed RMSNorm, add_rmsnorm and f16 LayerNorm (the table in
# harness/kernels/plan_loop.cpp), on the carried binary: verify (every op, dtype and variant,
# fixtures included) and its worst-error tables, bench, the peers beside it; the device's own
# cmake/nvcc/Catch2 v3 build (in the background during verify) and its ctest (gpu label
# included); both ladders with the isolation-overhead benchmark where the time allows. Files go
# to $OUT as each step ends, so a run cut short keeps what finished.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
o=/tmp/o135; mkdir -p $o $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build135.txt 2>&1 ) &
bp=$!
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=90 OUT=$o bash scripts/device_check.sh $1) > /tmp/o135-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o135-$1.txt | head -14
         cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
wait $bp; grep -E "error|real" /tmp/build135.txt | head
step bench
step peers
cat /tmp/o135-verify.txt /tmp/o135-worst.txt /tmp/o135-bench.txt /tmp/o135-peers.txt > $OUT/device_log.txt
{ echo "== build on the device machine"; grep real /tmp/build135.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((560-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $OUT/device-tests.txt
if [ $SECONDS -lt 470 ]; then step ladders; cp /tmp/o135-ladders.txt $OUT/device_log_ladders.txt; else echo "ladders skipped: $SECONDS s used"; fi
echo "total $SECONDS s"
true
