#!/bin/bash
# Call 112: add_rmsnorm_fwd_row (kernels/block_row.cuh: one row a block of 64-512 threads at eight
# chunks, chunk addresses an immediate offset apart, h = x + r kept in fp32 between the passes,
# the weight's cases as separate copies of the last pass) against the wide build (schedule=wide)
# and auto's other choices, one binary, two repeats, bf16 and f16; Nsight Compute (caches
# flushed) of row against wide at bf16 512x32768 and row against auto at 8192x8192; then
# ladder verify add_rmsnorm (every variant, the row ones included).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
SHAPES="--shape 512x32768 --shape 2048x32768 --shape 4096x16384 --shape 8192x8192 --shape 16384x4096"
for rep in 1 2; do
  for sc in wide auto row; do
    for dt in bf16 f16; do
      timeout 100 $B bench add_rmsnorm --dtype $dt $SHAPES --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
    done
  done
done > /tmp/o/bench-block-row.txt 2>&1
sort -k3,3 -k4,4n -k5,5n -k1,1 /tmp/o/bench-block-row.txt | awk '{print $1,$3,$4,$5,$7,$8,$NF}'
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for arm in "512x32768 wide" "512x32768 row" "8192x8192 auto" "8192x8192 row" "4096x16384 auto" "4096x16384 row"; do
  set -- $arm
  echo "## add_rmsnorm bf16 $1 schedule=$2, caches flushed (launches 3-4)"
  timeout 90 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"^add_rmsnorm_fwd" --launch-skip 2 --launch-count 2 $B bench add_rmsnorm --dtype bf16 --shape $1 --iters 5 --variant schedule=$2 2>&1 | grep -E "add_rmsnorm_fwd|^ +(gpu|dram|launch|sm__|smsp)"
done 2>&1 | tee /tmp/o/ncu-block-row.txt
cp /tmp/o/bench-block-row.txt /tmp/o/ncu-block-row.txt $OUT/
timeout 220 $B verify add_rmsnorm --jobs 14 > /tmp/o/verify-block-row-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-block-row-full.txt | head -20 | tee /tmp/o/verify-block-row.txt
grep -E "schedule_row" /tmp/o/verify-block-row-full.txt | head -12
tar -czf $OUT/verify112.tgz -C /tmp/o verify-block-row-full.txt
cp /tmp/o/verify-block-row.txt $OUT/
true
