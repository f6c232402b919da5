#!/bin/bash
# Call 242 (after a239-a241): why the streamed LayerNorm trails the streamed RMSNorm with the
# same DRAM and L2 bytes (call 235, ncu-affine-235.txt: bf16 4096x16384 69.9 against 63.5 us;
# 134 MB read, 108 MB written and 409-414 MB through the L2 for both; its second and third
# passes hit L1). Call 235's profile cut each kernel's metrics short; this one asks for the
# instruction counts, issue activity and every warp stall reason (.ratio: cycles a warp spends
# in each per issued instruction) of both kernels at 4096x16384 and 16384x4096, caches flushed.
# About 2 minutes. Carried: .device/ladder (main's build, stripped). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
R=smsp__average_warp_latency_issue_stalled
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct
for s in barrier long_scoreboard short_scoreboard lg_throttle mio_throttle math_pipe_throttle not_selected selected wait dispatch_stall no_instruction branch_resolving drain membar sleeping misc; do
  M=$M,$R\_$s.ratio
done
n() { # title op args...
  local title=$1 op=$2; shift 2
  echo "## $title"
  timeout $(left 170) ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"$op" --launch-skip 3 --launch-count 1 \
    $B bench $op --dtype bf16 --iters 3 "$@" 2>&1 | grep -E "^ +[a-z]|_fwd_" | grep -v "^==PROF=="
}
{ echo "# Call 242 ($LADDER_COMMIT, a242.sh)"
  for sh in 4096x16384 16384x4096; do
    n "layernorm bf16 $sh (auto: the streamed kernel, three passes)" layernorm --shape $sh
    n "rmsnorm bf16 $sh (auto: the streamed kernel, two passes)" rmsnorm --shape $sh
  done
} > $OUT/ncu-stalls-242.txt 2>&1
cat $OUT/ncu-stalls-242.txt
echo "total $SECONDS s"
true
