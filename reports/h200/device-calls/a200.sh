#!/bin/bash
# Call 200: Nsight Compute on schedule=flat against auto, rmsnorm and rmsnorm_bwd bf16 16384x2049
# (where call 199 found flat 30-50% slower). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_short_scoreboard,smsp__average_warp_latency_issue_stalled_wait,smsp__average_warp_latency_issue_stalled_math_pipe_throttle,smsp__average_warp_latency_issue_stalled_lg_throttle,smsp__average_warp_latency_issue_stalled_drain,smsp__average_warp_latency_issue_stalled_membar,smsp__average_warp_latency_issue_stalled_mio_throttle,smsp__average_warp_latency_issue_stalled_no_instruction,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
{ for op in rmsnorm rmsnorm_bwd; do for v in "schedule=auto" "schedule=flat"; do
    echo "## ncu: $op bf16 16384x2049, $v"
    timeout 80 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"^$op" --launch-skip 2 --launch-count 1 \
      $B bench $op --dtype bf16 --shape 16384x2049 --iters 3 --variant $v 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | grep -v "max_rate\|\.pct " | head -40
  done; done; } > $OUT/ncu-200.txt 2>&1
cut -c1-140 $OUT/ncu-200.txt | grep -E "##|duration|inst_executed|warps_active|issue_active|registers|grid_size|block_size|ratio|bytes|occupancy|conflicts|local"
echo "total $SECONDS s"
true
