#!/bin/bash
# Call 119: the row-a-block kernels at four chunks a thread (row_items=4: twice the warps of
# ITEMS 8 at 64 registers) against eight, for layernorm (call 118 measured bf16 16384x4096 at
# 72.7 us against 75.8) and rmsnorm, every dtype, d = 4096..16384; auto for reference. One binary,
# two repeats, cold; the last column is the fraction of a same-size copy.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  for op in layernorm rmsnorm; do
    for it in 8 4; do
      bench $op --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --variant schedule=row --variant row_items=$it | sed "s/^/items=$it /"
    done
    bench $op --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 | sed "s/^/auto /"
  done
done
} > /tmp/o/bench-row-items-2.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-row-items-2.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12}'
grep "copy ceiling" /tmp/o/bench-row-items-2.txt | awk '{print $4}' | sort -n | tr '\n' ' '
cp /tmp/o/bench-row-items-2.txt $OUT/
true
