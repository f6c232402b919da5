#!/bin/bash
# Call 216: the evidence for main after this round (ae97b9b: column_sum's tile routine shared
# with the in-kernel reduce; the cluster's row sums by st.async; rmsnorm_bwd fp32 on clusters).
# With the carried binary: bench and peers (same run, same machine); rmsnorm_bwd fp32 1024x16384
# on clusters (auto) against one block, and layernorm_bwd fp32's two exchanges, two rounds; every
# backward verify rung; compute-sanitizer over the fp32 rmsnorm_bwd rungs. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/t
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 200) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ echo "# Call 216 ($LADDER_COMMIT, a216.sh)"; nvidia-smi --query-gpu=name,driver_version --format=csv
  echo "== bench"; (time timeout 170 $B bench --json $OUT/bench.json) 2>&1 | grep -E "copy ceiling|real"
  echo "== peers"; (time timeout 90 python3 scripts/bench_peers.py --json $OUT/peers.json > /tmp/t/peers.txt 2>&1) 2>&1 | grep real; tail -2 /tmp/t/peers.txt
} > $OUT/log-216.txt 2>&1
{ echo "# Call 216 ($LADDER_COMMIT, a216.sh): tags name the plan; cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto-cluster rmsnorm_bwd --dtype f32 --shape 1024x16384
    b one-block rmsnorm_bwd --dtype f32 --shape 1024x16384 --variant schedule=bulk --variant bulk_cluster=1
    b barrier layernorm_bwd --dtype f32 --shape 1024x16384 --variant cluster_exchange=barrier
    b async layernorm_bwd --dtype f32 --shape 1024x16384 --variant cluster_exchange=async
  done; } > $OUT/bench-fp32-clusters-216.txt
grep -v "copy ceiling" $OUT/bench-fp32-clusters-216.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k1,1 -s
echo "bench done $SECONDS s"
$B verify rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --write-ladder /tmp/vb.json > /dev/null
timeout $(left 470) $B run --ladder /tmp/vb.json --jobs 12 --json $OUT/verify-bwd-216.json > $OUT/verify-bwd-216.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-bwd-216.txt | head -20
echo "verify done $SECONDS s"
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout $(left 530) compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vb.json 'rmsnorm_bwd_f32' 'rmsnorm_bwd_f32*cluster*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-fp32-216.txt
  echo "== $tool"; cat $OUT/$tool-fp32-216.txt
done
cat $OUT/log-216.txt
echo "total $SECONDS s"
true
