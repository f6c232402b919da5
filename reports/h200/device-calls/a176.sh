#!/bin/bash
# Call 176: why the weight gradients cost layernorm_bwd bf16 8192x2049 about 20 us (call 174:
# 61.9 us against 41.1 with affine=0) and 8192x2048 only about 8: Nsight Compute of the row
# kernel with and without affine parameters, at both widths, caches flushed. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
{ for op in layernorm_bwd rmsnorm_bwd; do for s in 8192x2048 8192x2049; do for v in auto nodw; do
    var=""; [ $v = nodw ] && { [ $op = layernorm_bwd ] && var="--variant affine=0" || var="--variant weight=none"; }
    echo "## ncu: $op bf16 $s $v"
    timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bwd" --launch-skip 1 --launch-count 1 \
      $B bench $op --dtype bf16 --shape $s --iters 3 $var 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -30
  done; done; done; } > $OUT/ncu-bwd-dw-176.txt 2>&1
cat $OUT/ncu-bwd-dw-176.txt | cut -c1-120
echo "total $SECONDS s"
true
