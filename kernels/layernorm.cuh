// LayerNorm forward: y = (x - mean) / sqrt(var + eps) * gamma + beta, var the biased variance.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
//
// Variance: each thread takes the exact two-pass moments of its own columns (count, mean, sum of
// squared deviations from that mean), from registers; the row group then merges them pairwise
// (Chan et al.), one reduction for the row. It keeps full accuracy when |mean| >> std, where the
// one-pass E[x^2] - mean^2 cancels, and a streamed row is read twice rather than three times.
#pragma once
#include "norm_common.cuh"
#include "weight_cache.cuh"

namespace ladder {
namespace norm {

// Count, mean and sum of squared deviations (M2) of a set of values.
struct Moments {
  float n = 0.f, mean = 0.f, m2 = 0.f;
};

// The moments of the union of two disjoint sets. Written so that merge(a, b) and merge(b, a) are
// bit-identical (sums and products of the two sides only, and (mb - ma)^2 == (ma - mb)^2): the
// xor butterflies of a reduction merge each pair in both lanes, and every lane must end with the
// same bits.
__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
  Moments out;
  out.n = a.n + b.n;
  const float inv = out.n > 0.f ? 1.f / out.n : 0.f;
  out.mean = (a.n * a.mean + b.n * b.mean) * inv;
  const float delta = b.mean - a.mean;
  out.m2 = (a.m2 + b.m2) + delta * delta * (a.n * b.n * inv);
  return out;
}

__device__ __forceinline__ Moments shfl_xor(const Moments& m, int offset) {
  Moments o;
  o.n = __shfl_xor_sync(kFullMask, m.n, offset);
  o.mean = __shfl_xor_sync(kFullMask, m.mean, offset);
  o.m2 = __shfl_xor_sync(kFullMask, m.m2, offset);
  return o;
}

// row_group_sum for Moments: every thread of the group receives the row's moments, bit-identical.
// Must be reached by every thread of the block when blockDim.x > 32.
__device__ __forceinline__ Moments row_group_moments(Moments m, ReduceScratch<3>& scratch,
                                                     int& parity) {
  const int width = blockDim.x < 32 ? blockDim.x : 32;
  for (int offset = width >> 1; offset > 0; offset >>= 1) m = merge(m, shfl_xor(m, offset));
  if (blockDim.x <= 32) return m;
  const int lane = threadIdx.x & 31;
  const int warps = blockDim.x >> 5;
  float (*buf)[3] = scratch.partial[parity] + threadIdx.y * warps;
  parity ^= 1;
  if (lane == 0) {
    buf[threadIdx.x >> 5][0] = m.n;
    buf[threadIdx.x >> 5][1] = m.mean;
    buf[threadIdx.x >> 5][2] = m.m2;
  }
  __syncthreads();
  m = Moments{};
  if (lane < warps) m = Moments{buf[lane][0], buf[lane][1], buf[lane][2]};
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) m = merge(m, shfl_xor(m, offset));
  return m;
}

// The moments of this thread's columns of a tile (columns outside [0, cols) hold 0 in xs and are
// left out). One pass over the values, shifted by one of them, k: with
// s1 = sum(v - k) and s2 = sum((v - k)^2), M2 = s2 - s1^2 / n. Because k is one of the values,
// (k - mean)^2 <= M2, so s2 <= (1 + n) * M2 and the subtraction loses at most log2(1 + n) bits
// (n <= 32 values a thread) however large |mean| is against the spread. A second pass over the
// registers would be exact, but ptxas keeps the unpacked values of both passes live and spills.
template <typename T, int ITEMS>
__device__ __forceinline__ Moments tile_moments(const uint4 (&xs)[ITEMS], int tile, int phase,
                                                int cols) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  const int first = chunk_column<T, ITEMS>(tile, 0, phase);
  const int last = chunk_column<T, ITEMS>(tile, ITEMS - 1, phase);
  Moments m;
  // The shift: the first column of the thread's first chunk that lies inside the row.
  float k = 0.f;
  {
    float v0[kVec];
    E::unpack(xs[0], v0);
    const int at = first < 0 ? -first : 0;
#pragma unroll
    for (int e = 0; e < kVec; ++e) k = e == at ? v0[e] : k;
  }
  float s1 = 0.f, s2 = 0.f;
  if (first >= 0 && last + kVec <= cols) {  // every column inside the row: no masks
    m.n = static_cast<float>(ITEMS * kVec);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      float v[kVec];
      E::unpack(xs[i], v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float dv = v[e] - k;
        s1 += dv;
        s2 = fmaf(dv, dv, s2);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
      const int lo = c0 > 0 ? c0 : 0;
      const int hi = c0 + kVec < cols ? c0 + kVec : cols;
      m.n += hi > lo ? static_cast<float>(hi - lo) : 0.f;
      float v[kVec];
      E::unpack(xs[i], v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float dv = (c0 + e >= 0 && c0 + e < cols) ? v[e] - k : 0.f;
        s1 += dv;
        s2 = fmaf(dv, dv, s2);
      }
    }
  }
  if (m.n > 0.f) {
    m.mean = k + s1 / m.n;
    m.m2 = fmaxf(s2 - s1 * (s1 / m.n), 0.f);
  }
  return m;
}

}  // namespace norm

// ITEMS: 16-byte chunks per thread per tile (host-chosen from d; see README).
// gamma, beta: nullable (no affine parameters; either may be absent on its own).
// mean, rstd: nullable fp32 per row; rstd = 1 / sqrt(var + eps).
// CACHED: gamma and beta are read from a per-block copy in dynamic shared memory, two slots of
// cached_chunks(d) * 16 bytes (see rmsnorm.cuh and weight_cache.cuh).
// Aliasing: y may be x (same stride); every element is read before it is written, by one thread.
template <typename T, int ITEMS, bool CACHED = false>
__global__ void __launch_bounds__(1024)
    layernorm_fwd(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                  int rows, int d, int x_stride, int y_stride, float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<3> scratch;
  int parity = 0;
  extern __shared__ uint4 weight_cache[];
  bool cached = false;
  if constexpr (CACHED) {
    const T* const cache_src[2] = {gamma, beta};
    cached = (gamma != nullptr || beta != nullptr) &&
             norm::fill_weight_cache<T, 2>(cache_src, d, weight_cache);
  }
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
    constexpr bool kEarlyAffine = !CACHED && ITEMS <= 2;
    const bool gamma_vec = norm::weight_vec_ok(gamma, access);
    const bool beta_vec = norm::weight_vec_ok(beta, access);
    uint4 xs[ITEMS], gs[ITEMS], bs[ITEMS];
    norm::Moments row_moments;
    for (int t = 0; t < tiles; ++t) {
      norm::load_tile<T, ITEMS, norm::Load::EvictFirst>(xr, t, access.vec, access.phase, cols, xs);
      if (kEarlyAffine && tiles == 1) {
        if (gamma != nullptr) norm::load_tile<T, ITEMS, norm::Load::ReadOnly>(gamma, 0, gamma_vec, access.phase, cols, gs);
        if (beta != nullptr) norm::load_tile<T, ITEMS, norm::Load::ReadOnly>(beta, 0, beta_vec, access.phase, cols, bs);
      }
      const norm::Moments tile = norm::tile_moments<T, ITEMS>(xs, t, access.phase, cols);
      row_moments = tiles == 1 ? tile : norm::merge(row_moments, tile);
    }
    row_moments = norm::row_group_moments(row_moments, scratch, parity);
    const float mu = row_moments.mean;
    const float inv_std = 1.f / sqrtf(row_moments.m2 / static_cast<float>(d) + eps);
    if (active && threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }

    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) norm::load_tile<T, ITEMS, norm::Load::EvictFirst>(xr, t, access.vec, access.phase, cols, xs);
      const bool early = kEarlyAffine && tiles == 1;
      const int skew = norm::cache_skew(access.phase, kVec);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
        float v[kVec];
        E::unpack(xs[i], v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] = (v[e] - mu) * inv_std;
        if (gamma != nullptr) {
          float g[kVec];
          E::unpack(cached  ? norm::cached_chunk<T>(norm::cache_slot<T>(weight_cache, 0, d), c0, cols, skew)
                    : early ? gs[i]
                            : norm::load_chunk_packed<T, norm::Load::ReadOnly>(gamma, c0, cols, gamma_vec),
                    g);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] *= g[e];
        }
        if (beta != nullptr) {
          float b[kVec];
          E::unpack(cached  ? norm::cached_chunk<T>(norm::cache_slot<T>(weight_cache, 1, d), c0, cols, skew)
                    : early ? bs[i]
                            : norm::load_chunk_packed<T, norm::Load::ReadOnly>(beta, c0, cols, beta_vec),
                    b);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] += b[e];
        }
        norm::store_chunk<T, true>(yr, c0, cols, access.vec, v);
      }
    }
  }
}

}  // namespace ladder
