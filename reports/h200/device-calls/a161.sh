#!/bin/bash
# Call 161: where the bulk-copy backward kernels' time goes at bf16 2048x16384, and when a stage
# is refilled. BulkRowWalk refills a stage at the next row's first reduction, so with two stages
# (add_rmsnorm_bwd bf16 d = 16384: two 96 KiB stages) the next row's copies are in flight only
# during this row's second pass. Two copies of kernels/ refill at the row's end instead:
# .device/k_rowend after a block barrier, .device/k_warpdone from the last warp to finish (no
# block barrier). A/B against main's kernels in one binary, two repeats, cold; then Nsight Compute
# of main's kernels with their column_sum launches (durations, stall reasons); then verify of the
# three backward ops on both copies. The device's own build runs in the background meanwhile.
# Files go to $OUT as each step ends.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
export LADDER_BUILD_DIR=$PWD/build-device
( { time scripts/build; } > /tmp/build161.txt 2>&1 ) &
bp=$!
K=$PWD/kernels
b() { local tag=$1 k=$2; shift 2; LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 90 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for k in $K $PWD/.device/k_rowend $PWD/.device/k_warpdone; do
      t=$(basename $k)
      for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
        b $t $k $op --dtype bf16 --shape 2048x16384
        b $t $k $op --dtype f32 --shape 1024x16384
      done
      b $t $k add_rmsnorm_bwd --dtype bf16 --shape 4096x8192 --variant schedule=bulk
      b $t $k layernorm_bwd --dtype f16 --shape 1024x32768
    done
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-bwd-refill.txt
grep -v "copy ceiling" $OUT/bench-bwd-refill.txt | awk '{print $1,$2,$3,$4,$5,$8,$9,$11,$13,$14}' | sort -k2,2 -k3,3 -k4,4n -k1,1 -s
export LADDER_CACHE_DIR=/tmp/lc-kernels LADDER_KERNELS_DIR=$K
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct
{ for op in layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd; do
    for k in $K $PWD/.device/k_rowend; do
      echo "## ncu: $op bf16 2048x16384, $(basename $k): the bulk kernel and its column_sum"
      LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$(basename $k) timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bulk|column_sum" --launch-skip 4 --launch-count 2 \
        $B bench $op --dtype bf16 --shape 2048x16384 --iters 5 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -48
    done
  done; } > $OUT/ncu-bwd-161.txt 2>&1
grep -E "##|void|duration" $OUT/ncu-bwd-161.txt | cut -c1-150
for k in k_rowend k_warpdone; do
  [ $SECONDS -lt 420 ] || { echo "no time left for verify of $k"; continue; }
  { echo "== ladder verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd ($k)"
    LADDER_KERNELS_DIR=$PWD/.device/$k LADDER_CACHE_DIR=/tmp/lc-$k timeout $((540-SECONDS)) $B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --jobs 14 > /tmp/v161-$k.txt 2>&1
    echo "exit $? at $SECONDS s"; grep -E " FAIL | UNRESOLVED | XPASS " /tmp/v161-$k.txt | head -20; grep -E "rungs:" /tmp/v161-$k.txt; } | tee $OUT/verify-161-$k.txt
done
{ echo "== the device's own build (cmake, nvcc, Catch2 v3), in the background"; grep -E "error|real" /tmp/build161.txt | head; ls -la build-device/ladder build-device/ladder_tests 2>&1; } > $OUT/device-build-161.txt
kill $bp 2>/dev/null; cat $OUT/device-build-161.txt
echo "total $SECONDS s"
true
