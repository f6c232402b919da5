#!/bin/bash
# Call 87: racecheck over the forward and the backward bf16 rungs, then the device's own build
# (cmake, nvcc, Catch2 v3) and ctest with the gpu label, on the same commit as call 86.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh sanitize sanitizebwd) > /tmp/o-san.txt 2>&1
grep -E "^==|exit|rungs:|RACECHECK|real" /tmp/o-san.txt | head -30
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -20 /tmp/o-tests.txt
mkdir -p $OUT
cp /tmp/o/sanitizer-wide.txt /tmp/o/sanitizer-bwd.txt $OUT/ 2>/dev/null
cp /tmp/o-san.txt $OUT/device_log_sanitize.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
true
