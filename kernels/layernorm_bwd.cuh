// LayerNorm backward.
//   mean, rstd recomputed from x (two-pass, as in the forward), xhat = (x - mean) * rstd,
//   g = dy * gamma (gamma = 1 when absent)
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy
// Recomputing the statistics saves callers from keeping them; the second reduction carries
// sum((x - mean)^2), sum(g) and sum(g * (x - mean)) together, so the whole row costs two barriers.
// Geometry and ABI: kernels/README.md. Partials: backward_common.cuh and column_sum.cuh.
#pragma once
#include "backward_common.cuh"

namespace ladder {

// ITEMS: 16-byte chunks per thread (host-chosen; README). Grid: a fixed number of blocks, each
// looping over rows. dgamma_partial, dbeta_partial: [gridDim.x, d] fp32 scratch (nullable: no
// affine parameters), reduced by column_sum<T>. gamma: nullable.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(norm::kBackwardMaxThreads)
    layernorm_bwd(T* dx, float* dgamma_partial, float* dbeta_partial, const T* x, const T* gamma,
                  const T* dy, int rows, int d, int x_stride, int dy_stride, int dx_stride,
                  float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  // One buffer per reduction: consecutive uses of either are separated by the other's barrier.
  __shared__ norm::ReduceScratch<1> scratch_mean;
  __shared__ norm::ReduceScratch<3> scratch_rest;
  int parity_mean = 0, parity_rest = 0;
  const bool want_partials = dgamma_partial != nullptr && dbeta_partial != nullptr;
  float dgamma[ITEMS][kVec], dbeta[ITEMS][kVec];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
#pragma unroll
    for (int e = 0; e < kVec; ++e) dgamma[i][e] = dbeta[i][e] = 0.f;

  const int tiles = norm::tiles_for<T, ITEMS>(d, 0);
  const norm::RowLoop loop;
  for (long long base = loop.first; base < rows; base += loop.step) {
    const long long row = base + threadIdx.y;
    const bool active = row < rows;
    const long long at = active ? row : 0;
    const T* xr = x + at * x_stride;
    const T* dyr = dy + at * dy_stride;
    T* dxr = dx + at * dx_stride;
    const int cols = active ? d : 0;
    const void* ptrs[3] = {xr, dyr, dxr};
    const norm::RowAccess a = norm::aligned_access(ptrs, 3);
    const bool gamma_vec = norm::weight_vec_ok(gamma, a);

    float xv[ITEMS][kVec], g[ITEMS][kVec];
    float sums[3] = {0.f, 0.f, 0.f};
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        norm::load_chunk(xr, norm::chunk_column<T, ITEMS>(t, i, 0), cols, a.vec, xv[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sums[0] += xv[i][e];
      }
    }
    float total[1] = {sums[0]};
    norm::row_group_sum(total, scratch_mean, parity_mean);
    const float mu = total[0] / static_cast<float>(d);

    // Second reduction: squared deviations, sum(g), sum(g * (x - mean)).
    sums[0] = sums[1] = sums[2] = 0.f;
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, 0);
        if (tiles > 1) norm::load_chunk(xr, c0, cols, a.vec, xv[i]);
        norm::load_chunk(dyr, c0, cols, a.vec, g[i]);
        if (gamma != nullptr) {
          float gm[kVec];
          norm::load_weight_chunk(gamma, c0, cols, gamma_vec, gm);
#pragma unroll
          for (int e = 0; e < kVec; ++e) g[i][e] *= gm[e];
        }
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float dev = (c0 + e < cols) ? xv[i][e] - mu : 0.f;  // c0 >= 0: no phase
          sums[0] = fmaf(dev, dev, sums[0]);
          sums[1] += g[i][e];
          sums[2] = fmaf(g[i][e], dev, sums[2]);
        }
      }
    }
    norm::row_group_sum(sums, scratch_rest, parity_rest);
    const float inv_std = 1.f / sqrtf(sums[0] / static_cast<float>(d) + eps);
    const float mean_g = sums[1] / static_cast<float>(d);
    const float mean_gxhat = inv_std * sums[2] / static_cast<float>(d);

    float* dgamma_row = tiles > 1 && want_partials
                            ? dgamma_partial + static_cast<long long>(blockIdx.x) * d
                            : nullptr;
    float* dbeta_row = tiles > 1 && want_partials
                           ? dbeta_partial + static_cast<long long>(blockIdx.x) * d
                           : nullptr;
    const bool first_row = base == loop.first;
    for (int t = 0; t < tiles; ++t) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, 0);
        float dyv[kVec];
        norm::load_chunk(dyr, c0, cols, a.vec, dyv);  // from L1/L2: fewer live registers
        if (tiles > 1) {
          norm::load_chunk(xr, c0, cols, a.vec, xv[i]);
          norm::load_chunk(dyr, c0, cols, a.vec, g[i]);
          if (gamma != nullptr) {
            float gm[kVec];
            norm::load_weight_chunk(gamma, c0, cols, gamma_vec, gm);
#pragma unroll
            for (int e = 0; e < kVec; ++e) g[i][e] *= gm[e];
          }
        }
        float xhat[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          xhat[e] = (xv[i][e] - mu) * inv_std;
          g[i][e] = inv_std * (g[i][e] - mean_g - xhat[e] * mean_gxhat);  // g becomes dx
        }
        if (want_partials) {
          float gamma_add[kVec];
#pragma unroll
          for (int e = 0; e < kVec; ++e) gamma_add[e] = dyv[e] * xhat[e];
          if (dgamma_row != nullptr) {
            norm::accumulate_partial_chunk<T>(dgamma_row, c0, cols, first_row, gamma_add);
            norm::accumulate_partial_chunk<T>(dbeta_row, c0, cols, first_row, dyv);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
              dgamma[i][e] += gamma_add[e];
              dbeta[i][e] += dyv[e];
            }
          }
        }
      }
      norm::store_tile<T, ITEMS>(dxr, t, a, cols, g);
    }
  }
  if (want_partials && tiles == 1) {
    norm::write_block_partial<T, ITEMS>(dgamma_partial, d, dgamma);
    norm::write_block_partial<T, ITEMS>(dbeta_partial, d, dbeta);
  }
}

}  // namespace ladder
