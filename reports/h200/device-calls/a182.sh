#!/bin/bash
# Call 182: the phase kernels (rows off the 16-byte grid) loading each row one row ahead, and
# LayerNorm's phase kernel joining the threads' moments in one reduction (Chan's update) instead
# of two. This commit's kernels ('new': both) against main's f91674a ('base', exp182/base),
# 'ahead' (prefetch only, exp182/ahead) and 'chan' (one reduction, no prefetch in LayerNorm,
# exp182/chan), cold, two repeats. Then verify of the forward ops with 'new' (every rung) and
# of layernorm with 'ahead'; Nsight Compute of the backward at 8192x2048 against 8192x2049.
# Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
K=$PWD/kernels
nvidia-smi -L
dir() { case $1 in new) echo $K;; *) echo $PWD/exp182/$1;; esac; }
b() { local tag=$1; shift; LADDER_KERNELS_DIR=$(dir $tag) LADDER_CACHE_DIR=/tmp/lc-$tag timeout 200 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 182 ($LADDER_COMMIT, a182.sh): phase kernels, new (prefetch + one-reduction LayerNorm) against base (f91674a), ahead (prefetch only) and chan (one reduction only); auto's plans, cold, two repeats. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for t in base ahead chan new; do
      b $t layernorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x1025 --shape 16384x3073
      b $t layernorm --dtype f32 --shape 16384x2049
    done
    for t in base ahead; do
      b $t rmsnorm add_rmsnorm --dtype bf16 --shape 16384x2049 --shape 8192x2049 --shape 16384x3073
      b $t add_rmsnorm --dtype bf16 --shape 65536x1025
    done
  done; } > $OUT/bench-phase-182.txt
grep -v "copy ceiling" $OUT/bench-phase-182.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
# Whatever time is left under the call's limit (ncu last, about 90 s).
left() { local l=$(( $1 - SECONDS )); [ $l -lt 10 ] && l=10; echo $l; }
vrun() { local tag=$1 out=$2; shift 2
  LADDER_KERNELS_DIR=$(dir $tag) LADDER_CACHE_DIR=/tmp/lc-$tag timeout $(left $VERIFY_END) $B verify "$@" --jobs 12 --json /tmp/$out.json > /tmp/$out.txt 2>&1
  { echo "exit $?"; tail -4 /tmp/$out.txt; grep -E "FAIL|UNRESOLVED" /tmp/$out.txt | head -20; } > $OUT/$out.txt; cat $OUT/$out.txt; }
VERIFY_END=420 vrun new verify-fwd-182 layernorm rmsnorm add_rmsnorm
VERIFY_END=480 vrun ahead verify-ln-ahead-182 layernorm
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_short_scoreboard,smsp__average_warp_latency_issue_stalled_wait,smsp__average_warp_latency_issue_stalled_math_pipe_throttle,smsp__average_warp_latency_issue_stalled_lg_throttle,smsp__average_warps_issue_stalled_not_selected_per_issue_active
{ for op in rmsnorm_bwd layernorm_bwd; do for s in 8192x2048 8192x2049; do
    echo "## ncu: $op bf16 $s, auto"
    LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-new timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"_bwd" --launch-skip 2 --launch-count 1 \
      $B bench $op --dtype bf16 --shape $s --iters 3 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -30
  done; done
  for t in base new; do
    echo "## ncu: layernorm bf16 16384x2049, $t"
    LADDER_KERNELS_DIR=$(dir $t) LADDER_CACHE_DIR=/tmp/lc-$t timeout 60 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"layernorm" --launch-skip 2 --launch-count 1 \
      $B bench layernorm --dtype bf16 --shape 16384x2049 --iters 3 2>&1 | grep -E "^  [a-z]|^ +[a-z]" | head -30
  done; } > $OUT/ncu-182.txt 2>&1
cut -c1-150 $OUT/ncu-182.txt
echo "total $SECONDS s"
true
