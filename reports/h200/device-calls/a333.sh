#!/bin/bash
# Call 333 (and later calls by CALL). On an H200: a306.sh's program (the bench of record first
# among what an H200 still owes). On any other card:
# 1. synccheck over the two f32 eps_large quick rungs that call 331's cut left unstarted
#    (as sanitizer_cover.py found after call 332);
# 2. probes/memcheck_demo.json plainly and under memcheck with bare allocations, so that
#    red_check.py can read memcheck's red from a stored run document and log, as it does
#    synccheck's from call 331;
# 3. memcheck with bare allocations over the f32 quick rungs of all six ops until END (default
#    570): the earlier memcheck runs were bf16 but for six fp32 cluster rungs (call 216), and
#    fp32 rows take other chunk widths (4 elements a 16-byte access, not 8), so other tails and
#    edges. Cut by ladder_ops (call_env.sh) if they run long, keeping what finished.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-333} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-333}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
ops=(rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd)
$B verify "${ops[@]}" --dtype f32 --quick --no-fixtures --write-ladder $OUT/quick-f32-$n.json >> $L 2>&1
VERIFY_UNDER="$sanitizer synccheck" ladder_ops synccheck-eps-f32-$n 40 run --ladder $OUT/quick-f32-$n.json \
  rmsnorm_f32_eps_large add_rmsnorm_f32_eps_large
ladder_ops memcheck-demo-plain-$n 60 run --bare-allocations --ladder probes/memcheck_demo.json
VERIFY_UNDER="$sanitizer memcheck" ladder_ops memcheck-demo-$n 90 run --bare-allocations \
  --ladder probes/memcheck_demo.json
gzip -f $OUT/quick-f32-$n.json
tar czf /tmp/small.tgz -C $OUT $(cd $OUT && ls synccheck-eps-* memcheck-demo-* quick-*) \
  && (cd $OUT && rm -f synccheck-eps-* memcheck-demo-* quick-*) && mv /tmp/small.tgz $OUT/small-$n.tgz
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-f32-$n ${END:-570} \
  "${ops[@]}" --dtype f32 --quick --no-fixtures --bare-allocations
cat $L
echo "total $SECONDS s"
