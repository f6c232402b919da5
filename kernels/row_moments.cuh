// LayerNorm's row statistics with one block barrier a row instead of two.
//
// Why: the exact two-pass statistics joined over the block (the row's sum, then its squared
// deviations from the mean) wait at a block barrier twice a row, and every warp waits there for
// the slowest. Nsight Compute (call 217) put the phase kernels' largest stall at those barriers.
// Here each warp takes its own exact two-pass moments, its sum S_w over its n_w columns and then
// M2_w, the squared deviations from its own mean m_w = S_w / n_w (shuffles only, no barrier),
// and the warps' (S_w, m_w, n_w, M2_w) meet once in shared memory, joined by the
// parallel-variance identity: mean = sum S_w / d, M2 = sum (M2_w + n_w (m_w - mean)^2).
// The mean is the same sum in the same order as row_group_sum's (bit-identical); M2 is the same
// quantity, each warp's deviations taken from a mean near its own values. Deterministic: every
// order is fixed by the geometry.
// Used by layernorm_fwd_phase (phase_rows.cuh). Measured on the H200 (call 219,
// reports/h200/bench-moments-219.txt, cold, two rounds): bf16 16384x1025 43.8-44.0 -> 39.5-39.6
// us, 16384x2049 56.1 -> 53.7-53.9, 16384x3073 84.2 -> 81.4-81.5, fp32 16384x2049 102.3 -> 88.8.
// The streamed kernel (layernorm_loop.cuh, three passes, at its 40-register bound) lost 1-2.5%
// with it (bf16 8192x8192 70.3-70.4 -> 71.8-72.5) and the bulk kernel (2048x32768) measured level,
// so both keep two block sums.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

// This row group's slots of the join: a warp's four moments each (S_w, m_w, n_w, M2_w).
template <int M>
__device__ __forceinline__ float (*moment_slots(ReduceScratch<M>& scratch, int parity))[M] {
  static_assert(M >= 4, "the scratch holds a warp's four moments");
  return scratch.partial[parity] + threadIdx.y * (blockDim.x >> 5);
}

// This warp's share of a row: 1 / n_w, its columns n_w being the lanes' counts summed (0 for a
// warp with none). Constant over a launch's rows: built once, before the row loop, where lane 0
// also leaves n_w in both sets of the join's slots for good (the first join's barrier orders
// those stores before any read), so that no register holds it through the rows.
struct WarpShare {
  float inv_count = 0.f;
  WarpShare() = default;  // a kernel build that joins no moments
  template <int M>
  __device__ __forceinline__ WarpShare(float lane_count, ReduceScratch<M>& scratch) {
    float c[1] = {lane_count};
    warp_sum(c);
    inv_count = c[0] > 0.f ? 1.f / c[0] : 0.f;
    if (blockDim.x > 32 && (threadIdx.x & 31) == 0) {
      moment_slots(scratch, 0)[threadIdx.x >> 5][2] = c[0];
      moment_slots(scratch, 1)[threadIdx.x >> 5][2] = c[0];
    }
  }
};

struct RowMoments {
  float mean, m2;  // the row's mean and sum of squared deviations from it
};

// The first pass's end: the warp's mean m_w from its lanes' sums (every lane receives it). With
// several warps a row, lane 0 leaves S_w and m_w in the row's slots now, so that no register
// holds them through the second pass; join_warp_moments reads them after its barrier. (The slots
// alternate with `parity`, and a warp reaches them only after the previous row's barrier, which
// every reader of the row before that has passed: no slot is overwritten while read.)
template <int M>
__device__ __forceinline__ float warp_mean(const WarpShare& share, float lane_sum,
                                           ReduceScratch<M>& scratch, int parity) {
  float s[1] = {lane_sum};
  warp_sum(s);
  const float mean = s[0] * share.inv_count;
  if (blockDim.x > 32 && (threadIdx.x & 31) == 0) {
    float* mine = moment_slots(scratch, parity)[threadIdx.x >> 5];
    mine[0] = s[0];
    mine[1] = mean;
  }
  return mean;
}

// The second pass's end: joins the warps' moments over the row group (a block row, or one warp:
// blockDim.x <= 32, no barrier, the warp's own moments). lane_m2: this lane's squared deviations
// from the warp's mean (warp_mean, with the same scratch and parity). Must be reached by every
// thread of the block when blockDim.x > 32.
template <int M>
__device__ __forceinline__ RowMoments join_warp_moments(float warp_mean, float lane_m2,
                                                        ReduceScratch<M>& scratch, int& parity,
                                                        int d) {
  float q[1] = {lane_m2};
  warp_sum(q);
  if (blockDim.x <= 32) return RowMoments{warp_mean, q[0]};  // n_w = d: m_w is the row's mean
  const int lane = threadIdx.x & 31;
  const int warps = blockDim.x >> 5;
  float (*slots)[M] = moment_slots(scratch, parity);
  parity ^= 1;
  if (lane == 0) slots[threadIdx.x >> 5][3] = q[0];
  __syncthreads();
  const bool held = lane < warps;
  float total[1] = {held ? slots[lane][0] : 0.f};
  warp_sum(total);
  const float mean = mean_of(total[0], d);
  const float dev = held ? slots[lane][1] - mean : 0.f;
  float m2[1] = {held ? fmaf(slots[lane][2] * dev, dev, slots[lane][3]) : 0.f};
  warp_sum(m2);
  return RowMoments{mean, m2[0]};
}

}  // namespace norm
}  // namespace ladder
