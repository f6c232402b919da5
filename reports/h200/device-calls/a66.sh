#!/bin/bash
# Call 66 (commit bd5680e): where rows of 2049 lose. rmsnorm and add_rmsnorm bf16 at d = 2049
# (rows off the 16-byte grid), against d = 2056 and 2048 (on the grid) at the same geometry
# (ITEMS 3, 96 threads a row), and d = 2049 without a weight. Two repeats.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=bd5680e
for rep in 1 2; do
  for op in rmsnorm add_rmsnorm; do
    $B bench $op --dtype bf16 --shape 16384x2049 --shape 16384x2056 --shape 16384x2048 --variant items=3 2>&1 | grep " ladder" | sed "s/^/items3 /"
    $B bench $op --dtype bf16 --shape 16384x2049 --variant weight=none 2>&1 | grep " ladder" | sed "s/^/noweight /"
  done
done > /tmp/ab66.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab66.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
tar -C /tmp -czf $OUT/texts.tgz ab66.txt
