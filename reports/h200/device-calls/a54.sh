#!/bin/bash
# Call 54 (main d151be8): prototype of warp-per-row forward kernels fed by cp.async.bulk, against
# the ladder's kernels at the same shapes; A/B of load_tile calling tile_interior (dedupe).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=d151be8
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
nvcc -arch=sm_90 -O3 -std=c++17 -o /tmp/tma_norm .device/proto/tma_norm.cu 2>&1 | grep -v Warn
timeout 200 /tmp/tma_norm > /tmp/proto54.txt 2>&1; echo "proto rc $?"
grep -E "ceiling|BEST|MISMATCH|CUDA" /tmp/proto54.txt
for op in rmsnorm layernorm add_rmsnorm; do
  $B bench $op --dtype bf16 --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 2>&1; done > /tmp/base54.txt 2>&1
cat /tmp/base54.txt
for rep in 1 2; do for k in dedupe main; do
  if [ $k = dedupe ]; then export LADDER_KERNELS_DIR=$PWD/.device/dedupe/kernels; else unset LADDER_KERNELS_DIR; fi
  $B bench rmsnorm layernorm --dtype bf16 --shape 16384x4096 --shape 4096x16384 --shape 16384x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench rmsnorm --dtype f16 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench layernorm --dtype f32 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench add_rmsnorm --dtype bf16 --shape 4096x16384 2>&1 | grep " ladder" | sed "s/^/$k /"
  $B bench rmsnorm_bwd --dtype bf16 --shape 16384x4096 --shape 8192x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
done; done > /tmp/ab54.txt 2>&1
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/ab54.txt
tar -C /tmp -czf $OUT/texts.tgz proto54.txt base54.txt ab54.txt
