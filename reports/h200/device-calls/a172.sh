#!/bin/bash
# Call 172: the evidence for main with schedule=phase taken by auto (rows off the 16-byte grid:
# phase_rows.cuh). memcheck and racecheck over the bf16 phase rungs; then verify (every op, dtype
# and variant, fixtures included) and its worst-error tables, the bench, the peers and both
# ladders with the overhead benchmark, with the carried binary; the device's own cmake/nvcc/
# Catch2 v3 build in the background meanwhile, and its ctest (gpu label included) last. Files go
# to $OUT as each step ends.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
K=$PWD/kernels
( export LADDER_BUILD_DIR=$PWD/build-device; { time scripts/build; } > /tmp/build172.txt 2>&1 ) &
bp=$!
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$K
B=$PWD/.device/ladder
$B verify rmsnorm add_rmsnorm layernorm --dtype bf16 --no-fixtures --write-ladder /tmp/vb.json > /dev/null
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*phase*' --jobs 4 > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-phase-172.txt
  echo "== $tool"; cat $OUT/$tool-phase-172.txt
done
o=/tmp/o172; mkdir -p $o
step() { (time SKIP_BUILD=1 PEERS_TIMEOUT=120 OUT=$o bash scripts/device_check.sh $1) > /tmp/o172-$1.txt 2>&1
         grep -E "^==|exit|rungs:|real|SUMMARY|overhead|copy ceiling" /tmp/o172-$1.txt | head -14
         rm -f $o/verify.txt; cp -r $o/. $OUT/ 2>/dev/null; }
step verify
step worst
step bench
step peers
step ladders
cat /tmp/o172-verify.txt /tmp/o172-worst.txt /tmp/o172-bench.txt /tmp/o172-peers.txt /tmp/o172-ladders.txt > $OUT/device_log.txt
wait $bp
{ echo "== build on the device machine"; grep -E "error|real" /tmp/build172.txt; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== ctest (gpu label included)"; (cd build-device && time timeout $((585-SECONDS)) ctest --output-on-failure 2>&1 | tail -15); } > $OUT/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real|error" $OUT/device-tests.txt
echo "total $SECONDS s"
true
