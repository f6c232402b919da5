#!/bin/bash
# Call 120: the row-a-block kernels' per-thread sums as per-chunk partials folded pairwise
# (exp/tree/kernels: chains of VEC dependent adds where one running sum is a chain of ITEMS x VEC)
# against main's running sums, auto's schedules of the three forward ops; one binary, two
# repeats, cold; then ladder verify --quick of the three ops on the exp kernels.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  for k in main tree; do
    kd=$PWD/kernels; [ $k = tree ] && kd=$PWD/exp/tree/kernels
    export LADDER_KERNELS_DIR=$kd
    bench layernorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 | sed "s/^/$k /"
    bench rmsnorm --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 | sed "s/^/$k /"
    bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --shape 8192x8192 --shape 4096x16384 | sed "s/^/$k /"
    bench layernorm --dtype f16 --shape 16384x4096 --shape 8192x8192 | sed "s/^/$k /"
  done
done
unset LADDER_KERNELS_DIR
} > /tmp/o/bench-tree.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-tree.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12}'
grep "copy ceiling" /tmp/o/bench-tree.txt | awk '{print $4}' | sort -n | tr '\n' ' '
cp /tmp/o/bench-tree.txt $OUT/
LADDER_KERNELS_DIR=$PWD/exp/tree/kernels timeout 200 $B verify rmsnorm add_rmsnorm layernorm --quick --jobs 14 > /tmp/o/verify-tree.txt 2>&1; echo "verify tree exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-tree.txt | head -10 | tee $OUT/verify-tree.txt
true
