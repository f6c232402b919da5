#!/bin/bash
# Call 91: memcheck over the forward bf16 rungs on the final kernels (16-bit OFF_GRID builds of
# rmsnorm and layernorm without the inside copy, call 90), and their bench at rows of 2049.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
(time SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh memcheck) > /tmp/o-mem.txt 2>&1
grep -E "^==|exit|rungs:|ERROR SUMMARY|real" /tmp/o-mem.txt
$B bench rmsnorm layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 2>&1 | grep " ladder" | tee /tmp/o/bench-final-2049.txt
mkdir -p $OUT; cp /tmp/o/memcheck-forward.txt /tmp/o/bench-final-2049.txt $OUT/ 2>/dev/null
true
