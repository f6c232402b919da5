#!/bin/bash
# Call 107: the device's own build (cmake, nvcc, Catch2 v3) and ctest with the gpu label; then,
# on the carried binary, racecheck over the forward bf16 rungs (the decode kernels among them)
# and both ladders with the isolation-overhead benchmark (the runner now starts the rungs with
# the most cases first).
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -12 /tmp/o-tests.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
for s in sanitize ladders; do
  (time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh $s) > /tmp/o-$s.txt 2>&1
  grep -E "^==|exit|rungs:|real|SUMMARY|overhead" /tmp/o-$s.txt | head -12
  cp -r /tmp/o/. $OUT/ 2>/dev/null
done
cat /tmp/o-sanitize.txt /tmp/o-ladders.txt > $OUT/device_log_ladders.txt
true
