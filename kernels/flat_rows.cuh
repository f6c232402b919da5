// RMSNorm forward and backward over packed rows off the 16-byte grid, read as one flat array of
// segments of S rows (schedule=flat; the layout and why: flat_common.cuh). Math, arguments,
// results and aliasing as rmsnorm.cuh's rmsnorm_fwd and rmsnorm_bwd.cuh's rmsnorm_bwd.
#pragma once
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

// The row path of the backward; each element's dw term goes to part[col], a column only this
// thread touches until write_partial.
template <typename T, int M>
__device__ __forceinline__ void rms_bwd_flat_rows(T* dx, float* part, const T* x, const T* w,
                                                  const T* dy, long long first, int count, int d,
                                                  float eps, float w_offset,
                                                  ReduceScratch<M>& scratch, int& parity) {
  for (int r = 0; r < count; ++r) {
    const long long row = first + r;
    const T* xr = x + row * d;
    const T* dyr = dy + row * d;
    T* dxr = dx + row * d;
    float sums[2] = {0.f, 0.f};
    for (int col = threadIdx.x; col < d; col += blockDim.x) {
      const float xv = Elem<T>::to_float(xr[col]);
      sums[0] = fmaf(xv, xv, sums[0]);
      sums[1] = fmaf(Elem<T>::to_float(dyr[col]) * flat_weight(w, w_offset, col, d), xv, sums[1]);
    }
    row_group_sum<true>(sums, scratch, parity);
    const float inv = rsqrtf(mean_of(sums[0], d) + eps);
    const float coef = inv * inv * inv * mean_of(sums[1], d);
    for (int col = threadIdx.x; col < d; col += blockDim.x) {
      const float xv = Elem<T>::to_float(xr[col]);
      const float dyv = Elem<T>::to_float(dyr[col]);
      part[col] += dyv * xv * inv;
      dxr[col] = Elem<T>::from_float(inv * (dyv * flat_weight(w, w_offset, col, d)) - xv * coef);
    }
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
  using E = norm::Elem<T>;
  constexpr int kVec = F::kVec, S = F::kRows;
  const int strides[2] = {x_stride, y_stride};
  const norm::FlatRoles<T, R> roles(d, strides, 2);
  __shared__ norm::ReduceScratch<S> scratch;
  const int t = roles.t;
  // A main thread's weight window; an edge lane's weights of its VEC elements in win[0..VEC).
  float win[F::kWindow];
  if (roles.main) {
    norm::load_flat_window<T, R>(w, w_offset, t, d, win);
  } else {
#pragma unroll
    for (int m = 0; m < F::kWindow; ++m)
      win[m] = m < kVec && roles.edge
                   ? norm::flat_weight(w, w_offset, norm::FlatPlace<T, R>(roles.edge_t, roles.edge_k, m, d).col, d)
                   : 0.f;
  }
  const bool vec = norm::flat_aligned(x) && norm::flat_aligned(y);
  const norm::FlatSegments segs(rows, d, S);
  int parity = 0;
  for (long long seg = blockIdx.x; seg < segs.count; seg += gridDim.x) {
    if (!vec || !segs.whole(seg)) {
      norm::rms_fwd_flat_rows(y, x, w, rstd, segs.first_row(seg), segs.rows_in(seg), d, eps,
                              w_offset, scratch, parity);
      continue;
    }
    const T* xs = x + segs.begin(seg);
    T* ys = y + segs.begin(seg);
    const long long edge_at = norm::flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span);
    uint4 c[S];
    float sums[S];
#pragma unroll
    for (int k = 0; k < S; ++k) sums[k] = 0.f;
    if (roles.main) {
#pragma unroll
      for (int k = 0; k < S; ++k)
        c[k] = *reinterpret_cast<const uint4*>(xs + norm::flat_offset<T, R>(t, k, roles.span));
#pragma unroll
      for (int k = 0; k < S; ++k) {
        float v[kVec];
        E::unpack(c[k], v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) sums[k] = fmaf(v[j], v[j], sums[k]);
      }
    } else if (roles.edge) {
      c[0] = *reinterpret_cast<const uint4*>(xs + edge_at);
      float v[kVec];
      E::unpack(c[0], v);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const int row = norm::FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row;
#pragma unroll
        for (int m = 0; m < S; ++m) sums[m] += row == m ? v[j] * v[j] : 0.f;
      }
    }
    if (PREFETCH && segs.whole(seg + gridDim.x))
      norm::prefetch_flat_chunks<T, R>(x + segs.begin(seg + gridDim.x), roles);
    norm::row_group_sum<true>(sums, scratch, parity);
    float inv[S];
#pragma unroll
    for (int k = 0; k < S; ++k)
      inv[k] = norm::inv_rms_of(sums[k], d, eps, rstd, segs.first_row(seg) + k, true);
    if (roles.main) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        float v[kVec];
        E::unpack(c[k], v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) v[j] = v[j] * inv[k] * win[j - R * k + F::kLow];
        *reinterpret_cast<uint4*>(ys + norm::flat_offset<T, R>(t, k, roles.span)) = E::pack(v);
      }
    } else if (roles.edge) {
      float v[kVec];
      E::unpack(c[0], v);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const int row = norm::FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row;
        v[j] = v[j] * norm::flat_pick(inv, row) * win[j];
      }
      *reinterpret_cast<uint4*>(ys + edge_at) = E::pack(v);
    }
  }
}

// RMSNorm backward over segments of S packed rows: arguments, results and aliasing as
// rmsnorm_bwd (dx may be dy or x: a block reads its segment before the barrier that precedes
// its stores). A main thread's weight window and weight-gradient sums live in its slots of
// dynamic shared memory (norm::FlatBackwardSlots; in registers beside the two tensors' chunks
// they spilled: ptxas, sm_90), an edge lane's in registers; the block's sums go out once as its
// partial row dw_partial[blockIdx.x][0..d) (column_sum.cuh adds the rows in a fixed order).
// Launch as rmsnorm_fwd_flat, with FlatBackwardSlots::bytes(d, P) of dynamic shared memory; a
// launch with less traps. MAX_THREADS, MIN_BLOCKS: the launch bound (P + 32 <= MAX_THREADS).
// RELOAD: dy is read again for the second pass (from L1 or L2) instead of held in registers.
template <typename T, int R, int MAX_THREADS = norm::kFlatMaxThreads, int MIN_BLOCKS = 1,
          bool RELOAD = false, bool PREFETCH = true>
__global__ void __launch_bounds__(MAX_THREADS, MIN_BLOCKS)
    rmsnorm_bwd_flat(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows,
                     int d, int x_stride, int dy_stride, int dx_stride, float eps,
                     float w_offset) {
  using F = norm::FlatShape<T, R>;
  using E = norm::Elem<T>;
  constexpr int kVec = F::kVec, S = F::kRows;
  norm::allow_dependent_launch();
  const int strides[3] = {x_stride, dy_stride, dx_stride};
  const norm::FlatRoles<T, R> roles(d, strides, 3);
  __shared__ norm::ReduceScratch<2 * S> scratch;
  extern __shared__ float flat_memory[];
  const norm::FlatBackwardSlots<T, R> slots(flat_memory, d, roles.main_threads);
  slots.begin(w, w_offset, roles, d);
  const int t = roles.t;
  // An edge lane's weights and dw sums of its VEC elements, in shared memory: in registers every
  // thread would hold them.
  __shared__ float edge_w[F::kEdgeLanes][kVec], edge_sums[F::kEdgeLanes][kVec];
  const int lane = t - roles.main_threads;
  if (roles.edge) {
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      edge_w[lane][j] = norm::flat_weight(w, w_offset, norm::FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).col, d);
      edge_sums[lane][j] = 0.f;
    }
  }
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
    const long long edge_at = begin + norm::flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span);
    uint4 xc[S], gc[S];
    float sums[2 * S];  // sum(x^2) of row k, then sum(g * x), g = dy * weight
#pragma unroll
    for (int k = 0; k < 2 * S; ++k) sums[k] = 0.f;
    if (roles.main) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const long long f = begin + norm::flat_offset<T, R>(t, k, roles.span);
        xc[k] = *reinterpret_cast<const uint4*>(x + f);
        gc[k] = *reinterpret_cast<const uint4*>(dy + f);
      }
#pragma unroll
      for (int k = 0; k < S; ++k) {
        float xv[kVec], gv[kVec];
        E::unpack(xc[k], xv);
        E::unpack(gc[k], gv);
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          sums[k] = fmaf(xv[j], xv[j], sums[k]);
          sums[S + k] = fmaf(gv[j] * slots.weight(j - R * k + F::kLow), xv[j], sums[S + k]);
        }
      }
    } else if (roles.edge) {
      xc[0] = *reinterpret_cast<const uint4*>(x + edge_at);
      gc[0] = *reinterpret_cast<const uint4*>(dy + edge_at);
      float xv[kVec], gv[kVec];
      E::unpack(xc[0], xv);
      E::unpack(gc[0], gv);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const int row = norm::FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row;
#pragma unroll
        for (int m = 0; m < S; ++m) {
          sums[m] += row == m ? xv[j] * xv[j] : 0.f;
          sums[S + m] += row == m ? gv[j] * edge_w[lane][j] * xv[j] : 0.f;
        }
      }
    }
    if (PREFETCH && segs.whole(seg + gridDim.x)) {
      norm::prefetch_flat_chunks<T, R>(x + segs.begin(seg + gridDim.x), roles);
      norm::prefetch_flat_chunks<T, R>(dy + segs.begin(seg + gridDim.x), roles);
    }
    norm::row_group_sum<true>(sums, scratch, parity);
    float inv[S], coef[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      inv[k] = rsqrtf(norm::mean_of(sums[k], d) + eps);
      coef[k] = inv[k] * inv[k] * inv[k] * norm::mean_of(sums[S + k], d);
    }
    if (roles.main) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const long long f = begin + norm::flat_offset<T, R>(t, k, roles.span);
        float xv[kVec], gv[kVec];
        E::unpack(xc[k], xv);
        E::unpack(RELOAD ? *reinterpret_cast<const uint4*>(dy + f) : gc[k], gv);
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          slots.add(j - R * k + F::kLow, gv[j] * xv[j] * inv[k]);
          gv[j] = inv[k] * (gv[j] * slots.weight(j - R * k + F::kLow)) - xv[j] * coef[k];
        }
        *reinterpret_cast<uint4*>(dx + f) = E::pack(gv);
      }
    } else if (roles.edge) {
      float xv[kVec], gv[kVec];
      E::unpack(xc[0], xv);
      E::unpack(gc[0], gv);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const int row = norm::FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).row;
        const float inv_row = norm::flat_pick(inv, row);
        edge_sums[lane][j] += gv[j] * xv[j] * inv_row;
        gv[j] = inv_row * (gv[j] * edge_w[lane][j]) - xv[j] * norm::flat_pick(coef, row);
      }
      *reinterpret_cast<uint4*>(dx + edge_at) = E::pack(gv);
    }
  }
  if (dw_partial != nullptr) slots.write_partial(dw_partial, roles, d, edge_sums);
}

}  // namespace ladder
