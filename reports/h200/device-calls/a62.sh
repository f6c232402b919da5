#!/bin/bash
# Call 62 (main 6a14faf + the planner taking BATCH_WEIGHT for wide rows that fill their bound):
# three batched-weight kernels through LADDER_KERNELS_DIR, two repeats. A: the whole tile's
# weight before the first store, in the inside copy only; B: half a tile at a time through plain
# loads (add_rmsnorm); C: the whole tile in both copies. regs: add_rmsnorm's streamed kernel.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=6a14faf
for rep in 1 2; do
  for k in A B C; do
    export LADDER_KERNELS_DIR=$PWD/.device/$k/kernels
    $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --shape 4096x24576 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench add_rmsnorm --dtype f16 --shape 2048x32768 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm --dtype bf16 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm --dtype f16 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/$k /"
  done
  $B bench add_rmsnorm --dtype bf16 --shape 512x32768 --shape 2048x32768 --variant schedule=regs 2>&1 | grep " ladder" | sed "s/^/regs /"
done > /tmp/ab62.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab62.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
tar -C /tmp -czf $OUT/texts.tgz ab62.txt
