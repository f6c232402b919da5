#!/bin/bash
# Call 79: the report's evidence set on the edge-chunk changes (norm::Edge, load_tile's
# ZERO_FIRST in the backward kernels): verify, worst-error tables, bench, peers, decode, and
# racecheck over the layernorm and backward rungs; then the device's own build and ctest.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers decode sanitizebwd) > /tmp/o-evidence.txt 2>&1
grep -E "^==|exit|rungs:|FAIL|UNRESOLVED|real" /tmp/o-evidence.txt | head -40
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -20 /tmp/o-tests.txt
mkdir -p $OUT
cp /tmp/o/verify.txt /tmp/o/verify-worst.txt /tmp/o/bench.json /tmp/o/peers.json /tmp/o/ncu-decode.txt /tmp/o/sanitizer-bwd.txt $OUT/ 2>/dev/null
cp /tmp/o/verify.json $OUT/
cp /tmp/o-evidence.txt $OUT/device_log.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
true
