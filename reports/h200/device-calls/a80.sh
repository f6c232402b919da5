#!/bin/bash
# Call 80: branch edge-chunks-whole's kernels (exp/kernels_edges: the shifted backward kernels
# read a row's two straddling edge chunks as whole aligned 16-byte loads and drop the other rows'
# elements from the sums) against main's kernels, same binary, two repeats; then verify of the
# three backward ops on the branch kernels (fixtures included).
set -u
B=$PWD/.device/ladder
export LADDER_CACHE_DIR=/tmp/lc LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p /tmp/o
for rep in 1 2; do
  for k in main edges; do
    if [ $k = main ]; then kd=$PWD/kernels; else kd=$PWD/exp/kernels_$k; fi
    export LADDER_KERNELS_DIR=$kd
    $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype bf16 --shape 8192x2049 --shape 16384x2049 --shape 16384x2056 --shape 4096x5125 --shape 16384x4096 2>&1 | grep " ladder" | sed "s/^/$k /"
    $B bench rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd --dtype f32 --shape 8192x2049 2>&1 | grep " ladder" | sed "s/^/$k /"
  done
done > /tmp/o/bench-edges-whole.txt 2>&1
export LADDER_KERNELS_DIR=$PWD/exp/kernels_edges
$B verify rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --jobs 14 > /tmp/o/verify-edges-whole-full.txt 2>&1; echo "verify exit $?"
grep -E "FAIL|UNRESOLVED|rungs:" /tmp/o/verify-edges-whole-full.txt | head -20 > /tmp/o/verify-edges-whole.txt
cat /tmp/o/verify-edges-whole.txt
awk '{print $1,$2,$3,$4,$5,$8,$NF}' /tmp/o/bench-edges-whole.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1
cp /tmp/o/bench-edges-whole.txt /tmp/o/verify-edges-whole.txt $OUT/ 2>/dev/null
true
