#!/bin/bash
# Call 72: ladder verify (every kernel, dtype and variant, fixtures included) on the final auto
# rule (rmsnorm takes the packed kernels from 8192 rows), and its worst-error tables.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst > /tmp/o-steps.txt 2>&1
grep -E "rungs:|FAIL|UNRESOLVED|exit" /tmp/o-steps.txt | head -20
cp /tmp/o/verify.json /tmp/o/verify.txt /tmp/o/verify-worst.txt $OUT/
