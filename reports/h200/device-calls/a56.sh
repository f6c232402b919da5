#!/bin/bash
# Call 56 (main 6e86f67): "lean" kernels (one tile without a division, unrolled butterflies,
# per-row means as products with 1/d and rsqrtf) against main: bench A/B two repeats, decode
# kernel time under Nsight Compute, and ladder verify --quick on the lean kernels.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=6e86f67
for rep in 1 2; do for k in lean main; do
  if [ $k = lean ]; then export LADDER_KERNELS_DIR=$PWD/.device/lean/kernels; else unset LADDER_KERNELS_DIR; fi
  $B bench rmsnorm layernorm add_rmsnorm --dtype bf16 --shape 16384x4096 --shape 65536x1024 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm --dtype f32 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 16384x4096 --shape 65536x1024 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm_bwd --dtype f16 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
done; done > /tmp/ab56.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab56.txt
for k in lean main; do
  if [ $k = lean ]; then export LADDER_KERNELS_DIR=$PWD/.device/lean/kernels; else unset LADDER_KERNELS_DIR; fi
  for op in rmsnorm add_rmsnorm; do
    echo "## $k $op 1x4096 bf16 --cache-control all"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics gpu__time_duration.sum --launch-skip 2 --launch-count 12 -k regex:"^${op}_fwd" $B bench $op --dtype bf16 --shape 1x4096 --iters 20 2>&1 | grep gpu__time_duration | awk '{print $NF}' | tr '\n' ' '; echo
  done
done > /tmp/ncu56.txt 2>&1
cat /tmp/ncu56.txt
export LADDER_KERNELS_DIR=$PWD/.device/lean/kernels
$B verify --quick --jobs 12 --json /tmp/verify56.json > /tmp/verify56.txt 2>&1; echo "verify rc $?"; tail -5 /tmp/verify56.txt
tar -C /tmp -czf $OUT/texts.tgz ab56.txt ncu56.txt verify56.txt verify56.json
