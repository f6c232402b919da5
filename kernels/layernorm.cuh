// LayerNorm forward: y = (x - mean) / sqrt(var + eps) * gamma + beta, var the biased variance.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
//
// Variance: each thread takes the exact two-pass moments of its own values (count, mean, sum of
// squared deviations; the values are in registers, so both passes are free), and the row group
// joins them with Chan's pairwise update. One reduction, so one barrier per row, and no
// E[x^2] - mean^2 cancellation when |mean| >> std.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

// Count, mean and sum of squared deviations of a set of values.
struct Moments {
  float n = 0.f, mean = 0.f, m2 = 0.f;
};

// Chan et al.'s combination. Callers always pass the same operand first (the lower lane or the
// earlier tile), so every thread that joins the same two sets gets the same bits.
__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
  Moments m;
  m.n = a.n + b.n;
  if (m.n == 0.f) return m;
  const float delta = b.mean - a.mean;
  const float wb = __fdividef(b.n, m.n);  // counts: well inside __fdividef's range
  m.mean = fmaf(delta, wb, a.mean);
  m.m2 = a.m2 + b.m2 + delta * delta * a.n * wb;
  return m;
}

__device__ __forceinline__ Moments shfl_merge(const Moments& mine, int offset) {
  Moments other;
  other.n = __shfl_xor_sync(kFullMask, mine.n, offset);
  other.mean = __shfl_xor_sync(kFullMask, mine.mean, offset);
  other.m2 = __shfl_xor_sync(kFullMask, mine.m2, offset);
  const bool lower = (threadIdx.x & offset) == 0;
  return lower ? merge(mine, other) : merge(other, mine);
}

// The moments of the whole row, identical in every thread of the group (same rules and barrier
// discipline as row_group_sum).
__device__ __forceinline__ Moments row_group_moments(Moments m, ReduceScratch<3>& scratch,
                                                     int& parity) {
  const int width = blockDim.x < 32 ? blockDim.x : 32;
  for (int offset = width >> 1; offset > 0; offset >>= 1) m = shfl_merge(m, offset);
  if (blockDim.x <= 32) return m;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  float (*buf)[3] = scratch.partial[parity] + threadIdx.y * warps;  // this group's slots
  parity ^= 1;
  if (lane == 0) {
    buf[warp][0] = m.n;
    buf[warp][1] = m.mean;
    buf[warp][2] = m.m2;
  }
  __syncthreads();
  m = Moments{};
  if (lane < warps) {
    m.n = buf[lane][0];
    m.mean = buf[lane][1];
    m.m2 = buf[lane][2];
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) m = shfl_merge(m, offset);
  return m;
}

// Moments of one thread's chunks of a tile, exact two-pass over registers. Columns outside the
// row hold 0 and add nothing to the sum; only threads at the row's ends (fewer values than
// chunks hold) pay for a per-column check in the second pass.
template <typename T, int ITEMS>
__device__ __forceinline__ Moments tile_moments(const uint4 (&xs)[ITEMS], int tile, int phase,
                                                int d) {
  constexpr int kVec = Elem<T>::kVec;
  Moments m;
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    m.n += static_cast<float>(max(0, min(c0 + kVec, d) - max(c0, 0)));
    float v[kVec];
    Elem<T>::unpack(xs[i], v);
#pragma unroll
    for (int e = 0; e < kVec; ++e) sum += v[e];
  }
  if (m.n == 0.f) return m;
  m.mean = __fdividef(sum, m.n);
  const bool whole = m.n == static_cast<float>(ITEMS * kVec);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    float v[kVec];
    Elem<T>::unpack(xs[i], v);
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const float dev = (whole || (c0 + e >= 0 && c0 + e < d)) ? v[e] - m.mean : 0.f;
      m.m2 = fmaf(dev, dev, m.m2);
    }
  }
  return m;
}

}  // namespace norm

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
  __shared__ norm::ReduceScratch<3> scratch;
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
    constexpr bool kEarlyAffine = ITEMS <= 1;
    const bool gamma_vec = norm::weight_vec_ok(gamma, access);
    const bool beta_vec = norm::weight_vec_ok(beta, access);
    uint4 xs[ITEMS], gs[ITEMS], bs[ITEMS];
    norm::Moments local;
    for (int t = 0; t < tiles; ++t) {
      norm::load_tile<T, ITEMS>(xr, t, access.vec, access.phase, cols, xs);
      if (kEarlyAffine && tiles == 1) {
        if (gamma != nullptr)
          norm::load_tile<T, ITEMS, true>(gamma, 0, gamma_vec, access.phase, cols, gs);
        if (beta != nullptr)
          norm::load_tile<T, ITEMS, true>(beta, 0, beta_vec, access.phase, cols, bs);
      }
      local = norm::merge(local, norm::tile_moments<T, ITEMS>(xs, t, access.phase, cols));
    }
    const norm::Moments row_moments = norm::row_group_moments(local, scratch, parity);
    const float mu = row_moments.mean;
    const float inv_std = 1.f / sqrtf(row_moments.m2 / static_cast<float>(d) + eps);
    if (active && threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }

    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) norm::load_tile<T, ITEMS>(xr, t, access.vec, access.phase, cols, xs);
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
          E::unpack(early ? gs[i] : norm::load_chunk_packed<T, true>(gamma, c0, cols, gamma_vec), g);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] *= g[e];
        }
        if (beta != nullptr) {
          float b[kVec];
          E::unpack(early ? bs[i] : norm::load_chunk_packed<T, true>(beta, c0, cols, beta_vec), b);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] += b[e];
        }
        norm::store_chunk(yr, c0, cols, access.vec, v);
      }
    }
  }
}

}  // namespace ladder
