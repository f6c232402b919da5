#!/bin/bash
# Call 240 (after a239.sh): the row-a-block kernels' reads under the L2 keep policy
# (patches/policy-rowkeep.patch: BlockRow::load through Load::Keep). add_rmsnorm bf16 512x32768
# (add_rmsnorm_fwd_row, 0.80 of the copy ceiling, level with Triton) loses 2.8% cold against hot
# (call 232), where call 238's kept reads took the rows read once 2.5-7% closer to their hot
# times. ptxas sm_90: 128 registers, no spills either way. Bench, two rounds, cold and hot,
# main against the patched tree (kernel sources only, one binary). Carried: .device/ladder.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
P=$PWD/reports/h200/device-calls/patches
mkdir -p $OUT /tmp/t-rowkeep
apply() { (cd $1 && { patch -s -p1 < $2 2>/dev/null || git apply -p1 $2; }) || { echo "$2 did not apply"; exit 1; }; }
cp -r kernels /tmp/t-rowkeep/ && apply /tmp/t-rowkeep $P/policy-rowkeep.patch
declare -A TREE=([main]=$PWD/kernels [rowkeep]=/tmp/t-rowkeep/kernels)
{ for rep in 1 2; do
    for t in main rowkeep; do
      for dt in bf16 f16 f32; do
        LADDER_KERNELS_DIR=${TREE[$t]} LADDER_CACHE_DIR=/tmp/lc-$t timeout 90 $B bench add_rmsnorm --dtype $dt \
          --shape 512x32768 --shape 1024x32768 --json $OUT/b-$t-$dt-$rep.json 2>&1 | grep -E " ladder |rror" | sed "s/^/$t /"
      done
    done
    echo "round $rep done at $SECONDS s" >&2
  done
} > $OUT/bench-rowkeep.txt 2>&1
cat $OUT/bench-rowkeep.txt
cd $OUT && tar czf /tmp/x.tgz . && find . -mindepth 1 -delete && mv /tmp/x.tgz $OUT/a240.tgz
echo "total $SECONDS s"
true
