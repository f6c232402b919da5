// RMSNorm backward, plain and after a fused residual add.
//   s = x (rmsnorm_bwd) or x + r in fp32 (add_rmsnorm_bwd), rstd = 1 / sqrt(mean(s^2) + eps),
//   g = dy * weight, weight = 1, w or (1 + w)
//   ds = rstd * g - s * rstd^3 * sum(g * s) / d   (+ dh for the fused op: h = s is an output too)
//   dw = sum over rows of dy * s * rstd            (the same for plain and Gemma weights)
// rstd is recomputed from s: it rides in the same reduction as sum(g * s), so it costs no extra
// barrier, and callers need not keep it from the forward pass.
// Geometry and ABI: kernels/README.md. dw partials: backward_common.cuh and column_sum.cuh.
#pragma once
#include "backward_common.cuh"

namespace ladder {
namespace norm {

// Pointers of one row of the fused or plain backward. r, dh, dr may be null.
template <typename T>
struct RmsBwdRow {
  const T* x;
  const T* r;
  const T* dy;
  const T* dh;
  T* dx;
  T* dr;
};

// What a thread keeps of its chunks between the reduction and the gradient: dy packed as stored,
// and the normalized input packed (plain: x as stored) or in fp32 (fused: x + r is not a T).
// g = dy * weight is recomputed in each pass from the weight, which stays hot in L1.
template <typename T, int ITEMS, bool FUSED>
struct RmsBwdTile {
  uint4 dy[ITEMS];
  uint4 x[FUSED ? 1 : ITEMS];
  float s[FUSED ? ITEMS : 1][Elem<T>::kVec];

  __device__ __forceinline__ void load(const RmsBwdRow<T>& p, int tile, const RowAccess& a,
                                       int d) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = chunk_column<T, ITEMS>(tile, i, a.phase);
      load_chunk_raw(p.dy, c0, d, a.vec, dy[i]);
      if constexpr (FUSED) {
        float rv[Elem<T>::kVec];
        load_chunk(p.x, c0, d, a.vec, s[i]);
        load_chunk(p.r, c0, d, a.vec, rv);
#pragma unroll
        for (int e = 0; e < Elem<T>::kVec; ++e) s[i][e] += rv[e];
      } else {
        load_chunk_raw(p.x, c0, d, a.vec, x[i]);
      }
    }
  }
  __device__ __forceinline__ void input(int i, float (&v)[Elem<T>::kVec]) const {
    if constexpr (FUSED) {
#pragma unroll
      for (int e = 0; e < Elem<T>::kVec; ++e) v[e] = s[i][e];
    } else {
      unpack<T>(x[i], v);
    }
  }
};

template <typename T>
__device__ __forceinline__ void weighted(const T* w, float w_offset, int c0, int d, bool w_vec,
                                         const float (&dy)[Elem<T>::kVec],
                                         float (&g)[Elem<T>::kVec]) {
  if (w != nullptr) {
    float wv[Elem<T>::kVec];
    load_weight_chunk(w, c0, d, w_vec, wv);
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) g[e] = dy[e] * (wv[e] + w_offset);
  } else {
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) g[e] = dy[e];
  }
}

// The shared body. FUSED: s = x + r (add_rmsnorm_bwd); otherwise s = x.
template <typename T, int ITEMS, bool FUSED>
__device__ __forceinline__ void rms_bwd_rows(T* dx, T* dr, float* dw_partial, const T* x,
                                             const T* r, const T* w, const T* dy, const T* dh,
                                             int rows, int d, int x_stride, int r_stride,
                                             int dy_stride, int dh_stride, int dx_stride,
                                             int dr_stride, float eps, float w_offset) {
  constexpr int kVec = Elem<T>::kVec;
  __shared__ ReduceScratch<2> scratch;
  int parity = 0;
  const bool want_dw = dw_partial != nullptr;
  float dw[ITEMS][kVec];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
#pragma unroll
    for (int e = 0; e < kVec; ++e) dw[i][e] = 0.f;
  const int tiles = tiles_for<T, ITEMS>(d, 0);

  const RowLoop loop;
  for (long long base = loop.first; base < rows; base += loop.step) {
    const long long row = base + threadIdx.y;
    const bool active = row < rows;
    const long long at = active ? row : 0;
    RmsBwdRow<T> p;
    p.x = x + at * x_stride;
    p.r = FUSED ? r + at * r_stride : nullptr;
    p.dy = dy + at * dy_stride;
    p.dh = dh != nullptr ? dh + at * dh_stride : nullptr;
    p.dx = dx + at * dx_stride;
    p.dr = dr != nullptr ? dr + at * dr_stride : nullptr;
    const int cols = active ? d : 0;
    // Null pointers are 16-byte aligned, so optional tensors never veto the vector path.
    const void* ptrs[6] = {p.x, p.r, p.dy, p.dh, p.dx, p.dr};
    const RowAccess a = aligned_access(ptrs, 6);
    const bool w_vec = weight_vec_ok(w, a);

    RmsBwdTile<T, ITEMS, FUSED> tile;
    float sums[2] = {0.f, 0.f};  // sum(s^2), sum(g * s)
    for (int t = 0; t < tiles; ++t) {
      tile.load(p, t, a, cols);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float sv[kVec], dyv[kVec], g[kVec];
        tile.input(i, sv);
        unpack<T>(tile.dy[i], dyv);
        weighted(w, w_offset, chunk_column<T, ITEMS>(t, i, 0), cols, w_vec, dyv, g);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          sums[0] = fmaf(sv[e], sv[e], sums[0]);
          sums[1] = fmaf(g[e], sv[e], sums[1]);
        }
      }
    }
    row_group_sum(sums, scratch, parity);
    const float inv_rms = 1.f / sqrtf(sums[0] / static_cast<float>(d) + eps);
    const float coef = inv_rms * inv_rms * inv_rms * sums[1] / static_cast<float>(d);
    // Streaming rows keep dw in the block's partial row; only one row group exists then.
    float* partial_row =
        tiles > 1 && want_dw ? dw_partial + static_cast<long long>(blockIdx.x) * d : nullptr;
    const bool first_row = base == loop.first;
    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) tile.load(p, t, a, cols);
      uint4 dh_raw[ITEMS];
      if (p.dh != nullptr) {  // issued together, before any store of this tile
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
          load_chunk_raw(p.dh, chunk_column<T, ITEMS>(t, i, 0), cols, a.vec, dh_raw[i]);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = chunk_column<T, ITEMS>(t, i, 0);
        float sv[kVec], dyv[kVec], g[kVec], contrib[kVec];
        tile.input(i, sv);
        unpack<T>(tile.dy[i], dyv);
        weighted(w, w_offset, c0, cols, w_vec, dyv, g);
        float dhv[kVec];
        if (p.dh != nullptr) unpack<T>(dh_raw[i], dhv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          contrib[e] = dyv[e] * sv[e] * inv_rms;
          g[e] = inv_rms * g[e] - sv[e] * coef;  // g becomes the row gradient
          if (p.dh != nullptr) g[e] += dhv[e];
        }
        if (want_dw) {
          if (partial_row != nullptr) {
            accumulate_partial_chunk<T>(partial_row, c0, cols, first_row, contrib);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) dw[i][e] += contrib[e];
          }
        }
        // Every load this chunk needs from DRAM was issued above; the weight reload is an L1 hit.
        store_chunk(p.dx, c0, cols, a.vec, g);
        if (p.dr != nullptr) store_chunk(p.dr, c0, cols, a.vec, g);
      }
    }
  }
  if (want_dw && tiles == 1) write_block_partial<T, ITEMS>(dw_partial, d, dw);
}

}  // namespace norm

// ITEMS: 16-byte chunks per thread (host-chosen; README). Grid: a fixed number of blocks, each
// looping over rows; dw_partial is [gridDim.x, d] fp32 scratch, then column_sum<T> gives dw.
// w: nullable (no weight; pass dw_partial = null too). w_offset: 0 plain, 1 Gemma.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(norm::kBackwardMaxThreads)
    rmsnorm_bwd(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows, int d,
                int x_stride, int dy_stride, int dx_stride, float eps, float w_offset) {
  norm::rms_bwd_rows<T, ITEMS, false>(dx, nullptr, dw_partial, x, nullptr, w, dy, nullptr, rows,
                                      d, x_stride, 0, dy_stride, 0, dx_stride, 0, eps, w_offset);
}

// Backward of h = x + r, y = rmsnorm(h) * weight (convention A: the fp32 sum is normalized).
// dx receives the gradient of x; dr (nullable) the same values for r. dh (nullable) is the
// incoming gradient of h when h is used downstream; it is added to both.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(norm::kBackwardMaxThreads)
    add_rmsnorm_bwd(T* dx, T* dr, float* dw_partial, const T* x, const T* r, const T* w,
                    const T* dy, const T* dh, int rows, int d, int x_stride, int r_stride,
                    int dy_stride, int dh_stride, int dx_stride, int dr_stride, float eps,
                    float w_offset) {
  norm::rms_bwd_rows<T, ITEMS, true>(dx, dr, dw_partial, x, r, w, dy, dh, rows, d, x_stride,
                                     r_stride, dy_stride, dh_stride, dx_stride, dr_stride, eps,
                                     w_offset);
}

}  // namespace ladder
