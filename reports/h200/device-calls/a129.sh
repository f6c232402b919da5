#!/bin/bash
# Call 129: the evidence for fd709cc's launch path (isolate::launch_planned serving the verify and
# bench children) and bd91d08's test fix. The device's own cmake/nvcc/Catch2 v3 build runs in the
# background while the carried binary verifies every op, dtype and variant; then ctest (gpu label
# included) on the device build, memcheck (shown red, then the forward and backward bf16 rungs),
# and both ladders with the isolation-overhead benchmark. Kernels unchanged since 8609b1e.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
o=/tmp/o129; mkdir -p $o $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build129.txt 2>&1 ) &
bp=$!
for s in verify worst; do
  (time SKIP_BUILD=1 OUT=$o bash scripts/device_check.sh $s) > /tmp/o129-$s.txt 2>&1
  grep -E "^==|exit|rungs:|real" /tmp/o129-$s.txt | head -12
done
wait $bp; grep -E "error|real" /tmp/build129.txt | head
{ echo "== build on the device machine"; grep real /tmp/build129.txt; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "== ctest (gpu label included)"; (cd build-device && time ctest --output-on-failure 2>&1 | tail -15); } > $o/device-tests.txt 2>&1
grep -E "tests passed|Passed|Failed|real" $o/device-tests.txt
grep -q "100% tests passed" $o/device-tests.txt || (cd build-device && ./ladder_tests 2>&1 | grep -B12 -A12 FAILED | head -60)
for s in memcheck ladders; do
  (time SKIP_BUILD=1 OUT=$o bash scripts/device_check.sh $s) > /tmp/o129-$s.txt 2>&1
  grep -E "^==|exit|rungs:|real|SUMMARY|overhead" /tmp/o129-$s.txt | head -14
done
cat /tmp/o129-verify.txt /tmp/o129-worst.txt /tmp/o129-memcheck.txt > $o/device_log.txt
cp /tmp/o129-ladders.txt $o/device_log_ladders.txt
tar czf $OUT/call129.tgz -C $o .
ls -la $o
true
