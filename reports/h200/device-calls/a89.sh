#!/bin/bash
# Call 89: ITEMS at rows of 2049 on the current kernels (OFF_GRID forward register kernels,
# backward kernels with whole edge chunks): auto against items=N, one repeat each (screening).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
{
  for it in auto 1 2 3 4; do
    v=(); [ $it != auto ] && v=(--variant items=$it)
    $B bench layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 "${v[@]}" 2>&1 | grep " ladder" | sed "s/^/items=$it /"
    $B bench rmsnorm add_rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --variant schedule=regs "${v[@]}" 2>&1 | grep " ladder" | sed "s/^/items=$it /"
  done
  for it in auto 1 2 4; do
    v=(); [ $it != auto ] && v=(--variant items=$it)
    $B bench rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x2049 "${v[@]}" 2>&1 | grep " ladder" | sed "s/^/items=$it /"
  done
} > /tmp/o/sweep-items-2049.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-items-2049.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/sweep-items-2049.txt $OUT/ 2>/dev/null
true
