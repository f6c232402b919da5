#!/bin/bash
# Call 110: main after backing out add_rmsnorm_fwd_row (the kernels are bf98d8b's, measured in
# calls 104 and 106): both ladders with the isolation-overhead benchmark on the runner's final
# order (costliest first by shapes, a rung expected to time out among the others), then the
# device's own build and ctest with the gpu label.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh ladders) > /tmp/o-ladders.txt 2>&1
grep -E "^==|exit|rungs:|real|overhead" /tmp/o-ladders.txt
cp /tmp/o-ladders.txt $OUT/device_log_ladders.txt
tar -czf $OUT/ladders.tgz -C /tmp/o run.json ladder.json
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -12 /tmp/o-tests.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
true
