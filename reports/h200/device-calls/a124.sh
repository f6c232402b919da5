#!/bin/bash
# Call 124: racecheck over the forward bf16 rungs (the row_grid=3 variants among them), both
# ladders with the isolation-overhead benchmark, and the device's own build and ctest (gpu label
# included), on the commit of call 123.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh sanitize) > /tmp/o-sanitize.txt 2>&1
grep -E "^==|exit|rungs:|real|SUMMARY|Hazard" /tmp/o-sanitize.txt; cp /tmp/o/sanitizer-wide.txt $OUT/
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh ladders) > /tmp/o-ladders.txt 2>&1
grep -E "^==|exit|rungs:|real|overhead" /tmp/o-ladders.txt
cp /tmp/o-ladders.txt $OUT/device_log_ladders.txt
tar -czf $OUT/ladders.tgz -C /tmp/o run.json ladder.json
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -12 /tmp/o-tests.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
true
