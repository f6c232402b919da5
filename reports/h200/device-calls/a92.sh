#!/bin/bash
# Call 92: memcheck shown red (probes/memcheck_demo.json: a read one element past an input, which
# passes every value check, under --bare-allocations), then memcheck over the forward and the
# backward bf16 rungs with bare allocations (each tensor's exact extent); then the device's own
# build and ctest with the gpu label (the bare-allocation and memcheck-demo GPU tests are new).
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh memcheck) > /tmp/o-mem.txt 2>&1
grep -E "^==|exit|rungs:|ERROR SUMMARY|Invalid|real" /tmp/o-mem.txt | head -40
(time OUT=/tmp/o2 bash scripts/device_check.sh tests) > /tmp/o-tests.txt 2>&1
tail -20 /tmp/o-tests.txt
mkdir -p $OUT
cp /tmp/o/memcheck-*.txt $OUT/ 2>/dev/null
cp /tmp/o-mem.txt $OUT/device_log_memcheck.txt; cp /tmp/o-tests.txt $OUT/device-tests-raw.txt; cp /tmp/san.txt $OUT/san-last.txt 2>/dev/null
true
