#!/bin/bash
# Call 100: the report's evidence set on main's final kernels (the wide builds that fill their
# bound stage the weight in shared memory, calls 98-99): verify (fixtures included), the
# worst-error tables, bench, peers, decode, and memcheck (shown red on the demo rung, then the
# forward and backward bf16 rungs with bare allocations). Everything also comes back as one
# archive, evidence.tgz.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers decode memcheck) > /tmp/o-evidence.txt 2>&1
grep -E "^==|exit|rungs:|FAIL|UNRESOLVED|ERROR SUMMARY|Invalid|real" /tmp/o-evidence.txt | head -40
mkdir -p $OUT
cp /tmp/o-evidence.txt /tmp/o/device_log.txt
tar -czf $OUT/evidence.tgz -C /tmp/o .
cp /tmp/o/verify-worst.txt /tmp/o/ncu-decode.txt /tmp/o/memcheck-*.txt /tmp/o/device_log.txt $OUT/ 2>/dev/null
true
