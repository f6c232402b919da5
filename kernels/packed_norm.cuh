// The packed-span schedule of the forward kernels (packed_common.cuh): RMSNorm, fused add +
// RMSNorm and LayerNorm for contiguous tensors, rows normalized in shared memory.
// Geometry and ABI: kernels/README.md.
#pragma once
#include "add_rmsnorm.cuh"
#include "packed_common.cuh"

namespace ladder {

// Same arguments, results and aliasing as rmsnorm_fwd, plus span_rows (the launch contract in
// packed_common.cuh). Launch: block (TPR, RPB); row group y of a block takes rows y, y + RPB, ...
// of each span; dynamic shared memory span_rows * d * sizeof(T); any grid (blocks walk the
// spans). ITEMS: chunks a thread holds; one tile must cover the row (TPR * ITEMS * VEC >= d, else
// the kernel traps): a row's chunks are all read before any is written back, which keeps each
// thread's reads of its neighbours' bytes (span_row_load) apart from their writes.
// y may be x: a span is read whole before any of it is written back.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(1024)
    rmsnorm_fwd_packed(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                       int y_stride, float eps, float w_offset, int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 span_memory[];
  T* span = reinterpret_cast<T*>(span_memory);
  {
    const void* tensors[2] = {x, y};
    const int strides[2] = {x_stride, y_stride};
    norm::trap_unless_packed<T>(tensors, strides, span_rows, d, 1);
  }
  const bool w_vec = norm::offset_in_chunk(w) == 0;
  norm::trap_unless_one_tile<T, ITEMS>(d, 0);
  int parity = 0;
  const norm::SpanLoop loop(span_rows);
  for (long long first = loop.first; first < rows; first += loop.step) {
    const int n = static_cast<int>(rows - first < span_rows ? rows - first : span_rows);
    norm::span_copy_in(span, x + first * d, n * d);
    norm::span_landed();
    for (int k = threadIdx.y; k < span_rows; k += blockDim.y) {
      const bool active = k < n;  // rows past the last only join the reductions
      const int cols = active ? d : 0;
      const norm::SpanRow<T> row(span, k, d);
      uint4 xs[ITEMS];
      float sum = 0.f;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        xs[i] = norm::span_row_load(row, norm::chunk_column<T, ITEMS>(0, i, 0), cols);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float f[kVec];
        E::unpack(xs[i], f);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum = fmaf(f[e], f[e], sum);
      }
      const float inv_rms =
          norm::row_inv_rms(sum, scratch, parity, d, eps, rstd, first + k, active);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(0, i, 0);
        if (c0 >= cols) continue;
        float v[kVec];
        E::unpack(xs[i], v);
        const uint4 w_raw =
            w == nullptr ? make_uint4(0u, 0u, 0u, 0u)
                         : norm::load_chunk_packed<T, norm::Load::ReadOnly>(w, c0, d, w_vec);
        norm::scale_by_rms<T>(v, inv_rms, w != nullptr, w_raw, w_offset);
        norm::span_row_store(row, c0, cols, v);
      }
    }
    __syncthreads();
    norm::span_copy_out(y + first * d, span, n * d);
  }
}

// Same arguments, results and aliasing as add_rmsnorm_fwd, plus span_rows; launch as
// rmsnorm_fwd_packed (one tile covers the row) with 2 * span_rows * d * sizeof(T) bytes of dynamic shared memory (x's span,
// then r's). h is written over r's copy and y over x's, each element by the thread that read it,
// after its last read: h may be r and y may be x.
template <typename T, int ITEMS, bool ROUND_SUM>
__global__ void __launch_bounds__(1024)
    add_rmsnorm_fwd_packed(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                           int d, int x_stride, int r_stride, int h_stride, int y_stride,
                           float eps, float w_offset, int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 span_memory[];
  T* x_span = reinterpret_cast<T*>(span_memory);
  T* r_span = x_span + static_cast<long long>(span_rows) * d;
  {
    const void* tensors[4] = {x, r, h, y};
    const int strides[4] = {x_stride, r_stride, h_stride, y_stride};
    norm::trap_unless_packed<T>(tensors, strides, span_rows, d, 2);
  }
  const bool w_vec = norm::offset_in_chunk(w) == 0;
  norm::trap_unless_one_tile<T, ITEMS>(d, 0);
  int parity = 0;
  const norm::SpanLoop loop(span_rows);
  for (long long first = loop.first; first < rows; first += loop.step) {
    const int n = static_cast<int>(rows - first < span_rows ? rows - first : span_rows);
    norm::span_copy_in(x_span, x + first * d, n * d);
    norm::span_copy_in(r_span, r + first * d, n * d);
    norm::span_landed();
    for (int k = threadIdx.y; k < span_rows; k += blockDim.y) {
      const bool active = k < n;
      const int cols = active ? d : 0;
      const norm::SpanRow<T> xrow(x_span, k, d), rrow(r_span, k, d);
      uint4 xs[ITEMS], rs[ITEMS];
      float sum = 0.f;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(0, i, 0);
        xs[i] = norm::span_row_load(xrow, c0, cols);
        rs[i] = norm::span_row_load(rrow, c0, cols);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float sv[kVec];
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum = fmaf(sv[e], sv[e], sum);
      }
      const float inv_rms =
          norm::row_inv_rms(sum, scratch, parity, d, eps, rstd, first + k, active);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(0, i, 0);
        if (c0 >= cols) continue;
        float sv[kVec];
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
        norm::span_row_store(rrow, c0, cols, sv);  // h
        const uint4 w_raw =
            w == nullptr ? make_uint4(0u, 0u, 0u, 0u)
                         : norm::load_chunk_packed<T, norm::Load::ReadOnly>(w, c0, d, w_vec);
        norm::scale_by_rms<T>(sv, inv_rms, w != nullptr, w_raw, w_offset);
        norm::span_row_store(xrow, c0, cols, sv);  // y
      }
    }
    __syncthreads();
    norm::span_copy_out(h + first * d, r_span, n * d);
    norm::span_copy_out(y + first * d, x_span, n * d);
  }
}

// Same arguments, results and aliasing as layernorm_fwd, plus span_rows; launch as
// rmsnorm_fwd_packed. The same two-pass statistics as layernorm_fwd (mean, then the sum of
// squared deviations); columns outside the row are left out of the second.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(1024)
    layernorm_fwd_packed(T* y, const T* x, const T* gamma, const T* beta, float* mean,
                         float* rstd, int rows, int d, int x_stride, int y_stride, float eps,
                         int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 span_memory[];
  T* span = reinterpret_cast<T*>(span_memory);
  {
    const void* tensors[2] = {x, y};
    const int strides[2] = {x_stride, y_stride};
    norm::trap_unless_packed<T>(tensors, strides, span_rows, d, 1);
  }
  const bool gamma_vec = norm::offset_in_chunk(gamma) == 0;
  const bool beta_vec = norm::offset_in_chunk(beta) == 0;
  norm::trap_unless_one_tile<T, ITEMS>(d, 0);
  int parity = 0;
  const norm::SpanLoop loop(span_rows);
  for (long long first = loop.first; first < rows; first += loop.step) {
    const int n = static_cast<int>(rows - first < span_rows ? rows - first : span_rows);
    norm::span_copy_in(span, x + first * d, n * d);
    norm::span_landed();
    for (int k = threadIdx.y; k < span_rows; k += blockDim.y) {
      const bool active = k < n;
      const int cols = active ? d : 0;
      const norm::SpanRow<T> row(span, k, d);
      uint4 xs[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        xs[i] = norm::span_row_load(row, norm::chunk_column<T, ITEMS>(0, i, 0), cols);
      float acc[1] = {0.f};
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float v[kVec];
        E::unpack(xs[i], v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] += v[e];
      }
      norm::row_group_sum<true>(acc, scratch, parity);
      const float mu = norm::mean_of(acc[0], d);
      acc[0] = 0.f;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(0, i, 0);
        float v[kVec];
        E::unpack(xs[i], v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float dev = c0 + e < cols ? v[e] - mu : 0.f;
          acc[0] = fmaf(dev, dev, acc[0]);
        }
      }
      norm::row_group_sum<true>(acc, scratch, parity);
      const float inv_std = rsqrtf(norm::mean_of(acc[0], d) + eps);
      if (active && threadIdx.x == 0) {
        if (mean != nullptr) mean[first + k] = mu;
        if (rstd != nullptr) rstd[first + k] = inv_std;
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(0, i, 0);
        if (c0 >= cols) continue;
        float v[kVec];
        E::unpack(xs[i], v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] = (v[e] - mu) * inv_std;
        if (gamma != nullptr) {
          float g[kVec];
          E::unpack(norm::load_chunk_packed<T, norm::Load::ReadOnly>(gamma, c0, d, gamma_vec), g);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] *= g[e];
        }
        if (beta != nullptr) {
          float b[kVec];
          E::unpack(norm::load_chunk_packed<T, norm::Load::ReadOnly>(beta, c0, d, beta_vec), b);
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] += b[e];
        }
        norm::span_row_store(row, c0, cols, v);
      }
    }
    __syncthreads();
    norm::span_copy_out(y + first * d, span, n * d);
  }
}

}  // namespace ladder
