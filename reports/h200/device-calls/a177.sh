#!/bin/bash
# Call 177: layernorm_bwd's one-tile weight-gradient sums, which call 176 found moving more bytes
# through shared memory than the op moves through DRAM: main's kernels (both sums in shared
# memory) against copies with both in registers ('a') or dbeta in registers and dgamma in shared
# memory ('b'), ptxas spilling 48-172 and 12-36 bytes. Same binary; the copies are passed as
# LADDER_KERNELS_DIR (exp177/a, exp177/b: kernels/ with layernorm_bwd.cuh changed). Cold, two
# repeats. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
S="--shape 8192x2048 --shape 8192x2049 --shape 16384x2049 --shape 4096x8192 --shape 16384x4096 --shape 65536x1024"
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir LADDER_CACHE_DIR=/tmp/lc-$tag timeout 150 $B bench layernorm_bwd "$@" 2>&1 | grep -E " ladder |rror" | sed "s/^/$tag /"; }
{ echo "# Call 177 ($LADDER_COMMIT, a177.sh): layernorm_bwd, main ('main') against the sums in registers ('a') and dbeta alone in registers ('b'); cold, two repeats."
  for rep in 1 2; do
    for t in main a b; do d=$PWD/kernels; [ $t != main ] && d=$PWD/exp177/$t
      b $t $d --dtype bf16 $S; b $t $d --dtype f32 --shape 8192x2049 --shape 16384x4096; done
  done; } > $OUT/bench-ln-bwd-sums-177.txt
awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' $OUT/bench-ln-bwd-sums-177.txt | sort -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
