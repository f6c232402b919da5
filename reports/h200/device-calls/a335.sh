#!/bin/bash
# Call 335 (and later calls by CALL). On an H200: a306.sh's program (the bench of record first
# among what an H200 still owes). On any other card: compute-sanitizer racecheck over the f32
# quick rungs, the backward ops first (their column sums and row-group exchanges are the
# shared-memory code whose slots depend on the chunk width: 4 fp32 elements a 16-byte access,
# 8 for 16-bit), then the forward ops, until END (default 570), cut by ladder_ops (call_env.sh)
# if they run long, keeping what finished. The racecheck runs so far were bf16 but for the fp32
# cluster rungs of rmsnorm_bwd (call 216); check the result with sanitizer_cover.py against
# reports/h100/quick-f32-ladder.json.gz.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-335} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-335}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
VERIFY_UNDER="$sanitizer racecheck" verify_ops racecheck-f32-bwd-$n $(( ${END:-570} * 2 / 3 )) \
  rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 --quick --no-fixtures
VERIFY_UNDER="$sanitizer racecheck" verify_ops racecheck-f32-fwd-$n ${END:-570} \
  rmsnorm add_rmsnorm layernorm --dtype f32 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
