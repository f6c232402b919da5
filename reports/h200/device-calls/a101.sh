#!/bin/bash
# Call 101: racecheck over the forward bf16 rungs (the staged-weight builds among them: their
# shared memory is written by cp.async and read by the same thread), both ladders (cold compile
# cache) with the overhead benchmark (the selftest's new rung whose crash follows a passing case
# among them), then the device's own build (cmake, nvcc, Catch2 v3) and ctest with the gpu label.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh sanitize) > /tmp/o-san.txt 2>&1
grep -E "^==|exit|rungs:|RACECHECK|real" /tmp/o-san.txt | head -20
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh ladders) > /tmp/o-ladders.txt 2>&1
grep -E "^==|rungs:|exit|real|overhead|ratio" /tmp/o-ladders.txt | head -20
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -16 /tmp/o-tests.txt
cp /tmp/o-san.txt /tmp/o/device_log_sanitize.txt; cp /tmp/o-ladders.txt /tmp/o/device_log_ladders.txt; cp /tmp/o-tests.txt /tmp/o/device-tests-raw.txt
tar -czf $OUT/evidence2.tgz -C /tmp/o .
cp /tmp/o/sanitizer-wide.txt /tmp/o/ladder.json /tmp/o/run.json /tmp/o/device-tests-raw.txt $OUT/ 2>/dev/null
true
