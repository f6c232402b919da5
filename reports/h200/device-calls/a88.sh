#!/bin/bash
# Call 88: both ladders (cold compile cache) with the overhead benchmark, on the kernels of
# calls 86-87 (p8 and p11 launch the production rmsnorm through its plan, OFF_GRID builds at
# odd d among p11's shapes).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh ladders) > /tmp/o-ladders.txt 2>&1
grep -E "^==|rungs:|exit|real|overhead|ratio" /tmp/o-ladders.txt | head -20
mkdir -p $OUT
cp /tmp/o/ladder.json /tmp/o/run.json $OUT/ 2>/dev/null
cp /tmp/o-ladders.txt $OUT/device_log_ladders.txt
true
