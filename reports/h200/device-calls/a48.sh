#!/bin/bash
# Call 48: row-data loads that do not allocate in L1 (v1), plus the L2 256-byte prefetch hint,
# layernorm's loads included (v2), plus weights at L1 evict_last (v3), against main (base).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
for rep in 1 2; do for k in base v1 v2 v3; do
  export LADDER_KERNELS_DIR=$PWD/.device/$k/kernels
  $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 16384x4096 --shape 65536x1024 --shape 8192x8192 --shape 4096x16384 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm --dtype bf16 --shape 16384x4096 --shape 65536x1024 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm rmsnorm --dtype f32 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 16384x4096 --shape 4096x8192 --shape 8192x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
done; done > $OUT/ab48.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' $OUT/ab48.txt
for k in v2 v3; do
  echo "== verify --quick ($k)"
  LADDER_KERNELS_DIR=$PWD/.device/$k/kernels timeout 200 $B verify --quick --jobs 14 > $OUT/verify-$k.txt 2>&1; echo "exit $?"; grep -E "FAIL|UNRESOLVED|rungs:" $OUT/verify-$k.txt | head
done
