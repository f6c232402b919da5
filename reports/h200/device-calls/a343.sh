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
# makes the refill barriers redundant: the sum tree drops layernorm_fwd_bulk's own, and call
# 338's four racing rungs are racechecked again with it). Then the sum copy's cost on the
# one-warp schedule (bench, two rounds), then the sum tree's quick verify of every op in bf16,
# f32 and f16 (until END, default 560), each cut by ladder_ops (call_env.sh), keeping what
# finished. (Until call 343 ran, its tail was an H200's a306.sh or racecheck over f16; with
# device time short, the call went to the tree that would ship instead.)
# Since 85b357b the checkout's kernels are the sum tree, so these edits no longer match (each
# logs 0 times) and the script stands as the record of call 343.
# Carried: .device/ladder.xz (the checkout's build; call 343 carried 24fdb75's,
# whose harness is eaddd79's). Files go to $OUT.
set -u
n=${CALL:-343}
source reports/h200/device-calls/call_env.sh $n
# kernel_edit DIR NAME FILE FROM TO: in the kernel tree DIR, the line FROM of FILE replaced by TO
# (TO empty: the line dropped); logs how many times FROM stood there (1, or the tree is not the
# one its A/B names).
kernel_edit() {
  python3 - $1/$3 "$4" "$5" "$2" >> $L <<'PY'
import sys
path, old, new, name = sys.argv[1:]
lines = open(path).read().split("\n")
print(f"{name}: the line to replace stood {lines.count(old)} time(s) in {path}")
out = [new if line == old else line for line in lines if line != old or new]
open(path, "w").write("\n".join(out))
PY
}
# kernel_copy NAME FILE FROM TO: kernels/ copied to /tmp/kernels-NAME-$n with kernel_edit's change;
# prints the copy's path.
kernel_copy() {
  local dir=/tmp/kernels-$1-$n
  cp -r kernels $dir
  kernel_edit $dir "$@"
  echo $dir
}
# refill: the barrier at BulkRowWalk::refill_previous, the one shared refill site left (as
# layernorm_fwd_bulk's own refill has it since call 340). sum: the barrier in row_group_sum's
# one-warp return, so that every one-warp sum orders memory as the block barrier does for wider
# groups (the cluster exchange's set reuse too), at the cost of an instruction in the hot loop
# of the one-warp schedules, which the bench below weighs.
refill=$(kernel_copy refill bulk_copy.cuh \
  '  __device__ __forceinline__ void refill_previous(int k) const {' \
  '  __device__ __forceinline__ void refill_previous(int k) const {
    if (blockDim.x == 32 && blockDim.y == 1 && !refills_at_row_end()) __syncwarp();')
sum=$(kernel_copy sum norm_common.cuh '  if (blockDim.x <= 32) return;' \
  '  if (blockDim.x <= 32) { __syncwarp(); return; }')
# The sum tree is the general fix as it would ship: layernorm_fwd_bulk's own one-warp barrier
# (call 340's) is redundant under it, so it goes, and its four racing rungs are rechecked below.
kernel_edit $sum sum-ln-bulk layernorm_bulk.cuh '    if constexpr (THREADS == 32) __syncwarp();' ''
# racecheck_refill NAME KERNELS END: refill-warp-32.json under racecheck with those kernels.
racecheck_refill() {
  LADDER_KERNELS_DIR=$2 LADDER_CACHE_DIR=/tmp/lc-$n-$1 VERIFY_UNDER="$sanitizer racecheck" \
    ladder_ops refill-$1-$n $3 run --ladder reports/h200/device-calls/refill-warp-32.json
}
# Each part's deadline counts from the end of the one before. NO_REFILL=1 leaves the refill tree
# out (a call short of device time: the sum tree is the one that would ship).
racecheck_refill before $PWD/kernels $(( SECONDS + 90 ))
[ -n "${NO_REFILL:-}" ] || racecheck_refill refill $refill $(( SECONDS + 70 ))
racecheck_refill sum $sum $(( SECONDS + 70 ))
# Call 338's four racing rungs (layernorm_fwd_bulk<float, 4, 32>, bulk_grid=3), with the sum tree.
$B verify layernorm --dtype f32 --quick --no-fixtures --write-ladder $OUT/ln-f32-quick-$n.json \
  >> $L 2>&1
LADDER_KERNELS_DIR=$sum LADDER_CACHE_DIR=/tmp/lc-$n-sum VERIFY_UNDER="$sanitizer racecheck" \
  ladder_ops racecheck-ln-bulk-sum-$n $(( SECONDS + 35 )) run --ladder $OUT/ln-f32-quick-$n.json \
  layernorm_f32_bulk_grid_3_bulk_items_4_schedule_bulk \
  layernorm_f32_bulk_grid_3_schedule_bulk_strided_1 \
  layernorm_f32_bulk_grid_3_bulk_stages_1_schedule_bulk_write_stats_0 \
  layernorm_f32_bulk_grid_3_bulk_items_4_bulk_stages_1_inplace_y_x_schedule_bulk
# The sum copy's cost: the one-warp schedule (bf16 65536x1024, schedule=warp, a warp a row) with
# the checkout's kernels and with the sum copy, in turn, two rounds.
for round in 1 2; do
  for k in $PWD/kernels $sum; do
    LADDER_KERNELS_DIR=$k LADDER_CACHE_DIR=/tmp/lc-$n-bench timeout 40 $B bench rmsnorm layernorm \
      --dtype bf16 --shape 65536x1024 --variant schedule=warp 2>&1 | grep " ladder" \
      | sed "s|^|round $round ${k##*/}: |" >> $L
  done
done
# The sum tree's quick verify, every op, in each dtype (the tree that would ship).
# No verify runs past END, so a call given less time still ends on its own.
E=${END:-560}
cap() { echo $(( $1 < E ? $1 : E )); }
for dt_end in bf16:$(cap $(( SECONDS + 80 ))) f32:$(cap $(( SECONDS + 170 ))) f16:$E; do
  LADDER_KERNELS_DIR=$sum LADDER_CACHE_DIR=/tmp/lc-$n-sum verify_ops verify-sum-${dt_end%:*}-$n \
    ${dt_end#*:} rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --quick \
    --no-fixtures --dtype ${dt_end%:*}
done
# The device returns at most 8 files: the verify documents go back in one archive (added after
# call 343, which lost them; its log kept their tallies), and the written ladder is dropped.
(cd $OUT && tar czf verify-sum-$n.tgz verify-sum-*-$n.*.gz && rm -f verify-sum-*-$n.*.gz \
  ln-f32-quick-$n.json)
cat $L
echo "total $SECONDS s"
