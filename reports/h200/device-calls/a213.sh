#!/bin/bash
# Call 213: column_sum and the in-kernel reduce sharing one tile routine (norm::column_tile_sum)
# against the kernels before it (bf33a03, .device/base/kernels), same binary, cold, two rounds
# alternating; every backward verify rung on the new kernels; compute-sanitizer over the bf16
# backward rungs of both reduce forms; Nsight Compute's stall reasons of the bulk kernel with a
# row a block (2048x16384) against two blocks a row in a cluster (1024x32768). Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 220) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 213 ($LADDER_COMMIT, a213.sh): tags base (bf33a03's kernels) and tile (column_tile_sum), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
      for k in base tile; do
        dir=$NEW; [ $k = base ] && dir=$BASE
        b $k $dir $op --dtype bf16 --shape 2048x16384 --shape 8192x2049 --shape 16384x4096 --shape 1024x32768
        b $k-grid $dir $op --dtype bf16 --shape 2048x16384 --variant reduce=grid
      done
    done
  done; } > $OUT/bench-tile-213.txt
grep -v "copy ceiling" $OUT/bench-tile-213.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8}' | sort -k2,2 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/vb.json > /dev/null
timeout $(left 430) $B run --ladder /tmp/vb.json --jobs 12 --json $OUT/verify-bwd-213.json > $OUT/verify-bwd-213.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-213.txt | head -30
echo "verify done $SECONDS s"
N=$OUT/ncu-cluster-stalls-213.txt
echo "# Call 213: Nsight Compute, --cache-control none --clock-control none, rmsnorm_bwd bf16, the bulk kernel's 3rd launch: a row a block (2048x16384) against two blocks a row (1024x32768, cluster of 2)" > $N
for shape in 2048x16384 1024x32768; do
  echo "## rmsnorm_bwd bf16 $shape" >> $N
  timeout $(left 520) ncu --cache-control none --clock-control none --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_misc.ratio,smsp__average_warp_latency_issue_stalled_sleeping.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_branch_resolving.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio \
    -k regex:"bwd_bulk" $B bench rmsnorm_bwd --dtype bf16 --shape $shape --iters 4 2>&1 | grep -E "^\s+(gpu__|dram__|smsp__)|^  [a-z_]+.*\(" | sed 's/(T1 \*.*) (/(/' >> $N
done
cat $N
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 590) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*_bwd_bf16' '*_bwd_bf16_reduce_grid_schedule_bulk' '*_bwd_bf16_*strided_odd*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-tile-213.txt
  echo "== $tool"; cat $OUT/$tool-tile-213.txt
done
echo "total $SECONDS s"
true
