#!/bin/bash
# Call 308. On an H200: call 296's program (the bench of record and the decode row's peers first,
# then every verify rung until END). On any other card, compute-sanitizer over the current build
# where its last runs are oldest: racecheck over every bf16 quick rung of layernorm_bwd (42: the
# register, phase, bulk, cluster and grid-reduce builds and the column_sum pair) until RACE_END
# (default 300), then memcheck with exact allocations (--bare-allocations, so that a read or write
# just past a buffer is an error) over every bf16 quick rung of layernorm (55) until END
# (default 560). Each is stopped by SIGINT, so a cut keeps what finished.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-308} exec bash reports/h200/device-calls/a296.sh; fi
source reports/h200/device-calls/call_env.sh 308
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-san
VERIFY_UNDER="$sanitizer racecheck" verify_ops racecheck-ln-bwd-308 ${RACE_END:-300} layernorm_bwd \
  --dtype bf16 --quick --no-fixtures
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-ln-308 ${END:-560} layernorm --bare-allocations \
  --dtype bf16 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
