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
// MAX_THREADS: the launch bound, as in rmsnorm_fwd (rmsnorm.cuh).
template <typename T, int ITEMS, int MAX_THREADS = 1024>
__global__ void __launch_bounds__(MAX_THREADS)
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

    // Packed row (4 registers per chunk); gamma and beta come early where registers allow.
    constexpr bool kEarlyAffine = ITEMS <= 2;
    const bool gamma_vec = norm::weight_vec_ok(gamma, access);
    const bool beta_vec = norm::weight_vec_ok(beta, access);
    uint4 xs[ITEMS], gs[ITEMS], bs[ITEMS];
    float acc[1] = {0.f};
    for (int t = 0; t < tiles; ++t) {
      norm::load_tile<T, ITEMS, norm::Load::EvictFirst>(xr, t, access.vec, access.phase, cols, xs);
      if (kEarlyAffine && tiles == 1) {
        if (gamma != nullptr) norm::load_tile<T, ITEMS, norm::Load::ReadOnly>(gamma, 0, gamma_vec, access.phase, cols, gs);
        if (beta != nullptr) norm::load_tile<T, ITEMS, norm::Load::ReadOnly>(beta, 0, beta_vec, access.phase, cols, bs);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float v[kVec];
        E::unpack(xs[i], v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] += v[e];
      }
    }
    norm::row_group_sum(acc, scratch, parity);
    const float mu = acc[0] / static_cast<float>(d);

    acc[0] = 0.f;
    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) norm::load_tile<T, ITEMS, norm::Load::EvictFirst>(xr, t, access.vec, access.phase, cols, xs);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
        float v[kVec];
        E::unpack(xs[i], v);
        // Only edge chunks test columns: per element, the test cost 16-bit rows 3% (call 37).
        if (norm::chunk_inside<T>(c0, cols)) {
#pragma unroll
          for (int e = 0; e < kVec; ++e) acc[0] = fmaf(v[e] - mu, v[e] - mu, acc[0]);
        } else {
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            // Columns outside the row hold 0, which is not the mean: leave them out explicitly.
            const float dev = (c0 + e >= 0 && c0 + e < cols) ? v[e] - mu : 0.f;
            acc[0] = fmaf(dev, dev, acc[0]);
          }
        }
      }
    }
    norm::row_group_sum(acc, scratch, parity);
    const float inv_std = 1.f / sqrtf(acc[0] / static_cast<float>(d) + eps);
    if (active && threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }

    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) norm::load_tile<T, ITEMS, norm::Load::EvictFirst>(xr, t, access.vec, access.phase, cols, xs);
      const bool early = kEarlyAffine && tiles == 1;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
        float v[kVec];
        E::unpack(xs[i], v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] = (v[e] - mu) * inv_std;
        if (gamma != nullptr) {
          float g[kVec];
          E::unpack(early ? gs[i] : norm::load_chunk_packed<T, norm::Load::ReadOnly>(gamma, c0, cols, gamma_vec), g);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] *= g[e];
        }
        if (beta != nullptr) {
          float b[kVec];
          E::unpack(early ? bs[i] : norm::load_chunk_packed<T, norm::Load::ReadOnly>(beta, c0, cols, beta_vec), b);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] += b[e];
        }
        norm::store_chunk<T, true>(yr, c0, cols, access.vec, v);
      }
    }
  }
}

}  // namespace ladder
