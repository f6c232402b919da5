#!/bin/bash
# Call 331 (and later calls by CALL). On an H200: a306.sh's program (the bench of record first
# among what an H200 still owes). On any other card:
# 1. probes/synccheck_demo.json plainly (both rungs must PASS: their barriers change no value),
#    then under compute-sanitizer synccheck, which is there to report both (never yet run);
# 2. synccheck and initcheck over the eps_large quick rungs that calls 326-330's cuts left
#    unstarted (sanitizer-cover-326-330.txt), from the verify's own rungs written as a ladder;
# 3. synccheck over the f16, then the f32, quick rungs of all six ops until END (default 570),
#    cut by ladder_ops (call_env.sh) if they run long, keeping what finished.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-331} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-331}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
ops=(rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd)
ladder_ops synccheck-demo-plain-$n 40 run --ladder probes/synccheck_demo.json
VERIFY_UNDER="$sanitizer synccheck" ladder_ops synccheck-demo-$n 80 run --ladder probes/synccheck_demo.json
for dt in bf16 f16 f32; do
  $B verify "${ops[@]}" --dtype $dt --quick --no-fixtures --write-ladder $OUT/quick-$dt-$n.json >> $L 2>&1
done
VERIFY_UNDER="$sanitizer synccheck" ladder_ops synccheck-eps-$n 150 run --ladder $OUT/quick-bf16-$n.json \
  rmsnorm_bf16_eps_large add_rmsnorm_bf16_eps_large
VERIFY_UNDER="$sanitizer initcheck" ladder_ops initcheck-eps-f16-$n 180 run --ladder $OUT/quick-f16-$n.json \
  rmsnorm_f16_eps_large add_rmsnorm_f16_eps_large
VERIFY_UNDER="$sanitizer initcheck" ladder_ops initcheck-eps-f32-$n 220 run --ladder $OUT/quick-f32-$n.json \
  rmsnorm_f32_eps_large add_rmsnorm_f32_eps_large layernorm_f32_eps_large rmsnorm_bwd_f32_eps_large
gzip -f $OUT/quick-*-$n.json
tar czf /tmp/eps.tgz -C $OUT $(cd $OUT && ls synccheck-demo-* synccheck-eps-* initcheck-eps-* quick-*) \
  && (cd $OUT && rm -f synccheck-demo-* synccheck-eps-* initcheck-eps-* quick-*) && mv /tmp/eps.tgz $OUT/small-$n.tgz
VERIFY_UNDER="$sanitizer synccheck" verify_ops synccheck-f16-$n $(( (220 + ${END:-570}) / 2 )) \
  "${ops[@]}" --dtype f16 --quick --no-fixtures
VERIFY_UNDER="$sanitizer synccheck" verify_ops synccheck-f32-$n ${END:-570} \
  "${ops[@]}" --dtype f32 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
