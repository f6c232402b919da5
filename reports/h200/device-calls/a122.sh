#!/bin/bash
# Call 122: the resident grid at its widest rows: LayerNorm bf16 and fp32 at d = 16384 and bf16
# at 32768, rmsnorm bf16 at 32768 and fp32 at 16384, row_items 8 against 4 on the resident grid,
# against auto's schedule; one binary, two repeats, cold.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
bench() { timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling"; }
{
for rep in 1 2; do
  bench layernorm --shape 4096x16384 --shape 2048x32768 | sed "s/^/auto /"
  bench rmsnorm --shape 2048x32768 --shape 4096x16384 | sed "s/^/auto /"
  for it in 8 4; do
    bench layernorm --shape 4096x16384 --shape 2048x32768 --variant schedule=row --variant row_grid=resident --variant row_items=$it | sed "s/^/res-items=$it /"
    bench rmsnorm --shape 2048x32768 --shape 4096x16384 --variant schedule=row --variant row_grid=resident --variant row_items=$it | sed "s/^/res-items=$it /"
  done
done
} > /tmp/o/bench-resident-wide.txt 2>&1
grep -v "copy ceiling" /tmp/o/bench-resident-wide.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 | awk '{print $1,$2,$3,$4,$5,$8,$11,$12,$NF}'
grep "copy ceiling" /tmp/o/bench-resident-wide.txt | awk '{print $4}' | sort -n | tr '\n' ' '
cp /tmp/o/bench-resident-wide.txt $OUT/
true
