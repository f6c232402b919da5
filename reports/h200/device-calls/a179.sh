#!/bin/bash
# Call 179: layernorm_bwd's rows split over a thread-block cluster (layernorm_bwd_bulk_cluster,
# bulk_cluster=1|2|4) at the rows whose weight-gradient sums fill or overflow one block's
# registers (16-bit d = 32768, fp32 16384) and at bf16 d = 16384; then main's kernels (the
# previous commit's, exp179/main, passed as LADDER_KERNELS_DIR) against this commit's where auto
# plans no cluster, since the bulk kernels' row walk changed; compute-sanitizer over the cluster
# rungs. Cold, two repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir LADDER_CACHE_DIR=/tmp/lc-$(basename $dir) timeout 150 $B bench "$@" 2>&1 | grep -E " ladder |rror" | sed "s/^/$tag /"; }
K=$PWD/kernels
{ echo "# Call 179 ($LADDER_COMMIT, a179.sh): layernorm_bwd at bulk_cluster 1, 2, 4 (c1, c2, c4); main's kernels ('main') against this commit's ('new') under auto; cold, two repeats."
  for rep in 1 2; do
    for c in 1 2 4; do
      V="--variant schedule=bulk --variant bulk_cluster=$c"
      b c$c $K layernorm_bwd --dtype f16 --shape 1024x32768 $V
      b c$c $K layernorm_bwd --dtype bf16 --shape 1024x32768 --shape 2048x16384 --shape 4096x16384 $V
      b c$c $K layernorm_bwd --dtype f32 --shape 1024x16384 --shape 2048x16384 $V
    done
    b c2-recompute $K layernorm_bwd --dtype bf16 --shape 1024x32768 --variant schedule=bulk --variant bulk_cluster=2 --variant stats=recompute
    b c1-recompute $K layernorm_bwd --dtype bf16 --shape 1024x32768 --variant schedule=bulk --variant bulk_cluster=1 --variant stats=recompute
    for t in main new; do d=$K; [ $t = main ] && d=$PWD/exp179/main
      b $t $d layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 2048x16384; done
  done; } > $OUT/bench-cluster-179.txt
awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' $OUT/bench-cluster-179.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$K
$B verify layernorm_bwd --no-fixtures --write-ladder /tmp/vl.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout 150 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vl.json '*bulk_cluster*' --jobs 4 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-cluster-179.txt
  echo "== $tool"; cat $OUT/$tool-cluster-179.txt
done
echo "total $SECONDS s"
true
