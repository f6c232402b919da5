#!/bin/bash
# Call 215: with the cluster's row sums exchanged by st.async (d044605), which plans each op's
# cluster rows should take: reduce=grid against reduce=launch at bf16 1024x32768 (two rounds);
# layernorm_bwd fp32 1024x16384 with either exchange and either reduce (two rounds); and, one
# round each, clusters where auto keeps one block (rmsnorm_bwd fp32 1024x16384, bf16
# 2048x16384) and add_rmsnorm_bwd with dh. Then every cluster verify rung (auto's barrier for
# fp32 layernorm_bwd and the new cluster_exchange rungs among them) and Nsight Compute's stall
# reasons of layernorm_bwd fp32's two exchanges. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 170) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 215 ($LADDER_COMMIT, a215.sh): tags name the variant; cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    for op in rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
      b launch $op --dtype bf16 --shape 1024x32768 --variant reduce=launch
      b grid $op --dtype bf16 --shape 1024x32768 --variant reduce=grid
    done
    for ex in async barrier; do
      for red in grid launch; do
        b $ex-$red layernorm_bwd --dtype f32 --shape 1024x16384 --variant cluster_exchange=$ex --variant reduce=$red
      done
    done
  done
  b auto rmsnorm_bwd --dtype f32 --shape 1024x16384
  b cluster2 rmsnorm_bwd --dtype f32 --shape 1024x16384 --variant schedule=bulk --variant bulk_cluster=2
  b auto rmsnorm_bwd --dtype bf16 --shape 2048x16384
  b cluster2 rmsnorm_bwd --dtype bf16 --shape 2048x16384 --variant schedule=bulk --variant bulk_cluster=2
  b async-dh add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 --variant dh=1
  b barrier-dh add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 --variant dh=1 --variant cluster_exchange=barrier
} > $OUT/bench-cluster-plans-215.txt
grep -v "copy ceiling" $OUT/bench-cluster-plans-215.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "bench done $SECONDS s"
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/vb.json > /dev/null
timeout $(left 300) $B run --ladder /tmp/vb.json '*cluster*' --jobs 12 --json $OUT/verify-cluster-215.json > $OUT/verify-cluster-215.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-cluster-215.txt | head -20
echo "verify done $SECONDS s"
N=$OUT/ncu-ln-f32-exchange-215.txt
echo "# Call 215: Nsight Compute, --cache-control none --clock-control none, layernorm_bwd fp32 1024x16384 (cluster of 2, reduce=grid), the bulk kernel's 3rd launch, by exchange" > $N
for ex in barrier async; do
  echo "## cluster_exchange=$ex" >> $N
  timeout $(left 380) ncu --cache-control none --clock-control none --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_branch_resolving.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio,smsp__warps_active.avg.pct_of_peak_sustained_active \
    -k regex:"bwd_bulk" $B bench layernorm_bwd --dtype f32 --shape 1024x16384 --variant cluster_exchange=$ex --iters 4 2>&1 | grep -E "^\s+(gpu__|dram__|smsp__)|^  [a-z_]+.*\(" | sed 's/(T1 \*.*) (/(/' >> $N
done
cat $N
echo "total $SECONDS s"
true
