#!/bin/bash
# Call 230: the builds whose spills this round's kernels changed (ptxas: add_rmsnorm_bwd f32
# ITEMS 4 0 -> 44 bytes, f16 ITEMS 2 shifted 0 -> 84; layernorm_bwd f16 ITEMS 2 shifted 0 -> 60,
# f32 ITEMS 1 shifted 0 -> 20), at one-tile shapes that take them: 2fa7071's kernels (base)
# against main's, same binary, two rounds alternating, cold. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT
B=$PWD/.device/ladder
NEW=$PWD/kernels BASE=$PWD/.device/base/kernels
export LADDER_CACHE_DIR=/tmp/lc
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1 dir=$2; shift 2; LADDER_KERNELS_DIR=$dir timeout $(left 150) $B bench "$@" 2>&1 | grep -E " ladder |rror" | sed "s/^/$tag /"; }
{ echo "# Call 230 ($LADDER_COMMIT, a230.sh): tags base (2fa7071's kernels) and main, same binary. Cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do for k in base main; do
    dir=$NEW; [ $k = base ] && dir=$BASE
    b $k $dir add_rmsnorm_bwd --dtype f32 --shape 16384x4096
    b $k $dir add_rmsnorm_bwd --dtype f16 --shape 8192x2049 --variant schedule=regs
    b $k $dir layernorm_bwd --dtype f16 --shape 8192x2049
    b $k $dir layernorm_bwd --dtype f32 --shape 16384x769 --shape 8192x2049
  done; done
} > $OUT/bench-spills-230.txt
awk 'NR>1{print $1,$2,$3,$4,$5,$8,$16,$17,$18,$19,$20,$21}' $OUT/bench-spills-230.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
echo "total $SECONDS s"
true
