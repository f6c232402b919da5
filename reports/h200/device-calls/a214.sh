#!/bin/bash
# Call 214: the cluster's row sums exchanged by st.async into the other block's shared memory,
# each block waiting on its own mbarrier (cluster_sum.cuh), against one cluster barrier a sum
# (5b376c1's kernels, .device/base/kernels), same binary, cold, two rounds alternating, at the
# shapes auto gives clusters (bf16/f16 1024x32768, fp32 1024x16384) and 2048x16384 (no cluster,
# unchanged: the control). Then every backward verify rung, Nsight Compute's stall reasons
# again, and compute-sanitizer over the bf16 cluster rungs. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 214 ($LADDER_COMMIT, a214.sh): tags barrier (a cluster barrier a sum, 5b376c1's kernels) and async (st.async into the other block, an mbarrier each), same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do
      for k in barrier async; do
        dir=$NEW; [ $k = barrier ] && dir=$BASE
        b $k $dir $op --dtype bf16 --shape 1024x32768 --shape 2048x16384
        b $k $dir $op --dtype f16 --shape 1024x32768
        b $k $dir $op --dtype f32 --shape 1024x16384
      done
    done
  done; } > $OUT/bench-cluster-async-214.txt
grep -v "copy ceiling" $OUT/bench-cluster-async-214.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
export LADDER_KERNELS_DIR=$NEW
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/vb.json > /dev/null
timeout $(left 400) $B run --ladder /tmp/vb.json --jobs 12 --json $OUT/verify-bwd-214.json > $OUT/verify-bwd-214.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-214.txt | head -30
grep -c cluster $OUT/verify-bwd-214.txt
echo "verify done $SECONDS s"
N=$OUT/ncu-cluster-async-214.txt
echo "# Call 214: Nsight Compute, --cache-control none --clock-control none, the bulk kernel's 3rd launch, bf16 1024x32768 (cluster of 2), the st.async exchange" > $N
for op in rmsnorm_bwd layernorm_bwd; do
  echo "## $op bf16 1024x32768" >> $N
  timeout $(left 480) ncu --cache-control none --clock-control none --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio \
    -k regex:"bwd_bulk" $B bench $op --dtype bf16 --shape 1024x32768 --iters 4 2>&1 | grep -E "^\s+(gpu__|dram__|smsp__)|^  [a-z_]+.*\(" | sed 's/(T1 \*.*) (/(/' >> $N
done
cat $N
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 580) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json '*_bwd_bf16*cluster*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-cluster-async-214.txt
  echo "== $tool"; cat $OUT/$tool-cluster-async-214.txt
done
echo "total $SECONDS s"
true
