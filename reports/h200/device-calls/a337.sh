#!/bin/bash
# Call 337 (and later calls by CALL). On an H200: a306.sh's program (with END under 585, call
# 296's: the bench of record and the decode row's peers first). On any other card: memcheck with
# bare allocations over the f16 quick rungs of all six ops until MEM_END (default 400; call 334
# ran the f32 rungs in 360 s), then racecheck over the 28 f32 quick rungs that call 335's cuts
# left unrun (14 backward, 14 forward; call 335 ran the other 158 with no hazard), run from the
# verify's own rungs written as a ladder, until END (default 570). Each part is cut by ladder_ops
# (call_env.sh) if it runs long, keeping what finished. Check with sanitizer_cover.py against
# reports/h100/quick-f16-ladder.json.gz and quick-f32-ladder.json.gz.
# Carried: .device/ladder.xz (the checkout's build: eaddd79's from round 65 on). Files go to $OUT.
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [[ $card == *H200* ]]; then CALL=${CALL:-337} exec bash reports/h200/device-calls/a306.sh; fi
n=${CALL:-337}
source reports/h200/device-calls/call_env.sh $n
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc-$n
VERIFY_UNDER="$sanitizer memcheck" verify_ops memcheck-f16-$n ${MEM_END:-400} \
  rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd \
  --dtype f16 --quick --no-fixtures --bare-allocations
$B verify rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --dtype f32 \
  --quick --no-fixtures --write-ladder $OUT/f32-quick-$n.json >> $L 2>&1
left=()
for r in schedule_phase schedule_phase_strided_odd_weight_gemma \
    phase_grid_8_schedule_phase_weight_none phase_items_1_schedule_phase_strided_1 \
    pdl_0_phase_items_2_schedule_phase phase_grid_8_phase_prefetch_0_schedule_phase \
    phase_prefetch_0_schedule_phase_strided_1 schedule_bulk schedule_bulk_strided_1_weight_gemma \
    schedule_bulk_weight_none; do left+=(rmsnorm_bwd_f32_$r); done
for r in bulk_cluster_2_bulk_grid_3_schedule_bulk_strided_1 \
    bulk_cluster_2_cluster_exchange_async_schedule_bulk_stats_recompute \
    bulk_cluster_2_bulk_grid_3_cluster_exchange_barrier_schedule_bulk \
    bulk_cluster_2_reduce_grid_schedule_bulk; do left+=(layernorm_bwd_f32_$r); done
for r in schedule_row_strided_odd_weight_gemma schedule_row_weight_none_write_rstd_0 \
    inplace_h_r_schedule_row_stage_weight_0 convention_B_inplace_both_row_items_4_schedule_row \
    inplace_h_r_row_grid_3_schedule_row_weight_gemma schedule_loop \
    convention_B_inplace_both_schedule_loop inplace_h_r_schedule_loop_strided_odd_weight_gemma \
    loop_grid_3_loop_threads_1024_schedule_loop_strided_1 \
    inplace_y_x_loop_threads_128_schedule_loop_weight_none_write_rstd_0; do
  left+=(add_rmsnorm_f32_$r); done
for r in affine_0 affine_gamma affine_beta_strided_odd inplace_y_x; do
  left+=(layernorm_f32_$r); done
VERIFY_UNDER="$sanitizer racecheck" ladder_ops racecheck-f32-left-$n ${END:-570} \
  run --ladder $OUT/f32-quick-$n.json "${left[@]}"
cat $L
echo "total $SECONDS s"
