#!/bin/bash
# Call 310 (and later calls by CALL). On an H200: call 306's program (the bench of record, the
# decode row's peers and every verify rung, in the order the time left allows). On any other card,
# compute-sanitizer over what call 308 left unproven: racecheck over the 10 bf16 quick rungs of
# layernorm_bwd that its cut left in flight (the schedule=bulk and reduce_grid builds and
# eps_large), run from the verify's own rungs written as a ladder, until RACE_END (default 400);
# then memcheck with exact allocations over every bf16 quick rung of layernorm_bwd (42) until END
# (default 570). A cut goes to the runner (ladder_ops), so it keeps what finished and the
# sanitizer still prints its summary.
# Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
n=${CALL:-310}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=$n exec bash reports/h200/device-calls/a306.sh; fi
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-san
racecheck_ln_bwd_left $n ${RACE_END:-400}
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-ln-bwd-$n ${END:-570} layernorm_bwd \
  --dtype bf16 --quick --no-fixtures --bare-allocations
cat $L
echo "total $SECONDS s"
