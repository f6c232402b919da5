#!/bin/bash
# Call 94: the report's evidence set on main's final kernels (skewed weight reads as 32-bit
# words, call 93): verify (fixtures included), the worst-error tables, bench, peers, decode, and
# memcheck (shown red on the demo rung, then the forward and backward bf16 rungs with bare
# allocations).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers decode memcheck) > /tmp/o-evidence.txt 2>&1
grep -E "^==|exit|rungs:|FAIL|UNRESOLVED|ERROR SUMMARY|Invalid|real" /tmp/o-evidence.txt | head -40
mkdir -p $OUT
cp /tmp/o/verify.txt /tmp/o/verify-worst.txt /tmp/o/bench.json /tmp/o/peers.json /tmp/o/ncu-decode.txt /tmp/o/memcheck-*.txt $OUT/ 2>/dev/null
cp /tmp/o/verify.json $OUT/
cp /tmp/o-evidence.txt $OUT/device_log.txt
true
