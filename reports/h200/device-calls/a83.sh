#!/bin/bash
# Call 83: stall reasons (Nsight Compute) of the OFF_GRID forward register kernels at 16384x2049
# against rows of 2048 on the 16-byte grid, and of rmsnorm_bwd at 16384x2049 with whole edge
# chunks (commit 29ba681's kernels).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
M=smsp__average_warp_latency_issue_stalled
prof() {  # kernel-regex op shape [variant...]
  local k=$1 op=$2 sh=$3; shift 3
  echo "## $op bf16 $sh $*"
  timeout 120 ncu --target-processes all --clock-control none --launch-skip 4 --launch-count 1 -k regex:"^$k" \
    --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,${M}_barrier.ratio,${M}_long_scoreboard.ratio,${M}_short_scoreboard.ratio,${M}_wait.ratio,${M}_lg_throttle.ratio,${M}_mio_throttle.ratio,${M}_not_selected.ratio,${M}_selected.ratio,${M}_no_instruction.ratio,${M}_branch_resolving.ratio,${M}_drain.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $B bench $op --dtype bf16 --shape $sh --iters 5 "$@" 2>&1 | grep -E "^ +(smsp|sm__|gpu|dram|launch)"
}
{
  prof layernorm_fwd layernorm 16384x2049
  prof layernorm_fwd layernorm 16384x2048
  prof rmsnorm_fwd rmsnorm 16384x2049 --variant schedule=regs
  prof rmsnorm_fwd rmsnorm 16384x2048 --variant schedule=regs
  prof rmsnorm_bwd rmsnorm_bwd 16384x2049
} > /tmp/o/ncu-off-grid.txt 2>&1
cat /tmp/o/ncu-off-grid.txt
cp /tmp/o/ncu-off-grid.txt $OUT/ 2>/dev/null
true
