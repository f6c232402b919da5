#!/bin/bash
# Call 237: the cache policy of single reads under the bench's cold flush (a memset that leaves
# the L2 full of dirty lines). Call 236's held rows (read once, evict-first, ld.global.cs) tied or
# beat the streamed kernels hot (rmsnorm bf16 65536x1024 66.2 us against 67.7) and lost 6-9% cold
# (71.7 against 69.4), where the streamed kernels lose 1-1.5%; main's LayerNorm register kernel,
# whose x loads are evict-first too, loses 7.2% cold at 65536x1024 (call 232). Trees (kernel
# sources only, through LADDER_KERNELS_DIR; one binary): main; ldplain (patches/held-ldplain.patch:
# the held loads and layernorm_fwd's x loads plain); ldkeep (held loads under the evict_last
# policy); stplain (ldplain, and plain stores in the held, streamed and register kernels:
# ptxas puts 24 bytes of spills in layernorm_fwd bf16 ITEMS 4 there); ldplain1280 (ldplain and
# held-1280.patch: LayerNorm held at 48 registers). Bench, two rounds, cold and hot, bf16.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
declare -A TREE=([main]=$PWD/kernels)
for t in ldplain ldkeep stplain ldplain1280; do mkdir -p /tmp/t-$t && cp -r kernels /tmp/t-$t/ && TREE[$t]=/tmp/t-$t/kernels; done
apply /tmp/t-ldplain $P/held-ldplain.patch; apply /tmp/t-ldkeep $P/held-ldkeep.patch; apply /tmp/t-stplain $P/held-stplain.patch
apply /tmp/t-ldplain1280 $P/held-ldplain.patch; apply /tmp/t-ldplain1280 $P/held-1280.patch
b() { # tree tag op args...
  local tree=$1 tag=$2 op=$3; shift 3
  LADDER_KERNELS_DIR=${TREE[$tree]} LADDER_CACHE_DIR=/tmp/lc-$tree timeout 90 $B bench $op --dtype bf16 "$@" \
    --json $OUT/b-$tree-$tag-$op-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$tree $tag /"
}
L="--variant schedule=loop"
S3="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384"
{ for rep in 1 2; do
    for t in main stplain; do b $t auto rmsnorm $S3 --shape 65536x1024; done
    for t in main ldplain ldkeep stplain; do b $t held4 rmsnorm $S3 $L --variant loop_hold=4; done
    for t in main ldplain ldkeep stplain; do b $t held2t64 rmsnorm --shape 65536x1024 $L --variant loop_hold=2 --variant loop_threads=64; done
    for t in main ldplain stplain; do b $t auto layernorm $S3 --shape 65536x1024; done
    for t in ldplain1280; do b $t held4 layernorm $S3 $L --variant loop_hold=4; done
    for t in main ldplain; do b $t held2t64 layernorm --shape 65536x1024 $L --variant loop_hold=2 --variant loop_threads=64; done
    echo "round $rep done at $SECONDS s" >&2
  done
} > $OUT/bench-policy.txt 2>&1
cat $OUT/bench-policy.txt
cd $OUT && tar czf /tmp/x.tgz . && find . -mindepth 1 -delete && mv /tmp/x.tgz $OUT/a237.tgz
echo "total $SECONDS s"
true
