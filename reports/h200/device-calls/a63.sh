#!/bin/bash
# Call 63 (commit e2bb1dc): the lone wide add_rmsnorm block's row loads. S0: e2bb1dc's kernels
# (batched weight, plain loads); S1: batched weight, x and r through ld.global.L1::no_allocate
# (the weight keeps L1); S2: unbatched weight (no spill), no_allocate loads; S3: unbatched,
# evict-first loads. Two repeats.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=e2bb1dc
for rep in 1 2; do for k in S0 S1 S2 S3; do
  export LADDER_KERNELS_DIR=$PWD/.device/$k/kernels
  $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench add_rmsnorm --dtype f16 --shape 2048x32768 2>&1 | grep " ladder" | sed "s/^/$k /"
done; done > /tmp/ab64.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab64.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
tar -C /tmp -czf $OUT/texts.tgz ab64.txt
