#!/bin/bash
# Call 74: why the backward kernels at d = 2049 take the same time in bf16 and fp32.
# Nsight Compute on rmsnorm_bwd / layernorm_bwd bf16 8192x2049 (and 16384x4096 for reference),
# kernel durations of the backward kernel and its column_sum, and rows sweeps at d = 2049.
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for spec in "rmsnorm_bwd bf16 8192x2049" "rmsnorm_bwd f32 8192x2049" "rmsnorm_bwd bf16 16384x4096" "layernorm_bwd bf16 8192x2049"; do
  set -- $spec
  echo "## $1 $2 $3"
  timeout 120 ncu --target-processes all --clock-control none --launch-skip 4 --launch-count 2 -k regex:"^(rmsnorm_bwd|layernorm_bwd|column_sum)" \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,gpu__time_duration.sum \
    $B bench $1 --dtype $2 --shape $3 --iters 5 2>&1 | grep -v "^==PROF==" | grep -E "^ +[A-Za-z]|##|_bwd|column_sum" | grep -v -E "^ +-+$|Section:|OPT|WRN|^ {10}" | head -90
done > /tmp/o/ncu-bwd-2049.txt 2>&1
for rep in 1 2; do
  for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
    $B bench $op --dtype bf16 --shape 8192x2049 --shape 16384x2049 --shape 32768x2049 --shape 8192x2048 --shape 16384x2048 2>&1 | grep " ladder" | sed "s/^/auto /"
    for it in 1 3 4; do
      $B bench $op --dtype bf16 --shape 16384x2049 --variant items=$it 2>&1 | grep " ladder" | sed "s/^/items$it /"
    done
  done
done > /tmp/o/sweep-bwd-2049.txt 2>&1
cat /tmp/o/ncu-bwd-2049.txt | cut -c1-150
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/sweep-bwd-2049.txt | sort -k2,2 -k4,4n -k5,5n -k1,1
cp /tmp/o/*.txt $OUT/ 2>/dev/null
true
