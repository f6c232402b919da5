#!/bin/bash
# Call 204: after the review mend (the flat backward's row path now calls the bulk backward's
# element-wise row, rms_bwd_row_elementwise, moved to backward_common.cuh with the block's width
# as its stride): every flat rung and every bulk rung of rmsnorm_bwd and add_rmsnorm_bwd (odd
# strides take the element-wise row). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
$B verify rmsnorm rmsnorm_bwd add_rmsnorm_bwd --no-fixtures --write-ladder /tmp/v.json > /dev/null
timeout 200 $B run --ladder /tmp/v.json '*flat*' '*bulk*' --jobs 14 --json $OUT/verify-flat-bulk-204.json > $OUT/verify-flat-bulk-204.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-flat-bulk-204.txt | head -20
echo "total $SECONDS s"
true
