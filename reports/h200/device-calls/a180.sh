#!/bin/bash
# Call 180: the backward's cluster kernels after two changes: rmsnorm_bwd and add_rmsnorm_bwd
# split too, and every cluster kernel overlapping the exchange of a row's sums with the next
# row's first pass. This commit's kernels ('new') against 7da8e9d's, which exchange and then go
# on ('nopipe', exp180/nopipe), under auto; one block a row (bulk_cluster=1, 'c1') for the
# rmsnorm ops' auto choice; main's kernels before clusters (edd5ade, exp179/main) against
# these where auto plans one block a row. Cold, two repeats. Then compute-sanitizer (memcheck
# with bare allocations, racecheck: the plain
# bulk_cluster=2 rung of each) over the bf16 bulk_cluster rungs of the three ops.
# Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
K=$PWD/kernels
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir LADDER_CACHE_DIR=/tmp/lc-$(basename $dir) timeout 150 $B bench "$@" 2>&1 | grep -E " ladder |rror" | sed "s/^/$tag /"; }
{ echo "# Call 180 ($LADDER_COMMIT, a180.sh): new (this commit) against nopipe (7da8e9d) and c1 (bulk_cluster=1); main (edd5ade) against new where auto plans no cluster; cold, two repeats."
  for rep in 1 2; do
    for t in new nopipe; do d=$K; [ $t = nopipe ] && d=$PWD/exp180/nopipe
      b $t $d layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 1024x32768
      b $t $d layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype f32 --shape 1024x16384
      b $t $d layernorm_bwd --dtype f16 --shape 1024x32768
    done
    V="--variant schedule=bulk --variant bulk_cluster=1"
    b c1 $K rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 $V
    b c1 $K rmsnorm_bwd add_rmsnorm_bwd --dtype f32 --shape 1024x16384 $V
    b c1-dh $K add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 $V --variant dh=1
    b new-dh $K add_rmsnorm_bwd --dtype bf16 --shape 1024x32768 --variant dh=1
    for t in main new; do d=$K; [ $t = main ] && d=$PWD/exp179/main
      b $t $d layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 2048x16384; done
  done; } > $OUT/bench-cluster-180.txt
awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' $OUT/bench-cluster-180.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
export LADDER_CACHE_DIR=/tmp/lc-kernels LADDER_KERNELS_DIR=$K
$B verify layernorm_bwd rmsnorm_bwd add_rmsnorm_bwd --dtype bf16 --no-fixtures --write-ladder /tmp/vc.json > /dev/null
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--bare-allocations"
  # racecheck is slow on the 67-row cases: the plain cluster rung of each op only.
  sel="*bulk_cluster*"; [ $tool = racecheck ] && sel="*_bf16_bulk_cluster_2_schedule_bulk *_bf16_bulk_cluster_2_dh_1_schedule_bulk"
  timeout 170 compute-sanitizer --tool $tool --target-processes all --print-limit 5 $B run --ladder /tmp/vc.json $sel --jobs 8 $extra > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit" /tmp/san.txt | sort | uniq -c; } > $OUT/$tool-cluster-180.txt
  echo "== $tool"; cat $OUT/$tool-cluster-180.txt
done
echo "total $SECONDS s"
true
