// LayerNorm forward: y = (x - mean) / sqrt(var + eps) * gamma + beta, var the biased variance.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
//
// Variance: exact two-pass (mean first, then the sum of squared deviations) rather than Welford.
// The row is in registers, so the second pass reads no memory; it costs one more reduction but
// keeps full accuracy when |mean| >> std, where the one-pass E[x^2] - mean^2 cancels.
#pragma once
#include "norm_common.cuh"

namespace ladder {

// ITEMS: 16-byte chunks per thread per tile (host-chosen from d; see README).
// gamma, beta: nullable (no affine parameters; either may be absent on its own).
// mean, rstd: nullable fp32 per row; rstd = 1 / sqrt(var + eps).
// Aliasing: y may be x (same stride); every element is read before it is written, by one thread.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(1024)
    layernorm_fwd(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                  int rows, int d, int x_stride, int y_stride, float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const norm::RowLoop loop;
  for (long long base = loop.first; base < rows; base += loop.step) {
    const long long row = base + threadIdx.y;
    const bool active = row < rows;
    const T* xr = x + (active ? row : 0) * static_cast<long long>(x_stride);
    T* yr = y + (active ? row : 0) * static_cast<long long>(y_stride);
    const int cols = active ? d : 0;
    const void* ptrs[2] = {xr, yr};
    const norm::RowAccess access = norm::row_access<T>(ptrs, 2);
    const int tiles = norm::tiles_for<T, ITEMS>(d, access.phase);

    float v[ITEMS][kVec];
    float acc[1] = {0.f};
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        norm::load_chunk(xr, norm::chunk_column<T, ITEMS>(t, i, access.phase), cols, access.vec,
                         v[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] += v[i][e];
      }
    }
    norm::row_group_sum(acc, scratch, parity);
    const float mu = acc[0] / static_cast<float>(d);

    acc[0] = 0.f;
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
        if (tiles > 1) norm::load_chunk(xr, c0, cols, access.vec, v[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          // Columns outside the row hold 0, which is not the mean: leave them out explicitly.
          const float dev = (c0 + e >= 0 && c0 + e < cols) ? v[i][e] - mu : 0.f;
          acc[0] = fmaf(dev, dev, acc[0]);
        }
      }
    }
    norm::row_group_sum(acc, scratch, parity);
    const float inv_std = 1.f / sqrtf(acc[0] / static_cast<float>(d) + eps);
    if (active && threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }

    const bool gamma_vec = norm::weight_vec_ok(gamma, access);
    const bool beta_vec = norm::weight_vec_ok(beta, access);
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
        if (tiles > 1) norm::load_chunk(xr, c0, cols, access.vec, v[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[i][e] = (v[i][e] - mu) * inv_std;
        if (gamma != nullptr) {
          float g[kVec];
          norm::load_weight_chunk(gamma, c0, cols, gamma_vec, g);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[i][e] *= g[e];
        }
        if (beta != nullptr) {
          float b[kVec];
          norm::load_weight_chunk(beta, c0, cols, beta_vec, b);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[i][e] += b[e];
        }
      }
      norm::store_tile<T, ITEMS>(yr, t, access, cols, v);
    }
  }
}

}  // namespace ladder
