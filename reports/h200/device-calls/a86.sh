#!/bin/bash
# Call 86: the report's evidence set on OFF_GRID (forward register kernels for rows off the
# 16-byte grid) and the backward kernels' whole edge chunks: verify (fixtures included), the
# worst-error tables, bench, peers, decode, and memcheck over the forward bf16 rungs.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh verify worst bench peers decode memcheck) > /tmp/o-evidence.txt 2>&1
grep -E "^==|exit|rungs:|FAIL|UNRESOLVED|ERROR SUMMARY|real" /tmp/o-evidence.txt | head -40
mkdir -p $OUT
cp /tmp/o/verify.txt /tmp/o/verify-worst.txt /tmp/o/bench.json /tmp/o/peers.json /tmp/o/ncu-decode.txt /tmp/o/memcheck-forward.txt $OUT/ 2>/dev/null
cp /tmp/o/verify.json $OUT/
cp /tmp/o-evidence.txt $OUT/device_log.txt
true
