// The flat kernels with their segments copied into shared memory by the Tensor Memory
// Accelerator (schedule=flat, flat_bulk=1; sm_90): rmsnorm_fwd_flat_bulk and
// rmsnorm_bwd_flat_bulk. Layout, math, arguments, results and aliasing as flat_rows.cuh's.
//
// Why: a segment of S packed rows is one aligned run of bytes, so one cp.async.bulk brings it
// whole. In flat_rows.cuh each thread holds its chunks of a segment in registers from load to
// store, which at two blocks an SM left the memory system waiting (Nsight Compute, call 200, bf16
// 16384x2049: long-scoreboard stalls three times the row kernel's, 27% of the warps active;
// the backward spilled). Here the stages ahead are in flight at no register cost, and a thread
// reads its chunks from the stage in each pass.
#pragma once
#include "bulk_copy.cuh"
#include "flat_rows.cuh"

namespace ladder {

// Dynamic shared memory: STAGES * S * d * sizeof(T) bytes (the launch's size picks STAGES, at
// most kMaxBulkStages). Launch otherwise as rmsnorm_fwd_flat. Tensors off the 16-byte grid take
// the row path throughout; a segment of fewer than S rows (the last) always does.
template <typename T, int R>
__global__ void __launch_bounds__(norm::kFlatMaxThreads)
    rmsnorm_fwd_flat_bulk(T* y, const T* x, const T* w, float* rstd, int rows, int d,
                          int x_stride, int y_stride, float eps, float w_offset) {
  using F = norm::FlatShape<T, R>;
  constexpr int S = F::kRows;
  const int strides[2] = {x_stride, y_stride};
  const norm::FlatRoles<T, R> roles(d, strides, 2);
  __shared__ norm::ReduceScratch<S> scratch;
  __shared__ alignas(8) unsigned long long landed[norm::kMaxBulkStages];
  extern __shared__ uint4 flat_stages[];
  float win[F::kWindow];
  norm::load_flat_weights(roles, w, w_offset, d, win);
  const norm::FlatSegments segs(rows, d, S);
  const unsigned seg_chunks = static_cast<unsigned>(S) * d / F::kVec;
  const int stages = norm::bulk_stages_in_launch(seg_chunks * norm::kChunkBytes, 1);
  const bool bulk = LADDER_BULK_COPY && stages >= 1 && norm::flat_aligned(x) && norm::flat_aligned(y);
  int parity = 0;
  const long long whole = bulk ? rows / S : 0;  // segments the stages take
#if LADDER_BULK_COPY
  if (bulk) {
    auto copy = [&](int s, long long seg, unsigned long long* bar) {
      norm::bulk_copy(flat_stages + static_cast<long long>(s) * seg_chunks, x + segs.begin(seg),
                      seg_chunks * norm::kChunkBytes, bar);
    };
    const auto walk = norm::bulk_row_walk(whole, stages, seg_chunks * norm::kChunkBytes, landed, copy,
                                          blockIdx.x, gridDim.x);
    walk.for_each_row([&](long long seg, int k) {
      walk.wait(k);
      const uint4* stage = flat_stages + static_cast<long long>(k % stages) * seg_chunks;
      auto chunk = [&](int kk) { return norm::flat_stage_chunk(roles, stage, kk); };
      float sums[S];
#pragma unroll
      for (int kk = 0; kk < S; ++kk) sums[kk] = 0.f;
      norm::flat_square_sums(roles, chunk, d, sums);
      norm::row_group_sum<true>(sums, scratch, parity);
      walk.refill_previous(k);
      float inv[S];
#pragma unroll
      for (int kk = 0; kk < S; ++kk)
        inv[kk] = norm::inv_rms_of(sums[kk], d, eps, rstd, segs.first_row(seg) + kk, true);
      norm::flat_store_scaled(roles, chunk, inv, win, y + segs.begin(seg), d);
    });
  }
#endif
  // The segments the stages did not take: all of them off the grid, else the last if short.
  for (long long seg = whole + blockIdx.x; seg < segs.count; seg += gridDim.x)
    norm::rms_fwd_flat_rows(y, x, w, rstd, segs.first_row(seg), segs.rows_in(seg), d, eps,
                            w_offset, scratch, parity);
}

// Dynamic shared memory: FlatBackwardSlots::bytes(d, P), then STAGES stages of 2 * S * d *
// sizeof(T) bytes (x's segment, then dy's; the launch's size picks STAGES). Launch otherwise as
// rmsnorm_bwd_flat; the row path as rmsnorm_fwd_flat_bulk's.
template <typename T, int R>
__global__ void __launch_bounds__(norm::kFlatMaxThreads)
    rmsnorm_bwd_flat_bulk(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows,
                          int d, int x_stride, int dy_stride, int dx_stride, float eps,
                          float w_offset) {
  using F = norm::FlatShape<T, R>;
  constexpr int S = F::kRows;
  norm::allow_dependent_launch();
  const int strides[3] = {x_stride, dy_stride, dx_stride};
  const norm::FlatRoles<T, R> roles(d, strides, 3);
  __shared__ norm::ReduceScratch<2 * S> scratch;
  __shared__ alignas(8) unsigned long long landed[norm::kMaxBulkStages];
  __shared__ norm::FlatEdgeSlots<T, R> edge;
  extern __shared__ float flat_memory[];
  const norm::FlatBackwardSlots<T, R> slots(flat_memory, d, roles.main_threads);
  slots.begin(w, w_offset, roles, d);
  edge.begin(w, w_offset, roles, d);
  const norm::FlatSegments segs(rows, d, S);
  const unsigned seg_chunks = static_cast<unsigned>(S) * d / F::kVec;
  const unsigned slot_bytes = norm::FlatBackwardSlots<T, R>::bytes(d, roles.main_threads);
  uint4* stages_base = reinterpret_cast<uint4*>(flat_memory) + slot_bytes / norm::kChunkBytes;
  const unsigned stage_bytes = 2u * seg_chunks * norm::kChunkBytes;
  int stages = static_cast<int>((norm::dynamic_shared_bytes() - slot_bytes) / stage_bytes);
  stages = stages < norm::kMaxBulkStages ? stages : norm::kMaxBulkStages;
  const bool bulk = LADDER_BULK_COPY && stages >= 1 && norm::flat_aligned(x) &&
                    norm::flat_aligned(dy) && norm::flat_aligned(dx);
  int parity = 0;
  const long long whole = bulk ? rows / S : 0;
#if LADDER_BULK_COPY
  if (bulk) {
    auto copy = [&](int s, long long seg, unsigned long long* bar) {
      uint4* dst = stages_base + static_cast<long long>(s) * 2 * seg_chunks;
      norm::bulk_copy(dst, x + segs.begin(seg), seg_chunks * norm::kChunkBytes, bar);
      norm::bulk_copy(dst + seg_chunks, dy + segs.begin(seg), seg_chunks * norm::kChunkBytes, bar);
    };
    const auto walk = norm::bulk_row_walk(whole, stages, stage_bytes, landed, copy, blockIdx.x, gridDim.x);
    walk.for_each_row([&](long long seg, int k) {
      walk.wait(k);
      const uint4* xs = stages_base + static_cast<long long>(k % stages) * 2 * seg_chunks;
      const uint4* gs = xs + seg_chunks;
      auto x_chunk = [&](int kk) { return norm::flat_stage_chunk(roles, xs, kk); };
      auto dy_chunk = [&](int kk) { return norm::flat_stage_chunk(roles, gs, kk); };
      float sums[2 * S];  // sum(x^2) of row k, then sum(g * x), g = dy * weight
#pragma unroll
      for (int kk = 0; kk < 2 * S; ++kk) sums[kk] = 0.f;
      norm::flat_grad_sums(roles, x_chunk, dy_chunk, slots, edge.weights(roles), d, sums);
      norm::row_group_sum<true>(sums, scratch, parity);
      walk.refill_previous(k);
      float inv[S], coef[S];
      norm::flat_grad_scales(sums, d, eps, inv, coef);
      norm::flat_grad_store(roles, x_chunk, dy_chunk, dy + segs.begin(seg), inv, coef, slots,
                            edge.weights(roles), edge.sums(roles), dx + segs.begin(seg), d);
    });
  }
#endif
  for (long long seg = whole + blockIdx.x; seg < segs.count; seg += gridDim.x)
    norm::rms_bwd_flat_rows(dx, slots.part, x, w, dy, segs.first_row(seg), segs.rows_in(seg), d,
                            eps, w_offset, scratch, parity);
  if (dw_partial != nullptr) slots.write_partial(dw_partial, roles, d, edge.dw);
}

}  // namespace ladder
