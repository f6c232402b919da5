#!/bin/bash
# Call 90: OFF_GRID rmsnorm and layernorm forward builds without the copy of the last pass that
# skips per-chunk tests (exp/kernels_nocopy: with_inside_copy disabled for OFF_GRID; in 7 rows in
# 8 no thread takes that copy, and dropping it makes the code 11-16% shorter) against main, same
# binary, two repeats; then verify of the forward ops on exp/kernels_nocopy (fixtures included).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in main nocopy; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    $B bench layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench layernorm --dtype f16 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 4096x5125 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm layernorm --dtype f32 --shape 4096x5125 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/$k regs /"
  done
done > /tmp/o/bench-off-grid-nocopy.txt 2>&1
export LADDER_KERNELS_DIR=$PWD/exp/kernels_nocopy
$B verify rmsnorm layernorm --jobs 14 > /tmp/o/verify-nocopy-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-nocopy-full.txt | head -20 > /tmp/o/verify-nocopy.txt
cat /tmp/o/verify-nocopy.txt
sed 's/ regs / regs_/' /tmp/o/bench-off-grid-nocopy.txt | awk '{print $1,$2,$3,$4,$5,$8,$NF}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-off-grid-nocopy.txt /tmp/o/verify-nocopy.txt $OUT/ 2>/dev/null
true
