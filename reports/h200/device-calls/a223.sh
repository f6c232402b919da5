#!/bin/bash
# Call 223: compute-sanitizer memcheck (bare allocations) over the bf16 rungs of the kernels whose
# stores became one st.global.v4 this round (the forward and backward phase kernels, the flat and
# packed kernels), at the --quick shapes, with the carried binary. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
$B verify --quick --write-ladder /tmp/vq.json > /dev/null
timeout 250 compute-sanitizer --tool memcheck --target-processes all --print-limit 5 $B run --ladder /tmp/vq.json 'rmsnorm_bf16*phase*' 'add_rmsnorm_bf16*phase*' 'rmsnorm_bf16*flat*' '*_bf16*packed*' '*_bwd_bf16*phase*' --jobs 8 --bare-allocations > /tmp/san.txt 2>&1
{ echo "# Call 223 ($LADDER_COMMIT, a223.sh): memcheck"; echo "exit $?"; grep -E "ERROR SUMMARY|rungs:|Invalid|out of bounds|Program hit|misaligned" /tmp/san.txt | sort | uniq -c; } > $OUT/memcheck-v4-223.txt
cat $OUT/memcheck-v4-223.txt
echo "total $SECONDS s"
true
