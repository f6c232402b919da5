#!/bin/bash
# Call 180: rmsnorm_bwd and add_rmsnorm_bwd with their rows split over a cluster of two blocks
# (bulk_cluster=2, which auto now takes past 2048 chunks a row) against one block a row
# (bulk_cluster=1), cold, two repeats; then compute-sanitizer (memcheck with bare allocations,
# racecheck) over the bf16 bulk_cluster rungs of the three backward ops. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_KERNELS_DIR=$PWD/kernels
b() { local tag=$1; shift; timeout 150 $B bench "$@" 2>&1 | grep -E " ladder |rror" | sed "s/^/$tag /"; }
{ echo "# Call 180 ($LADDER_COMMIT, a180.sh): rmsnorm_bwd, add_rmsnorm_bwd at bulk_cluster 1 (c1) and 2 (c2, auto's); cold, two repeats."
  for rep in 1 2; do
    for c in 1 2; do
      V="--variant schedule=bulk --variant bulk_cluster=$c"
      b c$c rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 --shape 2048x32768 $V
      b c$c rmsnorm_bwd add_rmsnorm_bwd --dtype f16 --shape 1024x32768 $V
      b c$c rmsnorm_bwd add_rmsnorm_bwd --dtype f32 --shape 1024x16384 --shape 2048x16384 $V
      b c$c-dh add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 $V --variant dh=1
    done
  done; } > $OUT/bench-cluster-rms-180.txt
awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' $OUT/bench-cluster-rms-180.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
$B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vc.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  timeout 170 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vc.json '*bulk_cluster*' --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-cluster-180.txt
  echo "== $tool"; cat $OUT/$tool-cluster-180.txt
done
echo "total $SECONDS s"
true
