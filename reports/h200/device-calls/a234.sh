#!/bin/bash
# Call 234: LayerNorm's phase kernel (rows off the 16-byte grid, d = 2049) with each chunk unpacked
# once rather than once a pass. layernorm_fwd_phase reads 16-bit d = 2049 at 0.59 of the copy
# ceiling (53.6 us at bf16 16384x2049) where rmsnorm_fwd_phase, on the same geometry and bytes,
# reads 0.71 (44.9 us): LayerNorm unpacks each chunk in three passes (sum, squared deviations,
# output) and RMSNorm in two. patches/ln-phase-unpack-once.patch keeps the row as floats from the
# first pass on (ptxas sm_90: bf16 ITEMS 3, auto's at 2049, 64 registers and no spills either
# way; ITEMS 4 spills 32 bytes against 64; fp32 ITEMS 4 48 against none). Kernel sources only:
# one binary (.device/ladder, main's build, stripped), two kernel trees through LADDER_KERNELS_DIR.
# Part 1: bench, two rounds, auto's plans (the phase kernel) at the widths it takes, base and
# patched, compared with `ladder compare`. Part 2: every LayerNorm verify rung on the patched tree.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/k1
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
cp -r kernels /tmp/k1/ && apply /tmp/k1 $P/ln-phase-unpack-once.patch
declare -A TREE=([base]=$PWD/kernels [once]=/tmp/k1/kernels)
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
S="--shape 16384x2049 --shape 8192x3073 --shape 16384x1025 --shape 4096x5125"
b() { # tree json args...
  local tree=$1 json=$2; shift 2
  LADDER_KERNELS_DIR=${TREE[$tree]} LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $B bench layernorm "$@" --json $json 2>&1 |
    grep -E " ladder |copy ceiling|rror" | sed "s/^/$tree /"
}
{ for rep in 1 2; do
    for dt in bf16 f16 f32; do
      for t in base once; do b $t $OUT/b-$t-$dt-$rep.json --dtype $dt $S; done
    done
    echo "round $rep done at $SECONDS s" >&2
  done
  for dt in bf16 f16 f32; do
    echo "== compare $dt base -> unpacked once, round 2"
    $B compare $OUT/b-base-$dt-2.json $OUT/b-once-$dt-2.json | grep -vE "^$" | head -10
  done
} > $OUT/bench-ln-phase.txt 2>&1
cat $OUT/bench-ln-phase.txt
echo "bench done $SECONDS s"
LADDER_KERNELS_DIR=${TREE[once]} LADDER_CACHE_DIR=/tmp/lc-v timeout $(left 580) $B verify layernorm --jobs 14 --json $OUT/verify-layernorm-once.json > $OUT/verify-layernorm-once.txt 2>&1
echo "verify exit $?"; grep -E "FAIL|UNRESOLVED|XPASS|rungs:" $OUT/verify-layernorm-once.txt | grep -v " PASS " | head -8
echo "total $SECONDS s"
true
