#!/bin/bash
# Call 60 (main 6a14faf + batched weight reads): the normalizing pass reads a tile's weight
# chunks before its first store. full: the whole tile at once; b2: two chunks at a time; main:
# 6a14faf's kernels (one chunk before each use). Two repeats; ladder verify --quick on full.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=6a14faf
for rep in 1 2; do for k in full b2 main; do
  export LADDER_KERNELS_DIR=$PWD/.device/$k/kernels
  $B bench rmsnorm add_rmsnorm layernorm 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 4096x16384 --variant schedule=wide 2>&1 | grep " ladder" | sed "s/^/$k-wide /"
done; done > /tmp/ab60.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab60.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
export LADDER_KERNELS_DIR=$PWD/.device/full/kernels
$B verify --quick --jobs 12 --json /tmp/verify60.json > /tmp/verify60.txt 2>&1; echo "verify rc $?"; tail -1 /tmp/verify60.txt
tar -C /tmp -czf $OUT/texts.tgz ab60.txt verify60.txt verify60.json
