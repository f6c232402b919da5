#!/bin/bash
# Call 81: the forward register kernels with OFF_GRID (rows off the 16-byte grid: a row's edge
# chunks read whole, the weight / gamma and beta read skewed) against off_grid=0 (the kernels'
# previous machine code), same binary and kernels, two repeats; the packed schedule (auto at
# 16384x2049 for rmsnorm and add_rmsnorm) alongside; then verify --quick of the forward ops.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for og in 0 1; do
    $B bench layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 --shape 16384x769 --shape 16384x4096 --variant off_grid=$og 2>&1 | grep " ladder" | sed "s/^/og$og /"
    $B bench layernorm --dtype f16 --shape 16384x2049 --variant off_grid=$og 2>&1 | grep " ladder" | sed "s/^/og$og /"
    $B bench layernorm --dtype f32 --shape 4096x5125 --variant off_grid=$og 2>&1 | grep " ladder" | sed "s/^/og$og /"
    $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 16384x2049 --shape 4096x2049 --shape 4096x5125 --shape 16384x769 --variant schedule=regs --variant off_grid=$og 2>&1 | grep " ladder" | sed "s/^/og$og regs /"
    $B bench rmsnorm add_rmsnorm --dtype f32 --shape 16384x2049 --variant schedule=regs --variant off_grid=$og 2>&1 | grep " ladder" | sed "s/^/og$og regs /"
  done
  $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 16384x2049 --shape 16384x769 2>&1 | grep " ladder" | sed "s/^/auto /"
done > /tmp/o/bench-off-grid.txt 2>&1
$B verify rmsnorm add_rmsnorm layernorm --quick --jobs 14 > /tmp/o/verify-off-grid-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-off-grid-full.txt | head -20 > /tmp/o/verify-off-grid.txt
cat /tmp/o/verify-off-grid.txt
sed 's/ regs / regs_/' /tmp/o/bench-off-grid.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-off-grid.txt /tmp/o/verify-off-grid.txt $OUT/ 2>/dev/null
true
