// A row's mean and variance in one reduction: each thread summarizes its own values as a count,
// their mean and the sum of their squared deviations from it, and the row group joins the
// summaries pairwise by the parallel-variance formula (Chan, Golub and LeVeque):
//   n = na + nb,  mean = (na ma + nb mb) / n,  M2 = M2a + M2b + (mb - ma)^2 na nb / n.
// One shuffle tree and one barrier, where the exact two-pass statistics take two of each. Each
// thread's summary is exact to fp32 rounding (its own deviations, not E[x^2] - mean^2), and the
// join adds no cancellation: M2 only grows.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

struct Moments {
  float n = 0.f, mean = 0.f, m2 = 0.f;
};

// Symmetric in a and b bit for bit (each operation is commutative, and the rounded forms keep the
// compiler from contracting one side into an fma): the two lanes of a butterfly step compute
// join(a, b) and join(b, a) and so hold the same bits afterwards, as row_group_sum's do.
__device__ __forceinline__ Moments join(const Moments& a, const Moments& b) {
  Moments r;
  r.n = __fadd_rn(a.n, b.n);
  const float inv_n = r.n > 0.f ? __fdividef(1.f, r.n) : 0.f;
  r.mean = __fmul_rn(__fadd_rn(__fmul_rn(a.n, a.mean), __fmul_rn(b.n, b.mean)), inv_n);
  const float delta = __fsub_rn(b.mean, a.mean);  // its sign differs between the lanes; squared
  r.m2 = __fadd_rn(__fadd_rn(a.m2, b.m2),
                   __fmul_rn(__fmul_rn(delta, delta), __fmul_rn(__fmul_rn(a.n, b.n), inv_n)));
  return r;
}

__device__ __forceinline__ Moments shuffle_xor(const Moments& m, int offset) {
  Moments r;
  r.n = __shfl_xor_sync(kFullMask, m.n, offset);
  r.mean = __shfl_xor_sync(kFullMask, m.mean, offset);
  r.m2 = __shfl_xor_sync(kFullMask, m.m2, offset);
  return r;
}

// Joins the threads' summaries of N rows over the row group; every thread of the group receives
// the same bits. The group layout and the barrier rule are row_group_sum's (norm_common.cuh):
// when blockDim.x > 32, every thread of the block must reach it.
template <int N>
__device__ __forceinline__ void row_group_moments(Moments (&m)[N], ReduceScratch<3 * N>& scratch,
                                                  int& parity) {
  const int width = blockDim.x < 32 ? blockDim.x : 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    if (offset < width) {
#pragma unroll
      for (int k = 0; k < N; ++k) m[k] = join(m[k], shuffle_xor(m[k], offset));
    }
  }
  if (blockDim.x <= 32) return;
  const int lane = threadIdx.x & 31;
  const int warps = blockDim.x >> 5;
  float (*buf)[3 * N] = scratch.partial[parity] + threadIdx.y * warps;
  parity ^= 1;
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) {
      buf[threadIdx.x >> 5][3 * k] = m[k].n;
      buf[threadIdx.x >> 5][3 * k + 1] = m[k].mean;
      buf[threadIdx.x >> 5][3 * k + 2] = m[k].m2;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < N; ++k) {
    m[k] = Moments{};
    if (lane < warps) m[k] = Moments{buf[lane][3 * k], buf[lane][3 * k + 1], buf[lane][3 * k + 2]};
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) m[k] = join(m[k], shuffle_xor(m[k], offset));
  }
}

// One row's.
__device__ __forceinline__ Moments row_group_moments(const Moments& m, ReduceScratch<3>& scratch,
                                                     int& parity) {
  Moments one[1] = {m};
  row_group_moments(one, scratch, parity);
  return one[0];
}

// A thread's summary from sums shifted by one of its own values K (s = sum(x - K),
// q = sum((x - K)^2) over its n values): the shift bounds the cancellation in q - s^2 / n, as
// the shift point's deviation is part of the thread's spread.
__device__ __forceinline__ Moments shifted_moments(float n, float shift, float s, float q) {
  Moments m;
  m.n = n;
  const float inv_n = n > 0.f ? 1.f / n : 0.f;
  m.mean = n > 0.f ? fmaf(s, inv_n, shift) : 0.f;
  m.m2 = n > 0.f ? fmaxf(q - s * s * inv_n, 0.f) : 0.f;
  return m;
}

}  // namespace norm
}  // namespace ladder
