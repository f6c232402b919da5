// The streamed kernels' rows held instead of streamed (rmsnorm_fwd_loop and layernorm_fwd_loop
// with HOLD > 0): where a row is at most HOLD 16-byte chunks a thread, each thread reads its
// chunks once, keeps them packed (four registers a chunk) and runs every pass over
// them, so the row leaves DRAM once and nothing is read again from L2 or L1.
//
// Why: a streamed row goes back to L2 or L1 once a pass after its first read. Measured on the
// H200 (calls 236-238, reports/h200/bench-held-236.txt, bench-policy-237.txt, bench-keep-238.txt):
// held rows tie the streamed kernels hot and lost cold until their reads took the L2 keep
// policy; kept, RMSNorm 16-bit rows of 128 chunks at 64 threads (two chunks each) took 67.7-67.8
// us cold at 65536x1024 against the two-rows-a-thread kernel's 69.5-69.6, and auto holds them
// there. At 512-2048 chunks the held RMSNorm ties the streamed one (68.2-69.2 against 68.1-69.3);
// the held LayerNorm spills at the streamed kernel's 40 registers and lost (81.8-83.0 us against
// 69.2-72.0; at 48 registers 69.4-75.7 hot, slower cold).
// Only the 16-byte path is held (rows and weights on the grid, d a whole number of chunks): the
// kernels take their streamed bodies for every other launch.
#pragma once
#include "norm_common.cuh"
#include "stream_row.cuh"

namespace ladder {
namespace norm {

// The thread slots an SM a held build's launch bound asks for (loop_min_blocks): the streamed
// kernel's (`streamed`) up to four chunks a thread, where the held row takes the registers its
// four chunks in flight took; 1024 beyond, for the chunks' 4 registers each.
__host__ __device__ constexpr int held_resident(int hold, int streamed) {
  return hold <= 4 ? streamed : 1024;
}

// Thread threadIdx.x's chunks of `row`, HOLD of them THREADS apart, read under the L2 keep
// policy (Load::Keep: evict-first reads measured 6-9% slower cold, call 237); zero past the
// row's `units` chunks.
template <int HOLD, int THREADS>
__device__ __forceinline__ void hold_row(const uint4* row, int units, uint4 (&held)[HOLD]) {
  const int tx = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int k = 0; k < HOLD; ++k)
    held[k] = tx + k * THREADS < units ? load16<Load::Keep>(row + tx + k * THREADS) : make_uint4(0u, 0u, 0u, 0u);
}

// Holds thread threadIdx.x's chunks of `row` (hold_row) and returns its values folded by
// `add(acc, value)` from 0. Chunks past the row hold zeros: `add` must leave acc as it is for 0.
template <typename T, int HOLD, int THREADS, class Add>
__device__ __forceinline__ float hold_row_sum(const T* row, int units, uint4 (&held)[HOLD], Add add) {
  hold_row<HOLD, THREADS>(reinterpret_cast<const uint4*>(row), units, held);
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < HOLD; ++k) {
    float v[Elem<T>::kVec];
    Elem<T>::unpack(held[k], v);
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) acc = add(acc, v[e]);
  }
  return acc;
}

// Whether a held launch may hold its rows: the 16-byte path, with at most HOLD chunks a thread.
template <int HOLD, int THREADS>
__device__ __forceinline__ bool row_fits_held(bool fast, int units) {
  return HOLD > 0 && fast && units <= HOLD * THREADS;
}

// RMSNorm's rows held (rmsnorm_loop.cuh, HOLD > 0). Arguments as rmsnorm_fwd_loop's; the caller
// has checked row_fits_held.
template <typename T, int THREADS, int HOLD>
__device__ __forceinline__ void rmsnorm_held_rows(T* y, const T* x, const T* w, float* rstd, int rows,
                                                  int d, int x_stride, int y_stride, float eps,
                                                  float w_offset, ReduceScratch<1>& scratch) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  int parity = 0;
  const int tx = static_cast<int>(threadIdx.x);
  const int units = d / kVec;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    uint4 held[HOLD];
    float sum_sq[1] = {hold_row_sum<T, HOLD, THREADS>(x + row * static_cast<long long>(x_stride), units, held,
                                                      [](float acc, float v) { return fmaf(v, v, acc); })};
    sum_sq[0] = stream_block_sum<THREADS>(sum_sq[0], scratch, parity);
    parity ^= 1;
    const float inv_rms = inv_rms_of(sum_sq[0], d, eps, rstd, row, true);
    uint4* yr = reinterpret_cast<uint4*>(y + row * static_cast<long long>(y_stride));
#pragma unroll
    for (int k = 0; k < HOLD; ++k) {
      const int c = tx + k * THREADS;
      if (c >= units) break;
      float v[kVec];
      E::unpack(held[k], v);
      if (w != nullptr) {
        float wv[kVec];
        E::unpack(__ldg(reinterpret_cast<const uint4*>(w) + c), wv);
        scale_by_weight(v, inv_rms, wv, w_offset);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] *= inv_rms;
      }
      __stcs(yr + c, E::pack(v));
    }
  }
}

// LayerNorm's rows held (layernorm_loop.cuh, HOLD > 0): the exact two-pass statistics (the sum,
// then the squared deviations from the mean, both over the held chunks), then the output.
// AFFINE: gamma and beta both given (the caller's test), so the output pass fuses them into one
// fma. Arguments as layernorm_fwd_loop's; the caller has checked row_fits_held.
template <typename T, int THREADS, int HOLD, bool AFFINE>
__device__ __forceinline__ void layernorm_held_rows(T* y, const T* x, const T* gamma, const T* beta,
                                                    float* mean, float* rstd, int rows, int d,
                                                    int x_stride, int y_stride, float eps,
                                                    ReduceScratch<1>& scratch) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  const int tx = static_cast<int>(threadIdx.x);
  const int units = d / kVec;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    uint4 held[HOLD];
    float acc[1] = {hold_row_sum<T, HOLD, THREADS>(x + row * static_cast<long long>(x_stride), units, held,
                                                   [](float acc, float v) { return acc + v; })};
    acc[0] = stream_block_sum<THREADS>(acc[0], scratch, 0);
    const float mu = mean_of(acc[0], d);
    acc[0] = 0.f;
#pragma unroll
    for (int k = 0; k < HOLD; ++k) {
      if (tx + k * THREADS >= units) break;  // past the row: a zero is not the mean
      float v[kVec];
      E::unpack(held[k], v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[0] = fmaf(v[e] - mu, v[e] - mu, acc[0]);
    }
    acc[0] = stream_block_sum<THREADS>(acc[0], scratch, 1);
    const float inv_std = rsqrtf(mean_of(acc[0], d) + eps);
    const norm::Standardize<T> standardize(mu, inv_std);
    if (tx == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }
    uint4* yr = reinterpret_cast<uint4*>(y + row * static_cast<long long>(y_stride));
#pragma unroll
    for (int k = 0; k < HOLD; ++k) {
      const int c = tx + k * THREADS;
      if (c >= units) break;
      float v[kVec];
      E::unpack(held[k], v);
      if (AFFINE) {
        float g[kVec], b[kVec];
        E::unpack(__ldg(reinterpret_cast<const uint4*>(gamma) + c), g);
        E::unpack(__ldg(reinterpret_cast<const uint4*>(beta) + c), b);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] = fmaf(standardize(v[e]), g[e], b[e]);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] = standardize(v[e]);
        if (gamma != nullptr) {
          float g[kVec];
          E::unpack(__ldg(reinterpret_cast<const uint4*>(gamma) + c), g);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] *= g[e];
        }
        if (beta != nullptr) {
          float b[kVec];
          E::unpack(__ldg(reinterpret_cast<const uint4*>(beta) + c), b);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] += b[e];
        }
      }
      __stcs(yr + c, E::pack(v));
    }
  }
}

}  // namespace norm
}  // namespace ladder
