#!/bin/bash
# Call 343 (and later calls by CALL), on any card first: where the one-warp ordering belongs.
# Call 338 found layernorm_fwd_bulk<float, 4, 32>'s stage refill racing the other lanes' reads
# (a one-warp row_group_sum is shuffles alone, which order no memory), and a barrier at that
# refill ran clean (calls 340-341). BulkRowWalk::refill_previous (the backward bulk kernels) and
# cluster_sum's st.async set reuse rely on the same sum, and no quick rung reaches them with one
# warp. refill-warp-32.json does: the three backward bulk ops, f32 and bf16, one warp a block,
# three blocks, 1, 2 and 4 stages, and at 4 stages in two-block clusters; 83 rows. Under
# racecheck, three kernel trees: the checkout's ("before"); "refill", the barrier at
# refill_previous; "sum", the barrier in row_group_sum's one-warp return (the general fix, which
# would make the refill barriers redundant). Then the sum copy's cost on the one-warp schedule
# (bench, two rounds), the backward quick verify (f32) on "refill" and every op's quick verify
# (bf16) on "sum". Then on an H200 a306.sh's program with what is left of END (default 585:
# under it, call 296's, the bench of record first); on any other card racecheck over the f16
# quick rungs of all six ops until END (default 570). Each verify and racecheck is cut by
# ladder_ops (call_env.sh), keeping what finished. Check the f16 part with sanitizer_cover.py
# against reports/h100/quick-f16-ladder.json.gz.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
n=${CALL:-343}
source reports/h200/device-calls/call_env.sh $n
# kernel_copy NAME FILE FROM TO: kernels/ copied to /tmp/kernels-NAME-$n with the line FROM
# replaced by TO in FILE; prints the copy's path, and logs how many times FROM stood there (1, or
# the copy is the checkout's and its A/B says nothing).
kernel_copy() {
  local dir=/tmp/kernels-$1-$n
  cp -r kernels $dir
  python3 - $dir/$2 "$3" "$4" "$1" >> $L <<'PY'
import sys
path, old, new, name = sys.argv[1:]
text = open(path).read()
lines = text.split("\n")
print(f"{name}: the line to replace stood {lines.count(old)} time(s) in {path}")
open(path, "w").write("\n".join(new if line == old else line for line in lines))
PY
  echo $dir
}
# refill: the barrier at BulkRowWalk::refill_previous, the one shared refill site left (as
# layernorm_fwd_bulk's own refill has it since call 340). sum: the barrier in row_group_sum's
# one-warp return, so that every one-warp sum orders memory as the block barrier does for wider
# groups (the cluster exchange's set reuse too), at the cost of an instruction in the hot loop
# of the one-warp schedules, which bench_ab weighs.
refill=$(kernel_copy refill bulk_copy.cuh \
  '  __device__ __forceinline__ void refill_previous(int k) const {' \
  '  __device__ __forceinline__ void refill_previous(int k) const {
    if (blockDim.x == 32 && blockDim.y == 1 && !refills_at_row_end()) __syncwarp();')
sum=$(kernel_copy sum norm_common.cuh '  if (blockDim.x <= 32) return;' \
  '  if (blockDim.x <= 32) { __syncwarp(); return; }')
# racecheck_refill NAME KERNELS END: refill-warp-32.json under racecheck with those kernels.
racecheck_refill() {
  LADDER_KERNELS_DIR=$2 LADDER_CACHE_DIR=/tmp/lc-$n-$1 VERIFY_UNDER="$sanitizer racecheck" \
    ladder_ops refill-$1-$n $3 run --ladder reports/h200/device-calls/refill-warp-32.json
}
racecheck_refill before $PWD/kernels 90
racecheck_refill refill $refill 160
racecheck_refill sum $sum 230
# The sum copy's cost: the one-warp schedule (bf16 65536x1024, schedule=warp, a warp a row) with
# the checkout's kernels and with the sum copy, in turn, two rounds.
for round in 1 2; do
  for k in $PWD/kernels $sum; do
    LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$n-bench timeout 40 $B bench rmsnorm layernorm \
      --dtype bf16 --shape 65536x1024 --variant schedule=warp 2>&1 | grep " ladder" \
      | sed "s|^|round $round ${k##*/}: |" >> $L
  done
done
LADDER_KERNELS_DIR=$refill LADDER_CACHE_DIR=/tmp/lc-$n-refill verify_ops verify-bwd-refill-$n 330 \
  rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick --no-fixtures --dtype f32
LADDER_KERNELS_DIR=$sum LADDER_CACHE_DIR=/tmp/lc-$n-sum verify_ops verify-sum-$n 420 --quick \
  --no-fixtures --dtype bf16
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
