#!/bin/bash
# Call 238: single reads under an L2 evict_last policy (Load::Keep, kernels/global_loads.cuh)
# where kernels read their rows once, against the bench's cold flush (a memset leaving the L2 full
# of dirty lines). Call 237: the held rows' evict-first reads lost 6-9% cold against the same
# kernel hot, plain reads 2-5%, kept reads 1-2%; held under the keep policy, rmsnorm bf16
# 65536x1024 (64 threads, two chunks each) took 68.2-68.6 us against auto's 69.9-70.1, and
# LayerNorm's register kernel with plain reads in place of evict-first 72.3-72.5 against 74.2-74.3.
# This tree (main): the held rows read kept; LayerNorm's register kernel reads x kept; auto holds
# 16-bit RMSNorm rows of 128 chunks from 2048 rows. Trees beside it (kernel sources only, one
# binary): lnold (patches/policy-lnold.patch: LayerNorm's x evict-first again), lnplain (plain),
# phasekeep (the phase kernels' 16-byte row reads kept), bwdkeep (rmsnorm_bwd's and fp32 or
# shifted layernorm_bwd's row reads kept), bulkkeep (the bulk copies under the keep policy).
# Bench, two rounds, cold and hot. Carried: .device/ladder (this tree's build, stripped).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
declare -A TREE=([main]=$PWD/kernels)
for t in lnold lnplain phasekeep bwdkeep bulkkeep; do
  mkdir -p /tmp/t-$t && cp -r kernels /tmp/t-$t/ && TREE[$t]=/tmp/t-$t/kernels && apply /tmp/t-$t $P/policy-$t.patch
done
b() { # tree tag dtype op args...
  local tree=$1 tag=$2 dt=$3 op=$4; shift 4
  LADDER_KERNELS_DIR=${TREE[$tree]} LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $B bench $op --dtype $dt "$@" \
    --json $OUT/b-$tree-$tag-$op-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$tree $tag /"
}
W="--shape 65536x1024 --shape 16384x1024 --shape 4096x1024"
{ for rep in 1 2; do
    for dt in bf16 f16; do
      b main auto $dt rmsnorm $W
      b main rows2 $dt rmsnorm $W --variant schedule=rows2
    done
    for t in main lnold lnplain; do
      b $t auto bf16 layernorm $W --shape 16384x768
      b $t auto f16 layernorm --shape 65536x1024
      b $t auto f32 layernorm --shape 65536x1024 --shape 16384x768
    done
    for t in main phasekeep; do
      b $t auto bf16 rmsnorm --shape 16384x2049 --shape 8192x3073
      b $t auto bf16 add_rmsnorm --shape 16384x2049 --shape 8192x2049
      b $t auto bf16 layernorm --shape 16384x2049
      b $t auto f32 layernorm --shape 16384x2049
    done
    for t in main bwdkeep; do
      for op in rmsnorm_bwd layernorm_bwd; do b $t auto bf16 $op --shape 16384x4096 --shape 8192x2049; b $t auto f32 $op --shape 16384x4096; done
    done
    for t in main bulkkeep; do
      b $t auto bf16 layernorm --shape 2048x32768
      for op in rmsnorm_bwd layernorm_bwd add_rmsnorm_bwd; do b $t auto bf16 $op --shape 2048x16384 --shape 1024x32768; done
    done
    echo "round $rep done at $SECONDS s" >&2
  done
} > $OUT/bench-keep.txt 2>&1
cat $OUT/bench-keep.txt
cd $OUT && tar czf /tmp/x.tgz . && find . -mindepth 1 -delete && mv /tmp/x.tgz $OUT/a238.tgz
echo "total $SECONDS s"
true
