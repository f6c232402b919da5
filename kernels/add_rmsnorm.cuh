// Fused residual add + RMSNorm forward: h = x + r (stored in the io dtype), y = rmsnorm(h) * weight.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

// The sum the kernel normalizes, per element. Convention A (ROUND_SUM = false; FlashInfer, FLA):
// the fp32 sum itself; h stores it rounded. Convention B (ROUND_SUM = true; vLLM's CUDA kernel):
// the sum rounded to the io dtype first, so h and the normalized value agree exactly.
template <typename T, int ITEMS, bool ROUND_SUM>
__device__ __forceinline__ void load_sum_chunk(const T* xr, const T* rr, int c0, int d, bool vec,
                                               float (&s)[Elem<T>::kVec]) {
  float rv[Elem<T>::kVec];
  load_chunk(xr, c0, d, vec, s);
  load_chunk(rr, c0, d, vec, rv);
#pragma unroll
  for (int e = 0; e < Elem<T>::kVec; ++e) {
    s[e] += rv[e];
    if (ROUND_SUM) s[e] = Elem<T>::to_float(Elem<T>::from_float(s[e]));
  }
}

}  // namespace norm

// ITEMS: 16-byte chunks per thread per tile (host-chosen from d; see README).
// ROUND_SUM: false = convention A, true = convention B (identical for float).
// w: nullable; w_offset 0 (plain) or 1 (Gemma). rstd: nullable, fp32 per row.
// Aliasing: h may be r and/or y may be x (each with the same stride). Each element of x and r is
// read by exactly one thread before that thread writes the same element of h or y, and no thread
// reads an element another thread writes, so in-place calls are safe.
template <typename T, int ITEMS, bool ROUND_SUM>
__global__ void __launch_bounds__(1024)
    add_rmsnorm_fwd(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows, int d,
                    int x_stride, int r_stride, int h_stride, int y_stride, float eps,
                    float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const norm::RowLoop loop;
  for (long long base = loop.first; base < rows; base += loop.step) {
    const long long row = base + threadIdx.y;
    const bool active = row < rows;
    const long long at = active ? row : 0;  // inactive groups only join reductions
    const T* xr = x + at * x_stride;
    const T* rr = r + at * r_stride;
    T* hr = h + at * h_stride;
    T* yr = y + at * y_stride;
    const int cols = active ? d : 0;
    const void* ptrs[4] = {xr, rr, hr, yr};
    const norm::RowAccess access = norm::row_access<T>(ptrs, 4);
    const int tiles = norm::tiles_for<T, ITEMS>(d, access.phase);

    float s[ITEMS][kVec];
    float sum[1] = {0.f};
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        norm::load_sum_chunk<T, ITEMS, ROUND_SUM>(
            xr, rr, norm::chunk_column<T, ITEMS>(t, i, access.phase), cols, access.vec, s[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum[0] = fmaf(s[i][e], s[i][e], sum[0]);
      }
    }
    // In registers (one tile), h goes out now so its stores overlap the reduction; they follow
    // every load of the row (a store may alias r, so no load can be moved above it). When the
    // row streams, h waits for the second pass, which re-reads r.
    if (tiles == 1) norm::store_tile<T, ITEMS>(hr, 0, access, cols, s);
    norm::row_group_sum(sum, scratch, parity);
    const float inv_rms = 1.f / sqrtf(sum[0] / static_cast<float>(d) + eps);
    if (active && rstd != nullptr && threadIdx.x == 0) rstd[row] = inv_rms;

    const bool w_vec = norm::weight_vec_ok(w, access);
    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
          norm::load_sum_chunk<T, ITEMS, ROUND_SUM>(
              xr, rr, norm::chunk_column<T, ITEMS>(t, i, access.phase), cols, access.vec, s[i]);
        norm::store_tile<T, ITEMS>(hr, t, access, cols, s);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (w != nullptr) {
          float wv[kVec];
          norm::load_weight_chunk(w, norm::chunk_column<T, ITEMS>(t, i, access.phase), cols,
                                  w_vec, wv);
#pragma unroll
          for (int e = 0; e < kVec; ++e) s[i][e] = s[i][e] * inv_rms * (wv[e] + w_offset);
        } else {
#pragma unroll
          for (int e = 0; e < kVec; ++e) s[i][e] *= inv_rms;
        }
      }
      norm::store_tile<T, ITEMS>(yr, t, access, cols, s);
    }
  }
}

}  // namespace ladder
