#!/bin/bash
# Call 95: both ladders (cold compile cache) with the overhead benchmark, ladder bisect on the
# demo ladder, then the device's own build (cmake, nvcc, Catch2 v3) and ctest with the gpu label
# (bare allocations, the memcheck demo's premise and bisect among the GPU tests).
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh ladders) > /tmp/o-ladders.txt 2>&1
grep -E "^==|rungs:|exit|real|overhead|ratio" /tmp/o-ladders.txt | head -20
mkdir -p /tmp/o $OUT
.device/ladder bisect --ladder probes/bisect_demo.json --json /tmp/o/bisect-demo.json > /tmp/o/bisect-demo.txt 2>&1; echo "bisect exit $?" | tee -a /tmp/o/bisect-demo.txt
sed -n '/first failing rung/,$p' /tmp/o/bisect-demo.txt
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -20 /tmp/o-tests.txt
cp /tmp/o/ladder.json /tmp/o/run.json /tmp/o/bisect-demo.txt /tmp/o/bisect-demo.json $OUT/ 2>/dev/null
cp /tmp/o-ladders.txt $OUT/device_log_ladders.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt
true
