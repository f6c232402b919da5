#!/bin/bash
# Call 55 (main 6e86f67): the bulk-copy prototype with rows held in registers, the streaming
# copy/add kernels, and Nsight Compute of an empty kernel, a minimal decode row and the ladder's.
set -u
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=6e86f67
nvcc -arch=sm_90 -O3 -std=c++17 -o /tmp/tma_norm2 .device/proto/tma_norm2.cu 2>&1 | grep -v Warn
timeout 300 /tmp/tma_norm2 > /tmp/proto55.txt 2>&1; echo "proto rc $?"
grep -E "ceiling|BEST|MISMATCH|CUDA|stream" /tmp/proto55.txt
{ for cc in all none; do
  echo "## empty kernel (8 launches) then decode_min 1x4096 bf16 (8 launches), --cache-control $cc"
  timeout 60 ncu --clock-control none --cache-control $cc --metrics gpu__time_duration.sum --launch-skip 2 --launch-count 16 /tmp/tma_norm2 decode 2>&1 | grep gpu__time_duration | awk '{print $NF}' | tr '\n' ' '; echo
done; } > /tmp/ncu55.txt
SKIP_BUILD=1 OUT=/tmp/o bash scripts/device_check.sh decode >> /tmp/ncu55.txt 2>&1
cat /tmp/ncu55.txt
tar -C /tmp -czf $OUT/texts.tgz proto55.txt ncu55.txt
