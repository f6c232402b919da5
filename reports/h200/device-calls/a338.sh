#!/bin/bash
# Call 338 (and later calls by CALL). On an H200: a306.sh's program. On any other card:
# racecheck over the f32 quick rungs that calls 335 and 337 did not reach (113 of 299, named
# one a line in racecheck-f32-left-338.txt, as sanitizer_cover.py listed them), run from the
# verify's own rungs written as a ladder, until END (default 540), cut by ladder_ops
# (call_env.sh) if it runs long, keeping what finished. Check with sanitizer_cover.py against
# reports/h100/quick-f32-ladder.json.gz together with calls 335 and 337.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-338} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-338}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
$B verify rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 \
  --quick --no-fixtures --write-ladder $OUT/f32-quick-$n.json >> $L 2>&1
mapfile -t left < reports/h200/device-calls/racecheck-f32-left-338.txt
VERIFY_UNDER="$sanitizer racecheck" ladder_ops racecheck-f32-left-$n ${END:-540} \
  run --ladder $OUT/f32-quick-$n.json "${left[@]}"
cat $L
echo "total $SECONDS s"
