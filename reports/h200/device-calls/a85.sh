#!/bin/bash
# Call 85: the register kernels with OFF_GRID (schedule=regs) against auto's packed kernels where
# auto takes them (16-bit rmsnorm and add_rmsnorm, fp32 layernorm; rows off the 16-byte grid,
# d <= 4096), same binary and kernels, two repeats.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for s in regs auto; do
    $B bench rmsnorm add_rmsnorm --dtype f16 --shape 16384x2049 --shape 8192x2049 --shape 16384x769 --variant schedule=$s 2>&1 | grep " ladder" | sed "s/^/$s /"
    $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 8192x2049 --shape 4096x769 --variant schedule=$s 2>&1 | grep " ladder" | sed "s/^/$s /"
    $B bench layernorm --dtype f32 --shape 16384x2049 --shape 8192x2049 --shape 16384x769 --variant schedule=$s 2>&1 | grep " ladder" | sed "s/^/$s /"
  done
done > /tmp/o/bench-off-grid-packed.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-off-grid-packed.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-off-grid-packed.txt $OUT/ 2>/dev/null
true
