#!/bin/bash
# Call 326 (and later calls by CALL). On an H200: a306.sh's program (the bench of record first
# among what an H200 still owes). On any other card: the two compute-sanitizer tools no call had
# run yet, over the bf16 quick rungs of all six ops (299 on the 696b585 build): synccheck (a
# barrier some threads of a block or cluster miss, or one in divergent code) until SYNC_END
# (default 250 s into the call), then initcheck (a kernel reading device memory that nothing
# wrote) until INIT_END (default 570). Each is cut by ladder_ops (call_env.sh) if it runs long,
# keeping what finished. Carried: .device/ladder.xz (the checkout's build). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-326} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-326}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
ops=(rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd)
VERIFY_UNDER="$sanitizer synccheck" verify_ops synccheck-bf16-$n ${SYNC_END:-250} \
  "${ops[@]}" --dtype bf16 --quick --no-fixtures
VERIFY_UNDER="$sanitizer initcheck" verify_ops initcheck-bf16-$n ${INIT_END:-570} \
  "${ops[@]}" --dtype bf16 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
