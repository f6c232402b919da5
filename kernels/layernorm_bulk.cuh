// LayerNorm forward with its rows copied whole into shared memory by the Tensor Memory
// Accelerator (bulk_copy.cuh), several rows ahead of the one being normalized.
//
// Why: the row-a-block kernel (block_row.cuh) holds its row in registers, so an SM has at most
// two rows in flight and reads nothing while a row is reduced and written; the streamed kernel
// (layernorm_loop.cuh) keeps many rows in flight but reads each one three times. Here a block
// walks rows blockIdx.x, + gridDim.x, ... with STAGES rows in shared memory: one thread starts
// each row's copy with a single instruction, the copies of the rows ahead land while the block
// works, and every thread reads its chunks of the current row into registers once. The two
// statistics are exact two-pass (the sum, then the squared deviations), from registers.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh, stream_row.cuh, bulk_copy.cuh.
#pragma once
#include "bulk_copy.cuh"
#include "norm_common.cuh"
#include "stream_row.cuh"

namespace ladder {

namespace norm {
// The same value, hidden from the optimizer, so that a loop-invariant widening of packed weights
// is redone in each row rather than hoisted (16-bit weights widened once for the whole loop
// would double their registers and spill).
__device__ __forceinline__ uint4 opaque(uint4 u) {
  asm volatile("" : "+r"(u.x), "+r"(u.y), "+r"(u.z), "+r"(u.w));
  return u;
}

// One row, element by element, straight from global memory: the path for launches the bulk
// copies cannot serve (pointers or strides off the 16-byte grid, d not a whole number of chunks,
// too little shared memory, or a device before sm_90). Correct and slow.
template <typename T, int THREADS>
__device__ __forceinline__ void layernorm_row_elementwise(T* yr, const T* xr, const T* gamma,
                                                          const T* beta, float* mean, float* rstd,
                                                          long long row, int d, float eps,
                                                          ReduceScratch<1>& scratch, int& parity) {
  using E = Elem<T>;
  const int tx = static_cast<int>(threadIdx.x);
  float acc[1] = {0.f};
  for (int c = tx; c < d; c += THREADS) acc[0] += E::to_float(xr[c]);
  row_group_sum<true, THREADS>(acc, scratch, parity);
  const float mu = mean_of(acc[0], d);
  acc[0] = 0.f;
  for (int c = tx; c < d; c += THREADS) {
    const float dev = E::to_float(xr[c]) - mu;
    acc[0] = fmaf(dev, dev, acc[0]);
  }
  row_group_sum<true, THREADS>(acc, scratch, parity);
  const float inv_std = rsqrtf(mean_of(acc[0], d) + eps);
  const norm::Standardize<T> standardize(mu, inv_std);
  if (tx == 0) {
    if (mean != nullptr) mean[row] = mu;
    if (rstd != nullptr) rstd[row] = inv_std;
  }
  for (int c = tx; c < d; c += THREADS) {
    float o = standardize(E::to_float(xr[c]));
    if (gamma != nullptr) o *= E::to_float(gamma[c]);
    if (beta != nullptr) o += E::to_float(beta[c]);
    yr[c] = E::from_float(o);
  }
}
}  // namespace norm

// THREADS: the block, one row at a time (32-1024, a multiple of 32); thread tx holds chunks
// tx + i * THREADS, i < ITEMS, so THREADS * ITEMS * VEC >= d on the bulk path (else it traps).
// Dynamic shared memory: STAGES * d * sizeof(T) bytes, STAGES = 1..8 (the launch's size picks it).
// The grid is any number of blocks; block b takes rows b, b + gridDim.x, ...
// gamma, beta: nullable. mean, rstd: nullable fp32 per row. Aliasing: y may be x (same stride):
// a row's copy into shared memory has landed before any of its outputs is written, and a copy
// in flight is always of a row ahead.
template <typename T, int ITEMS, int THREADS>
__global__ void __launch_bounds__(THREADS, THREADS <= 1024 / 2 ? 1024 / THREADS : 1)
    layernorm_fwd_bulk(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                       int rows, int d, int x_stride, int y_stride, float eps) {
  static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "THREADS");
  static_assert(ITEMS >= 1 && ITEMS <= 4, "ITEMS");
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  __shared__ alignas(8) unsigned long long landed[norm::kMaxBulkStages];
  extern __shared__ uint4 stage_chunks[];
  if (blockDim.x != THREADS || blockDim.y != 1) __trap();
  int parity = 0;
  const int tx = static_cast<int>(threadIdx.x);
  const unsigned row_bytes = static_cast<unsigned>(d) * sizeof(T);
  const int stages = norm::bulk_stages_in_launch(row_bytes, 1);
  const bool bulk = LADDER_BULK_COPY && stages >= 1 &&
                    norm::stream_vec_ok(x, x_stride, y, y_stride, d, gamma, beta);
  if (!bulk) {
    for (long long row = blockIdx.x; row < rows; row += gridDim.x)
      norm::layernorm_row_elementwise<T, THREADS>(y + row * static_cast<long long>(y_stride),
                                                  x + row * static_cast<long long>(x_stride), gamma,
                                                  beta, mean, rstd, row, d, eps, scratch, parity);
    return;
  }
#if LADDER_BULK_COPY
  // Whether a thread keeps its chunks of the row in registers across the passes (which frees the
  // stage after the first): everywhere but 16-bit ITEMS 4, where the row's 16 registers beside
  // the weights' 32 spill under the 64 a 1024-thread block allows (ptxas, sm_90).
  constexpr bool kHoldRow = sizeof(T) == 4 || ITEMS <= 2;
  const int chunks = d / kVec;
  if (static_cast<long long>(THREADS) * ITEMS < chunks) __trap();
  bool inside[ITEMS];
  uint4 g[ITEMS], b[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c = i * THREADS + tx;
    inside[i] = c < chunks;
    g[i] = inside[i] && gamma != nullptr ? __ldg(reinterpret_cast<const uint4*>(gamma) + c)
                                         : make_uint4(0u, 0u, 0u, 0u);
    b[i] = inside[i] && beta != nullptr ? __ldg(reinterpret_cast<const uint4*>(beta) + c)
                                        : make_uint4(0u, 0u, 0u, 0u);
  }
  auto start_copy = [&](int k) {  // the block's k-th row into stage k % stages
    const long long row = blockIdx.x + static_cast<long long>(k) * gridDim.x;
    if (row >= rows) return;
    const int s = k % stages;
    norm::bulk_copy_row(stage_chunks + static_cast<long long>(s) * chunks,
                        x + row * static_cast<long long>(x_stride), row_bytes, &landed[s]);
  };
  if (tx == 0) {
    for (int s = 0; s < stages; ++s) norm::bulk_barrier_init(&landed[s], 1);
    norm::bulk_barrier_init_fence();
    for (int k = 0; k < stages; ++k) start_copy(k);
  }
  __syncthreads();
  int k = 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x, ++k) {
    const int s = k % stages;
    norm::bulk_wait(&landed[s], static_cast<unsigned>(k / stages) & 1u);
    const uint4* staged = stage_chunks + static_cast<long long>(s) * chunks;
    // The row stays packed in registers (16-bit: half the registers of fp32 values) and is
    // widened again in each pass; where even that spills (kHoldRow false) each pass reads it
    // from its stage again.
    uint4 u[ITEMS];
    float acc[1] = {0.f};
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      u[i] = inside[i] ? staged[i * THREADS + tx] : make_uint4(0u, 0u, 0u, 0u);
      float v[kVec];
      E::unpack(u[i], v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[0] += v[e];
    }
    auto chunk = [&](int i) { return kHoldRow ? u[i] : staged[i * THREADS + tx]; };
    norm::row_group_sum<true, THREADS>(acc, scratch, parity);
    // Every thread has read its chunks of the stage it no longer needs (the sum above needed
    // this row's; the last pass of the row before read that row's), and the sum's barrier (a warp
    // barrier for a one-warp block) orders those reads before this refill.
    if (tx == 0) {
      norm::bulk_reuse_fence();
      if (kHoldRow)
        start_copy(k + stages);
      else if (k > 0 && stages > 1)
        start_copy(k - 1 + stages);
    }
    const float mu = norm::mean_of(acc[0], d);
    acc[0] = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float v[kVec];
      E::unpack(chunk(i), v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float dev = v[e] - mu;
        acc[0] = fmaf(dev, dev, acc[0]);
      }
    }
    norm::row_group_sum<true, THREADS>(acc, scratch, parity);
    const float inv_std = rsqrtf(norm::mean_of(acc[0], d) + eps);
    const norm::Standardize<T> standardize(mu, inv_std);
    if (tx == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }
    T* yr = y + row * static_cast<long long>(y_stride);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float v[kVec], gv[kVec], bv[kVec];
      E::unpack(chunk(i), v);
      E::unpack(norm::opaque(g[i]), gv);
      E::unpack(norm::opaque(b[i]), bv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        float o = standardize(v[e]);
        if (gamma != nullptr) o *= gv[e];
        if (beta != nullptr) o += bv[e];
        v[e] = o;
      }
      __stcs(reinterpret_cast<uint4*>(yr) + i * THREADS + tx, E::pack(v));
    }
    // One stage that the passes read to the end: the next row can only follow them.
    if (!kHoldRow && stages == 1) {
      __syncthreads();
      if (tx == 0) {
        norm::bulk_reuse_fence();
        start_copy(k + 1);
      }
    }
  }
#endif
}

}  // namespace ladder
