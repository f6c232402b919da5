#!/bin/bash
# Call 343 (and later calls by CALL), on any card first: racecheck A/B of a warp barrier before
# BulkRowWalk::refill_previous's refill (bulk_copy.cuh), over refill-warp-32.json (the three
# backward bulk ops, f32 and bf16, one warp a block, three blocks, 1, 2 and 4 stages, and at 4
# stages in two-block clusters, whose st.async sum exchange asks the same question; 83 rows).
# Why: call 338 found layernorm_fwd_bulk<float, 4, 32>'s refill racing the other lanes' reads of
# the stage (a one-warp row sum is shuffles alone, which order no memory) and its fix ran clean
# (calls 340-341); refill_previous follows the same one-warp sum, but no quick rung reaches it
# with one warp. "before" is the checkout's kernels, "after" a copy with the barrier added by
# the sed below (checked to have matched once); then the three backward ops' quick verify, f32
# and bf16, on "after", until second 240. Then on an H200 a306.sh's program with what is left
# of END (default 585: under it, call 296's, the bench of record first); on any other card
# racecheck over the f16 quick rungs of all six ops until END (default 570). Each part is cut by
# ladder_ops (call_env.sh), keeping what finished. Check the f16 part with sanitizer_cover.py
# against reports/h100/quick-f16-ladder.json.gz.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
n=${CALL:-343}
source reports/h200/device-calls/call_env.sh $n
A=/tmp/kernels-after-$n
cp -r kernels $A
at='^  __device__ __forceinline__ void refill_previous(int k) const {$'
barrier='    if (blockDim.x == 32 \&\& blockDim.y == 1 \&\& !refills_at_row_end()) __syncwarp();'
sed -i "s/$at/&\n$barrier/" $A/bulk_copy.cuh
matched=$(grep -c "blockDim.x == 32 && blockDim.y == 1 && !refills_at_row_end()) __syncwarp" \
  $A/bulk_copy.cuh)
echo "after: the barrier added $matched time(s) ($A/bulk_copy.cuh)" >> $L
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n-before
VERIFY_UNDER="$sanitizer racecheck" ladder_ops refill-before-$n 100 \
  run --ladder reports/h200/device-calls/refill-warp-32.json
if [[ $matched == 1 ]]; then
  export LADDER_KERNELS_DIR=$A LADDER_CACHE_DIR=/tmp/lc-$n-after
  VERIFY_UNDER="$sanitizer racecheck" ladder_ops refill-after-$n 180 \
    run --ladder reports/h200/device-calls/refill-warp-32.json
  verify_ops verify-bwd-after-$n 240 rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick \
    --no-fixtures --dtype f32
  verify_ops verify-bwd-bf16-after-$n 300 rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick \
    --no-fixtures --dtype bf16
fi
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
if [[ $card == *H200* ]]; then
  cp $L $OUT/log-$n-ab.txt  # a306.sh's call_env.sh begins $L afresh
  cat $L
  CALL=$n END=$(( ${END:-585} - SECONDS )) exec bash reports/h200/device-calls/a306.sh
fi
VERIFY_UNDER="$sanitizer racecheck" verify_ops racecheck-f16-$n ${END:-570} \
  rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd rmsnorm add_rmsnorm layernorm \
  --dtype f16 --quick --no-fixtures
cat $L
echo "total $SECONDS s"
