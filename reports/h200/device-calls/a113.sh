#!/bin/bash
# Call 113: rmsnorm_fwd_row and layernorm_fwd_row (kernels/block_row.cuh, the row-a-block kernels
# of call 112 for RMSNorm and LayerNorm) against auto, and add_rmsnorm_fwd_row at widths that
# leave part of its block idle and in fp32; one binary, two repeats, cold and hot; Nsight Compute
# (caches flushed) of rmsnorm and layernorm bf16 16384x4096 both ways; then ladder verify of the
# three forward ops (every variant, the row ones included).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o $OUT
run() {  # op, dtypes, shapes...
  local op=$1 dts=$2; shift 2
  for rep in 1 2; do
    for sc in auto row; do
      for dt in $dts; do
        timeout 100 $B bench $op --dtype $dt "$@" --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
      done
    done
  done
}
{
run rmsnorm "bf16 f16" --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768
run rmsnorm f32 --shape 16384x4096 --shape 8192x8192
run layernorm "bf16 f16" --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
run layernorm f32 --shape 16384x4096 --shape 8192x8192
run add_rmsnorm "bf16 f16" --shape 4096x24576 --shape 8192x12288 --shape 16384x5120 --shape 16384x6144
run add_rmsnorm f32 --shape 16384x4096 --shape 8192x8192
} > /tmp/o/bench-block-row-2.txt 2>&1
sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 /tmp/o/bench-block-row-2.txt | awk '{print $1,$2,$3,$4,$5,$7,$8,$NF}'
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for arm in "rmsnorm auto" "rmsnorm row" "layernorm auto" "layernorm row"; do
  set -- $arm
  echo "## $1 bf16 16384x4096 schedule=$2, caches flushed (launches 3-4)"
  timeout 90 ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"^$1_fwd" --launch-skip 2 --launch-count 2 $B bench $1 --dtype bf16 --shape 16384x4096 --iters 5 --variant schedule=$2 2>&1 | grep -E "_fwd|^ +(gpu|dram|launch|sm__|smsp)"
done 2>&1 | tee /tmp/o/ncu-block-row-2.txt
cp /tmp/o/bench-block-row-2.txt /tmp/o/ncu-block-row-2.txt $OUT/
timeout 280 $B verify rmsnorm add_rmsnorm layernorm --jobs 14 > /tmp/o/verify-block-row-2-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" /tmp/o/verify-block-row-2-full.txt | head -20 | tee /tmp/o/verify-block-row-2.txt
grep -E "schedule_row" /tmp/o/verify-block-row-2-full.txt | grep -v "add_rmsnorm" | head -24
tar -czf $OUT/verify113.tgz -C /tmp/o verify-block-row-2-full.txt
cp /tmp/o/verify-block-row-2.txt $OUT/
true
