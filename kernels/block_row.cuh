// Rows one a block, held in fp32 registers: RMSNorm, fused residual add + RMSNorm and LayerNorm
// forward for rows of up to THREADS x ITEMS 16-byte chunks, with as few instructions a row as
// the arithmetic allows. The block width is a template parameter, so chunk i of a thread sits a
// constant i * THREADS * 16 bytes past its first one (an immediate offset, no address
// arithmetic); which chunks fall inside the row is fixed per thread before the first row; the
// row stays in fp32 registers between the passes (nothing is unpacked twice); and the weights'
// cases are separate copies of the last pass, chosen once a row.
// Measured on the H200 (call 112, reports/h200/bench-block-row.txt): add_rmsnorm bf16 512x32768
// 8.3 M warp instructions against the register kernel's 12.7 M, 39.5 us cold against 41.1.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "add_rmsnorm.cuh"
#include "norm_common.cuh"
#include "staged_common.cuh"

namespace ladder {
namespace norm {

// One thread's place in a row-a-block launch: its chunk i covers columns column(i) ..
// column(i) + VEC - 1. A launch whose block is not THREADS x 1, or too narrow for the row, traps
// (a crash the harness reports) rather than leaving columns unwritten.
template <typename T, int ITEMS, int THREADS>
struct BlockRow {
  static constexpr int kVec = Elem<T>::kVec;
  int tx;
  bool inside[ITEMS];  // whether chunk i starts inside the row: the same for every row

  __device__ __forceinline__ explicit BlockRow(int d) {
    if (blockDim.x != THREADS || blockDim.y != 1 ||
        static_cast<long long>(THREADS) * ITEMS * kVec < d)
      __trap();
    tx = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) inside[i] = column(i) < d;
  }
  __device__ __forceinline__ int column(int i) const { return (i * THREADS + tx) * kVec; }

  // Every row of a tensor on the 16-byte grid: the base and the stride.
  static __device__ __forceinline__ bool on_grid(const void* p, int stride) {
    return offset_in_chunk(p) == 0 && stride % kVec == 0;
  }
  // A weight that can be staged: on the grid, with room for `copies` weights of d / VEC chunks.
  static __device__ __forceinline__ bool stageable(const T* w, int d, int copies) {
    return w != nullptr && offset_in_chunk(w) == 0 &&
           dynamic_shared_bytes() >= static_cast<unsigned>(copies * (d / kVec)) * kChunkBytes;
  }
  // Starts the copies of this thread's weight chunks (the ones it reads later, so no barrier).
  __device__ __forceinline__ void stage(const T* w, uint4* shared) const {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (inside[i]) cp_async16(shared + i * THREADS + tx, w + column(i));
  }
  // The thread's chunks of a row on the grid; zero outside the row. Read under the L2 keep policy,
  // as the other single reads are (global_loads.cuh): behind the dirty lines of earlier work the
  // normal-priority reads measured slower (call 243, H100, a240.sh: add_rmsnorm 16-bit
  // 512-1024 x 32768 1.2-1.7% faster cold with it, fp32 level).
  __device__ __forceinline__ void load(const T* row, uint4 (&out)[ITEMS]) const {
    const uint4* p = reinterpret_cast<const uint4*>(row) + tx;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      out[i] = inside[i] ? load16<Load::Keep>(p + i * THREADS) : make_uint4(0u, 0u, 0u, 0u);
  }
  __device__ __forceinline__ void store(T* row, int i, const float (&v)[kVec]) const {
    reinterpret_cast<uint4*>(row)[i * THREADS + tx] = Elem<T>::pack(v);
  }
  // Element by element, for rows off the grid: zero outside the row.
  __device__ __forceinline__ float element(const T* row, int i, int e, int d) const {
    const int c = column(i) + e;
    return c < d ? Elem<T>::to_float(row[c]) : 0.f;
  }
  __device__ __forceinline__ void store_elements(T* row, int i, int d,
                                                 const float (&v)[kVec]) const {
#pragma unroll
    for (int e = 0; e < kVec; ++e)
      if (column(i) + e < d) row[column(i) + e] = Elem<T>::from_float(v[e]);
  }
};

// The blocks an SM the launch bound asks for: 4096 / (THREADS x ITEMS), at least one. That caps
// registers at 128 for ITEMS 8 (the row's 64 fp32 values) and 64 for ITEMS 4.
__host__ __device__ constexpr int row_blocks_per_sm(int threads, int items) {
  return 4096 / (threads * items) > 0 ? 4096 / (threads * items) : 1;
}

// The RMSNorm weight's three cases, each a copy of the last pass without per-chunk tests.
enum class RowWeight { None, Plain, Gemma };

__device__ __forceinline__ RowWeight row_weight(const void* w, float w_offset) {
  return w == nullptr ? RowWeight::None : w_offset == 0.f ? RowWeight::Plain : RowWeight::Gemma;
}

// The last RMSNorm pass on the grid: y = v * inv_rms * (w + w_offset), the weight staged at
// `staged` (this thread's chunk i at staged[i * THREADS + tx]). The product's order is
// scale_by_weight's.
template <typename T, int ITEMS, int THREADS, RowWeight WEIGHT>
__device__ __forceinline__ void rms_scale_and_store(const BlockRow<T, ITEMS, THREADS>& br,
                                                    float (&v)[ITEMS][Elem<T>::kVec],
                                                    float inv_rms, const uint4* staged, T* y,
                                                    float w_offset) {
  constexpr int kVec = Elem<T>::kVec;
  if constexpr (WEIGHT != RowWeight::None) cp_async_wait<0>();
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (!br.inside[i]) continue;
    if constexpr (WEIGHT == RowWeight::None) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v[i][e] *= inv_rms;
    } else {
      float wv[kVec];
      Elem<T>::unpack(staged[i * THREADS + br.tx], wv);
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        v[i][e] = v[i][e] * inv_rms * (WEIGHT == RowWeight::Gemma ? wv[e] + w_offset : wv[e]);
    }
    br.store(y, i, v[i]);
  }
}

template <typename T, int ITEMS, int THREADS>
__device__ __forceinline__ void rms_scale_and_store(const BlockRow<T, ITEMS, THREADS>& br,
                                                    float (&v)[ITEMS][Elem<T>::kVec],
                                                    float inv_rms, const uint4* staged, T* y,
                                                    RowWeight weight, float w_offset) {
  if (weight == RowWeight::None)
    rms_scale_and_store<T, ITEMS, THREADS, RowWeight::None>(br, v, inv_rms, staged, y, 0.f);
  else if (weight == RowWeight::Plain)
    rms_scale_and_store<T, ITEMS, THREADS, RowWeight::Plain>(br, v, inv_rms, staged, y, 0.f);
  else
    rms_scale_and_store<T, ITEMS, THREADS, RowWeight::Gemma>(br, v, inv_rms, staged, y, w_offset);
}

// The same off the grid, element by element.
template <typename T, int ITEMS, int THREADS>
__device__ __forceinline__ void rms_scale_and_store_elements(
    const BlockRow<T, ITEMS, THREADS>& br, float (&v)[ITEMS][Elem<T>::kVec], float inv_rms,
    const T* w, T* y, int d, float w_offset) {
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) {
      v[i][e] *= inv_rms;
      if (w != nullptr) v[i][e] *= br.element(w, i, e, d) + w_offset;
    }
    br.store_elements(y, i, d, v[i]);
  }
}

}  // namespace norm

// The kernels below share a launch: block (THREADS, 1, 1) with THREADS * ITEMS * VEC >= d (else
// they trap); grid: rows (fewer blocks stride over the rest); dynamic shared memory stages the
// weights, d / VEC * 16 bytes each. The fast path needs every row pointer and stride on the
// 16-byte grid, d a whole number of chunks, and the weights staged (or absent); any other launch
// runs element by element: correct, not fast (the planner never asks for it). The launch bound
// is norm::row_blocks_per_sm's: at most 128 registers at ITEMS 8, 64 at ITEMS 4.

// Same arguments, results and aliasing as rmsnorm_fwd (rmsnorm.cuh).
template <typename T, int ITEMS, int THREADS>
__global__ void __launch_bounds__(THREADS, norm::row_blocks_per_sm(THREADS, ITEMS))
    rmsnorm_fwd_row(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                    int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  using Row = norm::BlockRow<T, ITEMS, THREADS>;
  const Row br(d);
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_memory[];
  const bool fast = d % kVec == 0 && Row::on_grid(x, x_stride) && Row::on_grid(y, y_stride) &&
                    (w == nullptr || Row::stageable(w, d, 1));
  if (fast && w != nullptr) {
    br.stage(w, weight_memory);
    norm::cp_async_commit();
  }
  const norm::RowWeight weight = norm::row_weight(w, w_offset);
  int parity = 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * x_stride;
    T* yr = y + row * y_stride;
    float v[ITEMS][kVec];
    float sum_sq = 0.f;
    if (fast) {
      uint4 xs[ITEMS];
      br.load(xr, xs);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) E::unpack(xs[i], v[i]);
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[i][e] = br.element(xr, i, e, d);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum_sq = fmaf(v[i][e], v[i][e], sum_sq);
    const float inv_rms = norm::row_inv_rms(sum_sq, scratch, parity, d, eps, rstd, row, true);
    if (fast)
      norm::rms_scale_and_store(br, v, inv_rms, weight_memory, yr, weight, w_offset);
    else
      norm::rms_scale_and_store_elements(br, v, inv_rms, w, yr, d, w_offset);
  }
}

// Same arguments, results and aliasing as add_rmsnorm_fwd (add_rmsnorm.cuh). The sum h = x + r
// stays in fp32 between the passes (16-bit x and r packed take as many registers).
template <typename T, int ITEMS, bool ROUND_SUM, int THREADS>
__global__ void __launch_bounds__(THREADS, norm::row_blocks_per_sm(THREADS, ITEMS))
    add_rmsnorm_fwd_row(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                        int d, int x_stride, int r_stride, int h_stride, int y_stride, float eps,
                        float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  using Row = norm::BlockRow<T, ITEMS, THREADS>;
  const Row br(d);
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_memory[];
  const bool fast = d % kVec == 0 && Row::on_grid(x, x_stride) && Row::on_grid(r, r_stride) &&
                    Row::on_grid(h, h_stride) && Row::on_grid(y, y_stride) &&
                    (w == nullptr || Row::stageable(w, d, 1));
  if (fast && w != nullptr) {
    br.stage(w, weight_memory);
    norm::cp_async_commit();
  }
  const norm::RowWeight weight = norm::row_weight(w, w_offset);
  int parity = 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * x_stride;
    const T* rr = r + row * r_stride;
    T* hr = h + row * h_stride;
    T* yr = y + row * y_stride;
    float s[ITEMS][kVec];
    float sum_sq = 0.f;
    if (fast) {
      // Every load before the first store: h may alias r.
      uint4 xs[ITEMS], rs[ITEMS];
      br.load(xr, xs);
      br.load(rr, rs);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], s[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum_sq = fmaf(s[i][e], s[i][e], sum_sq);
        if (br.inside[i]) br.store(hr, i, s[i]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          s[i][e] = br.element(xr, i, e, d) + br.element(rr, i, e, d);
          if (ROUND_SUM) s[i][e] = E::to_float(E::from_float(s[i][e]));
          sum_sq = fmaf(s[i][e], s[i][e], sum_sq);
        }
      }
      // All of the thread's reads first (h may alias r), then its stores.
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) br.store_elements(hr, i, d, s[i]);
    }
    const float inv_rms = norm::row_inv_rms(sum_sq, scratch, parity, d, eps, rstd, row, true);
    if (fast)
      norm::rms_scale_and_store(br, s, inv_rms, weight_memory, yr, weight, w_offset);
    else
      norm::rms_scale_and_store_elements(br, s, inv_rms, w, yr, d, w_offset);
  }
}

// Same arguments, results and aliasing as layernorm_fwd (layernorm.cuh): the exact two-pass
// variance, from the row's fp32 registers. gamma and beta are staged one after the other (2 x
// d / VEC * 16 bytes of dynamic shared memory); the fast path takes both or neither.
template <typename T, int ITEMS, int THREADS>
__global__ void __launch_bounds__(THREADS, norm::row_blocks_per_sm(THREADS, ITEMS))
    layernorm_fwd_row(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                      int rows, int d, int x_stride, int y_stride, float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  using Row = norm::BlockRow<T, ITEMS, THREADS>;
  const Row br(d);
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_memory[];
  const bool affine = gamma != nullptr && beta != nullptr;
  const bool fast = d % kVec == 0 && Row::on_grid(x, x_stride) && Row::on_grid(y, y_stride) &&
                    ((gamma == nullptr && beta == nullptr) ||
                     (Row::stageable(gamma, d, 2) && Row::stageable(beta, d, 2)));
  const uint4* gamma_staged = weight_memory;
  const uint4* beta_staged = weight_memory + d / kVec;
  if (fast && affine) {
    br.stage(gamma, weight_memory);
    br.stage(beta, weight_memory + d / kVec);
    norm::cp_async_commit();
  }
  int parity = 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * x_stride;
    T* yr = y + row * y_stride;
    float v[ITEMS][kVec];
    float acc[1] = {0.f};
    if (fast) {
      uint4 xs[ITEMS];
      br.load(xr, xs);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) E::unpack(xs[i], v[i]);
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[i][e] = br.element(xr, i, e, d);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[0] += v[i][e];
    norm::row_group_sum<true, THREADS>(acc, scratch, parity);
    const float mu = norm::mean_of(acc[0], d);
    // Columns outside the row hold 0, which is not the mean: leave them out of the deviations.
    acc[0] = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (fast && !br.inside[i]) continue;
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float dev = fast || br.column(i) + e < d ? v[i][e] - mu : 0.f;
        acc[0] = fmaf(dev, dev, acc[0]);
      }
    }
    norm::row_group_sum<true, THREADS>(acc, scratch, parity);
    const float inv_std = rsqrtf(norm::mean_of(acc[0], d) + eps);
    const norm::Standardize<T> standardize(mu, inv_std);
    if (threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }
    if (fast && affine) {
      norm::cp_async_wait<0>();
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (!br.inside[i]) continue;
        float g[kVec], b[kVec];
        E::unpack(gamma_staged[i * THREADS + br.tx], g);
        E::unpack(beta_staged[i * THREADS + br.tx], b);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[i][e] = fmaf(standardize(v[i][e]), g[e], b[e]);
        br.store(yr, i, v[i]);
      }
    } else if (fast) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (!br.inside[i]) continue;
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[i][e] = standardize(v[i][e]);
        br.store(yr, i, v[i]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          v[i][e] = standardize(v[i][e]);
          if (gamma != nullptr) v[i][e] *= br.element(gamma, i, e, d);
          if (beta != nullptr) v[i][e] += br.element(beta, i, e, d);
        }
        br.store_elements(yr, i, d, v[i]);
      }
    }
  }
}

}  // namespace ladder
