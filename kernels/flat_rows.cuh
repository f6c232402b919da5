// RMSNorm forward and backward over packed rows off the 16-byte grid, read as one flat array of
// segments of S rows (schedule=flat; the layout and why: flat_common.cuh). Math, arguments,
// results and aliasing as rmsnorm.cuh's rmsnorm_fwd and rmsnorm_bwd.cuh's rmsnorm_bwd.
#pragma once
#include "backward_common.cuh"
#include "flat_common.cuh"

namespace ladder {
namespace norm {

// The launch bound: a block is P + 32 threads, P up to 512.
constexpr int kFlatMaxThreads = 544;

// The row path of the forward: the segment's rows one at a time, element by element (a segment
// of fewer than S rows, or tensors off the 16-byte grid).
template <typename T, int M>
__device__ __forceinline__ void rms_fwd_flat_rows(T* y, const T* x, const T* w, float* rstd,
                                                  long long first, int count, int d, float eps,
                                                  float w_offset, ReduceScratch<M>& scratch,
                                                  int& parity) {
  for (int r = 0; r < count; ++r) {
    const long long row = first + r;
    const T* xr = x + row * d;
    T* yr = y + row * d;
    float sum[1] = {0.f};
    for (int col = threadIdx.x; col < d; col += blockDim.x) {
      const float v = Elem<T>::to_float(xr[col]);
      sum[0] = fmaf(v, v, sum[0]);
    }
    row_group_sum<true>(sum, scratch, parity);
    const float inv = inv_rms_of(sum[0], d, eps, rstd, row, true);
    for (int col = threadIdx.x; col < d; col += blockDim.x)
      yr[col] = Elem<T>::from_float(Elem<T>::to_float(xr[col]) * inv * flat_weight(w, w_offset, col, d));
  }
}

// The row path of the backward: the segment's rows through rms_bwd_row_elementwise, each
// element's dw term added to part[col] (a column only this thread touches until write_partial).
template <typename T, int M>
__device__ __forceinline__ void rms_bwd_flat_rows(T* dx, float* part, const T* x, const T* w,
                                                  const T* dy, long long first, int count, int d,
                                                  float eps, float w_offset,
                                                  ReduceScratch<M>& scratch, int& parity) {
  for (long long row = first; row < first + count; ++row)
    rms_bwd_row_elementwise<T, false>(dx + row * d, nullptr, part, x + row * d, nullptr, w,
                                      dy + row * d, nullptr, d, eps, w_offset, false, scratch,
                                      parity);
}

// A main thread's weight window, or an edge lane's weights of its VEC elements in win[0..VEC).
template <typename T, int R>
__device__ __forceinline__ void load_flat_weights(const FlatRoles<T, R>& roles, const T* w,
                                                  float w_offset, int d,
                                                  float (&win)[FlatShape<T, R>::kWindow]) {
  using F = FlatShape<T, R>;
  if (roles.main) {
    load_flat_window<T, R>(w, w_offset, roles.t, d, win);
    return;
  }
#pragma unroll
  for (int m = 0; m < F::kWindow; ++m)
    win[m] = m < F::kVec && roles.edge
                 ? flat_weight(w, w_offset, FlatPlace<T, R>(roles.edge_t, roles.edge_k, m, d).col, d)
                 : 0.f;
}

// A thread's chunks of a segment from global memory: a main thread's k < S (each one 16-byte
// access), an edge lane's one in c[0].
template <typename T, int R>
__device__ __forceinline__ void load_flat_chunks(const FlatRoles<T, R>& roles, const T* seg,
                                                 uint4 (&c)[FlatShape<T, R>::kRows]) {
  if (roles.main) {
#pragma unroll
    for (int k = 0; k < FlatShape<T, R>::kRows; ++k)
      c[k] = *reinterpret_cast<const uint4*>(seg + flat_offset<T, R>(roles.t, k, roles.span));
  } else if (roles.edge) {
    c[0] = *reinterpret_cast<const uint4*>(seg + flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span));
  }
}
// Chunk k of a thread (an edge lane's at k = 0) in a stage holding a segment.
template <typename T, int R>
__device__ __forceinline__ uint4 flat_stage_chunk(const FlatRoles<T, R>& roles, const uint4* stage,
                                                  int k) {
  using F = FlatShape<T, R>;
  return roles.main ? stage[flat_offset<T, R>(roles.t, k, roles.span) / F::kVec]
                    : stage[flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span) / F::kVec];
}

// Adds v to the sum of the row element j of the edge lane's chunk lies in (a row known at run
// time: selected, not indexed).
template <typename T, int R, int N>
__device__ __forceinline__ void add_to_edge_row(const FlatRoles<T, R>& roles, int j, int d,
                                                float (&sums)[N], int first, float v) {
  const int row = FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row;
#pragma unroll
  for (int m = 0; m < FlatShape<T, R>::kRows; ++m) sums[first + m] += row == m ? v : 0.f;
}

// The helpers below take a thread's chunks as `chunk(k)`: a main thread's chunk k < S, an edge
// lane's one chunk at k = 0; from registers (the register build) or read from the stage at each
// use (the TMA build: read where used, its builds stay within their registers).

// The forward's row sums of squares from a thread's chunks.
template <typename T, int R, typename Chunks>
__device__ __forceinline__ void flat_square_sums(const FlatRoles<T, R>& roles, const Chunks& c, int d,
                                                 float (&sums)[FlatShape<T, R>::kRows]) {
  using F = FlatShape<T, R>;
  if (roles.main) {
#pragma unroll
    for (int k = 0; k < F::kRows; ++k) {
      float v[F::kVec];
      Elem<T>::unpack(c(k), v);
#pragma unroll
      for (int j = 0; j < F::kVec; ++j) sums[k] = fmaf(v[j], v[j], sums[k]);
    }
  } else if (roles.edge) {
    float v[F::kVec];
    Elem<T>::unpack(c(0), v);
#pragma unroll
    for (int j = 0; j < F::kVec; ++j) add_to_edge_row(roles, j, d, sums, 0, v[j] * v[j]);
  }
}

// The forward's outputs of a thread's chunks, y = x * inv_rms(row) * weight, stored whole at the
// segment `seg` of y.
template <typename T, int R, typename Chunks>
__device__ __forceinline__ void flat_store_scaled(const FlatRoles<T, R>& roles, const Chunks& c,
                                                  const float (&inv)[FlatShape<T, R>::kRows],
                                                  const float (&win)[FlatShape<T, R>::kWindow],
                                                  T* seg, int d) {
  using F = FlatShape<T, R>;
  if (roles.main) {
#pragma unroll
    for (int k = 0; k < F::kRows; ++k) {
      float v[F::kVec];
      Elem<T>::unpack(c(k), v);
#pragma unroll
      for (int j = 0; j < F::kVec; ++j) v[j] = v[j] * inv[k] * win[j - R * k + F::kLow];
      // One 16-byte store (store_16_bytes): written plainly, the compiler split it in four.
      store_16_bytes(seg + flat_offset<T, R>(roles.t, k, roles.span), Elem<T>::pack(v));
    }
  } else if (roles.edge) {
    float v[F::kVec];
    Elem<T>::unpack(c(0), v);
#pragma unroll
    for (int j = 0; j < F::kVec; ++j)
      v[j] = v[j] * flat_pick(inv, FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row) * win[j];
    store_16_bytes(seg + flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span),
                   Elem<T>::pack(v));
  }
}

// The backward's row sums from a thread's chunks of x and dy: sums[k] = sum(x^2) of row k,
// sums[S + k] = sum(g * x) with g = dy * weight (a main thread's weights on its window slots, an
// edge lane's in edge_w).
template <typename T, int R, typename XChunks, typename GChunks>
__device__ __forceinline__ void flat_grad_sums(const FlatRoles<T, R>& roles, const XChunks& xc,
                                               const GChunks& gc,
                                               const FlatBackwardSlots<T, R>& slots,
                                               const float* edge_w, int d,
                                               float (&sums)[2 * FlatShape<T, R>::kRows]) {
  using F = FlatShape<T, R>;
  constexpr int S = F::kRows;
  if (roles.main) {
#pragma unroll
    for (int k = 0; k < S; ++k) {
      float xv[F::kVec], gv[F::kVec];
      Elem<T>::unpack(xc(k), xv);
      Elem<T>::unpack(gc(k), gv);
#pragma unroll
      for (int j = 0; j < F::kVec; ++j) {
        sums[k] = fmaf(xv[j], xv[j], sums[k]);
        sums[S + k] = fmaf(gv[j] * slots.weight(j - R * k + F::kLow), xv[j], sums[S + k]);
      }
    }
  } else if (roles.edge) {
    float xv[F::kVec], gv[F::kVec];
    Elem<T>::unpack(xc(0), xv);
    Elem<T>::unpack(gc(0), gv);
#pragma unroll
    for (int j = 0; j < F::kVec; ++j) {
      add_to_edge_row(roles, j, d, sums, 0, xv[j] * xv[j]);
      add_to_edge_row(roles, j, d, sums, S, gv[j] * edge_w[j] * xv[j]);
    }
  }
}

// The backward's dx of a thread's chunks, stored whole at the segment `seg` of dx, and their dw
// terms dy * x * inv_rms(row) added to the thread's window slots (an edge lane's to edge_sums).
// RELOAD: dy read again from `dy_seg` rather than taken from gc.
template <typename T, int R, bool RELOAD = false, typename XChunks, typename GChunks>
__device__ __forceinline__ void flat_grad_store(const FlatRoles<T, R>& roles, const XChunks& xc,
                                                const GChunks& gc,
                                                const T* dy_seg,
                                                const float (&inv)[FlatShape<T, R>::kRows],
                                                const float (&coef)[FlatShape<T, R>::kRows],
                                                const FlatBackwardSlots<T, R>& slots,
                                                const float* edge_w, float* edge_sums, T* seg,
                                                int d) {
  using F = FlatShape<T, R>;
  if (roles.main) {
#pragma unroll
    for (int k = 0; k < F::kRows; ++k) {
      const long long f = flat_offset<T, R>(roles.t, k, roles.span);
      float xv[F::kVec], gv[F::kVec];
      Elem<T>::unpack(xc(k), xv);
      Elem<T>::unpack(RELOAD ? *reinterpret_cast<const uint4*>(dy_seg + f) : gc(k), gv);
#pragma unroll
      for (int j = 0; j < F::kVec; ++j) {
        slots.add(j - R * k + F::kLow, gv[j] * xv[j] * inv[k]);
        gv[j] = inv[k] * (gv[j] * slots.weight(j - R * k + F::kLow)) - xv[j] * coef[k];
      }
      *reinterpret_cast<uint4*>(seg + f) = Elem<T>::pack(gv);
    }
  } else if (roles.edge) {
    float xv[F::kVec], gv[F::kVec];
    Elem<T>::unpack(xc(0), xv);
    Elem<T>::unpack(gc(0), gv);
#pragma unroll
    for (int j = 0; j < F::kVec; ++j) {
      const int row = FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row;
      const float inv_row = flat_pick(inv, row);
      edge_sums[j] += gv[j] * xv[j] * inv_row;
      gv[j] = inv_row * (gv[j] * edge_w[j]) - xv[j] * flat_pick(coef, row);
    }
    *reinterpret_cast<uint4*>(seg + flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span)) =
        Elem<T>::pack(gv);
  }
}

// The backward's per-row scales from the joined sums: inv_rms and coef = inv_rms^3 * mean(g * x).
template <int S>
__device__ __forceinline__ void flat_grad_scales(const float (&sums)[2 * S], int d, float eps,
                                                 float (&inv)[S], float (&coef)[S]) {
#pragma unroll
  for (int k = 0; k < S; ++k) {
    inv[k] = rsqrtf(mean_of(sums[k], d) + eps);
    coef[k] = inv[k] * inv[k] * inv[k] * mean_of(sums[S + k], d);
  }
}

}  // namespace norm

// RMSNorm forward over segments of S packed rows: arguments, results and aliasing as rmsnorm_fwd
// (y may be x: a block reads its whole segment before the barrier that precedes its stores).
// Launch: R = d mod VEC (0 < R < VEC), every stride d, block (P + 32, 1, 1) with P = 32 *
// ceil(span / 32) and span = d / VEC >= EXTRA, and any grid (blocks walk segments blockIdx.x,
// + gridDim.x, ...; best about as many as are resident). A launch that breaks the geometry traps.
// PREFETCH: the block's next segment is asked of the L2 while this one is reduced and stored.
template <typename T, int R, bool PREFETCH = true>
__global__ void __launch_bounds__(norm::kFlatMaxThreads)
    rmsnorm_fwd_flat(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                     int y_stride, float eps, float w_offset) {
  using F = norm::FlatShape<T, R>;
  constexpr int S = F::kRows;
  const int strides[2] = {x_stride, y_stride};
  const norm::FlatRoles<T, R> roles(d, strides, 2);
  __shared__ norm::ReduceScratch<S> scratch;
  float win[F::kWindow];
  norm::load_flat_weights(roles, w, w_offset, d, win);
  const bool vec = norm::flat_aligned(x) && norm::flat_aligned(y);
  const norm::FlatSegments segs(rows, d, S);
  int parity = 0;
  for (long long seg = blockIdx.x; seg < segs.count; seg += gridDim.x) {
    if (!vec || !segs.whole(seg)) {
      norm::rms_fwd_flat_rows(y, x, w, rstd, segs.first_row(seg), segs.rows_in(seg), d, eps,
                              w_offset, scratch, parity);
      continue;
    }
    uint4 c[S];
    float sums[S];
#pragma unroll
    for (int k = 0; k < S; ++k) sums[k] = 0.f;
    norm::load_flat_chunks(roles, x + segs.begin(seg), c);
    auto chunk = [&](int k) { return c[k]; };
    norm::flat_square_sums(roles, chunk, d, sums);
    if (PREFETCH && segs.whole(seg + gridDim.x))
      norm::prefetch_flat_chunks<T, R>(x + segs.begin(seg + gridDim.x), roles);
    norm::row_group_sum<true>(sums, scratch, parity);
    float inv[S];
#pragma unroll
    for (int k = 0; k < S; ++k)
      inv[k] = norm::inv_rms_of(sums[k], d, eps, rstd, segs.first_row(seg) + k, true);
    norm::flat_store_scaled(roles, chunk, inv, win, y + segs.begin(seg), d);
  }
}

// RMSNorm backward over segments of S packed rows: arguments, results and aliasing as
// rmsnorm_bwd (dx may be dy or x: a block reads its segment before the barrier that precedes
// its stores). A main thread's weight window and weight-gradient sums live in its slots of
// dynamic shared memory (norm::FlatBackwardSlots; in registers beside the two tensors' chunks
// they spilled: ptxas, sm_90), an edge lane's in static shared memory; the block's sums go out
// once as its partial row dw_partial[blockIdx.x][0..d) (column_sum.cuh adds the rows in a fixed
// order). Launch as rmsnorm_fwd_flat, with FlatBackwardSlots::bytes(d, P) of dynamic shared
// memory; a launch with less traps. MAX_THREADS, MIN_BLOCKS: the launch bound (P + 32 <=
// MAX_THREADS). RELOAD: dy is read again for the second pass (from L1 or L2) instead of held in
// registers.
template <typename T, int R, int MAX_THREADS = norm::kFlatMaxThreads, int MIN_BLOCKS = 1,
          bool RELOAD = false, bool PREFETCH = true>
__global__ void __launch_bounds__(MAX_THREADS, MIN_BLOCKS)
    rmsnorm_bwd_flat(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows,
                     int d, int x_stride, int dy_stride, int dx_stride, float eps,
                     float w_offset) {
  using F = norm::FlatShape<T, R>;
  constexpr int S = F::kRows;
  norm::allow_dependent_launch();
  const int strides[3] = {x_stride, dy_stride, dx_stride};
  const norm::FlatRoles<T, R> roles(d, strides, 3);
  __shared__ norm::ReduceScratch<2 * S> scratch;
  __shared__ norm::FlatEdgeSlots<T, R> edge;
  extern __shared__ float flat_memory[];
  const norm::FlatBackwardSlots<T, R> slots(flat_memory, d, roles.main_threads);
  slots.begin(w, w_offset, roles, d);
  edge.begin(w, w_offset, roles, d);
  const bool vec = norm::flat_aligned(x) && norm::flat_aligned(dy) && norm::flat_aligned(dx);
  const norm::FlatSegments segs(rows, d, S);
  int parity = 0;
  for (long long seg = blockIdx.x; seg < segs.count; seg += gridDim.x) {
    if (!vec || !segs.whole(seg)) {
      norm::rms_bwd_flat_rows(dx, slots.part, x, w, dy, segs.first_row(seg), segs.rows_in(seg), d,
                              eps, w_offset, scratch, parity);
      continue;
    }
    const long long begin = segs.begin(seg);
    uint4 xc[S], gc[S];
    float sums[2 * S];  // sum(x^2) of row k, then sum(g * x), g = dy * weight
#pragma unroll
    for (int k = 0; k < 2 * S; ++k) sums[k] = 0.f;
    norm::load_flat_chunks(roles, x + begin, xc);
    norm::load_flat_chunks(roles, dy + begin, gc);
    auto x_chunk = [&](int k) { return xc[k]; };
    auto dy_chunk = [&](int k) { return gc[k]; };
    norm::flat_grad_sums(roles, x_chunk, dy_chunk, slots, edge.weights(roles), d, sums);
    if (PREFETCH && segs.whole(seg + gridDim.x)) {
      norm::prefetch_flat_chunks<T, R>(x + segs.begin(seg + gridDim.x), roles);
      norm::prefetch_flat_chunks<T, R>(dy + segs.begin(seg + gridDim.x), roles);
    }
    norm::row_group_sum<true>(sums, scratch, parity);
    float inv[S], coef[S];
    norm::flat_grad_scales(sums, d, eps, inv, coef);
    norm::flat_grad_store<T, R, RELOAD>(roles, x_chunk, dy_chunk, dy + begin, inv, coef, slots,
                                        edge.weights(roles), edge.sums(roles), dx + begin, d);
  }
  if (dw_partial != nullptr) slots.write_partial(dw_partial, roles, d, edge.dw);
}

}  // namespace ladder
