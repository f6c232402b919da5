// The packed-span schedule of the forward kernels (packed_common.cuh): RMSNorm, fused add +
// RMSNorm and LayerNorm for packed rows, each block taking span_rows rows as one flat array.
// Geometry and ABI: kernels/README.md.
#pragma once
#include "add_rmsnorm.cuh"
#include "packed_common.cuh"

namespace ladder {
namespace norm {

// The shared-memory parts of a packed block (PackedLayout), as pointers.
template <typename T, int WEIGHTS>
struct PackedParts {
  T* weights;  // WEIGHTS x VEC shifted copies of padded_d elements
  float* partial;
  float* carry;
  float* stats;
  __device__ __forceinline__ PackedParts(void* memory, const PackedLayout<T, WEIGHTS>& layout) {
    char* base = static_cast<char*>(memory);
    weights = reinterpret_cast<T*>(base);
    partial = reinterpret_cast<float*>(base + layout.partial_offset());
    carry = reinterpret_cast<float*>(base + layout.carry_offset());
    stats = reinterpret_cast<float*>(base + layout.stats_offset());
  }
};

// Records one chunk's sums (values already squared or centred as the statistic needs).
template <int N>
__device__ __forceinline__ void record_chunk(const float (&f)[N], int c, int row, int col, int d,
                                             float* partial, float* carry) {
  float first, next;
  split_sums(f, col, d, first, next);
  partial[c] = first;
  if (col + N > d) carry[row + 1] = next;
}

}  // namespace norm

// Same arguments, results and aliasing as rmsnorm_fwd, plus span_rows (the launch contract in
// packed_common.cuh). Launch: a 1-D block of NT threads (whole warps) with NT * ITEMS >=
// span_rows * d / VEC; norm::PackedLayout<T, 1>::bytes() of dynamic shared memory; any grid
// (blocks walk the spans). y may be x: every thread loads its chunks of a span before the
// block's first barrier and stores them after it.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(1024, 1)
    rmsnorm_fwd_packed(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                       int y_stride, float eps, float w_offset, int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  extern __shared__ uint4 packed_memory[];
  const norm::PackedLayout<T, 1> layout(d, span_rows);
  {
    const void* tensors[2] = {x, y};
    const int strides[2] = {x_stride, y_stride};
    norm::trap_unless_packed<T, ITEMS>(layout, tensors, strides);
  }
  const norm::PackedParts<T, 1> parts(packed_memory, layout);
  if (w != nullptr) norm::fill_shifted_copies(parts.weights, w, d, layout.padded_d);
  const norm::SpanWalk walk(d, kVec);
  const int nt = norm::block_threads(), t = norm::block_thread();
  const int warp = t >> 5, warps = nt >> 5;
  const norm::SpanLoop loop(span_rows);
  for (long long first = loop.first; first < rows; first += loop.step) {
    const int n = static_cast<int>(rows - first < span_rows ? rows - first : span_rows);
    const int count = n * d;
    const int chunks = (count + kVec - 1) / kVec;
    const long long offset = first * d;
    uint4 xs[ITEMS];
    norm::load_span<T, ITEMS>(x + offset, count, xs);
    int row = walk.first_row, col = walk.first_col, tt = t;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      if (c < chunks) {
        float f[kVec];
        E::unpack(xs[i], f);
#pragma unroll
        for (int e = 0; e < kVec; ++e) f[e] *= f[e];
        norm::record_chunk(f, c, row, col, d, parts.partial, parts.carry);
      }
      walk.next(row, col, d);
    }
    __syncthreads();
    for (int r = warp; r < n; r += warps) {
      const float total = norm::row_total(parts.partial, parts.carry, r, d, kVec);
      const float inv_rms = 1.f / sqrtf(total / static_cast<float>(d) + eps);
      if ((t & 31) == 0) {
        parts.stats[r] = inv_rms;
        if (rstd != nullptr) rstd[first + r] = inv_rms;
      }
    }
    __syncthreads();
    // Recomputed rather than kept from the pass above (each item's row, column and index would
    // otherwise stay in registers across the barrier).
    row = walk.first_row;
    col = walk.first_col;
    tt = t;
    norm::opaque(row);
    norm::opaque(col);
    norm::opaque(tt);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      norm::opaque(xs[i]);
      if (c < chunks) {
        float v[kVec];
        E::unpack(xs[i], v);
        if (col + kVec <= d) {
          const float inv_rms = parts.stats[row];
          if (w != nullptr) {
            float wv[kVec];
            E::unpack(norm::shifted_weight(parts.weights, layout.padded_d, col), wv);
            norm::scale_by_weight(v, inv_rms, wv, w_offset);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) v[e] *= inv_rms;
          }
        } else {
          // The chunk straddles the end of `row`: each element takes its own row's statistic
          // and its own column's weight (copy 0 is the weight itself).
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            const bool next = col + e >= d;
            v[e] *= parts.stats[row + next];
            if (w != nullptr) v[e] *= E::to_float(parts.weights[next ? col + e - d : col + e]) + w_offset;
          }
        }
        norm::store_span_chunk(y + offset, c, count, v);
      }
      walk.next(row, col, d);
    }
  }
}

// Same arguments, results and aliasing as add_rmsnorm_fwd, plus span_rows; launch as
// rmsnorm_fwd_packed. h goes out in the first pass, each chunk by the thread that loaded it, so
// h may be r and y may be x.
template <typename T, int ITEMS, bool ROUND_SUM>
__global__ void __launch_bounds__(1024, 1)
    add_rmsnorm_fwd_packed(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                           int d, int x_stride, int r_stride, int h_stride, int y_stride,
                           float eps, float w_offset, int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  extern __shared__ uint4 packed_memory[];
  const norm::PackedLayout<T, 1> layout(d, span_rows);
  {
    const void* tensors[4] = {x, r, h, y};
    const int strides[4] = {x_stride, r_stride, h_stride, y_stride};
    norm::trap_unless_packed<T, ITEMS>(layout, tensors, strides);
  }
  const norm::PackedParts<T, 1> parts(packed_memory, layout);
  if (w != nullptr) norm::fill_shifted_copies(parts.weights, w, d, layout.padded_d);
  const norm::SpanWalk walk(d, kVec);
  const int nt = norm::block_threads(), t = norm::block_thread();
  const int warp = t >> 5, warps = nt >> 5;
  const norm::SpanLoop loop(span_rows);
  for (long long first = loop.first; first < rows; first += loop.step) {
    const int n = static_cast<int>(rows - first < span_rows ? rows - first : span_rows);
    const int count = n * d;
    const int chunks = (count + kVec - 1) / kVec;
    const long long offset = first * d;
    uint4 xs[ITEMS], rs[ITEMS];
    norm::load_span<T, ITEMS>(x + offset, count, xs);
    norm::load_span<T, ITEMS>(r + offset, count, rs);
    int row = walk.first_row, col = walk.first_col, tt = t;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      if (c < chunks) {
        float sv[kVec];
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
        norm::store_span_chunk(h + offset, c, count, sv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sv[e] *= sv[e];
        norm::record_chunk(sv, c, row, col, d, parts.partial, parts.carry);
      }
      walk.next(row, col, d);
    }
    __syncthreads();
    for (int k = warp; k < n; k += warps) {
      const float total = norm::row_total(parts.partial, parts.carry, k, d, kVec);
      const float inv_rms = 1.f / sqrtf(total / static_cast<float>(d) + eps);
      if ((t & 31) == 0) {
        parts.stats[k] = inv_rms;
        if (rstd != nullptr) rstd[first + k] = inv_rms;
      }
    }
    __syncthreads();
    // Recomputed rather than kept from the pass above (each item's row, column and index would
    // otherwise stay in registers across the barrier).
    row = walk.first_row;
    col = walk.first_col;
    tt = t;
    norm::opaque(row);
    norm::opaque(col);
    norm::opaque(tt);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      norm::opaque(xs[i]);
      norm::opaque(rs[i]);
      if (c < chunks) {
        float sv[kVec];
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
        if (col + kVec <= d) {
          const float inv_rms = parts.stats[row];
          if (w != nullptr) {
            float wv[kVec];
            E::unpack(norm::shifted_weight(parts.weights, layout.padded_d, col), wv);
            norm::scale_by_weight(sv, inv_rms, wv, w_offset);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) sv[e] *= inv_rms;
          }
        } else {
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            const bool next = col + e >= d;
            sv[e] *= parts.stats[row + next];
            if (w != nullptr) sv[e] *= E::to_float(parts.weights[next ? col + e - d : col + e]) + w_offset;
          }
        }
        norm::store_span_chunk(y + offset, c, count, sv);
      }
      walk.next(row, col, d);
    }
  }
}

// Same arguments, results and aliasing as layernorm_fwd, plus span_rows; launch as
// rmsnorm_fwd_packed with norm::PackedLayout<T, 2>::bytes() (gamma's and beta's copies). The
// same two-pass statistics as layernorm_fwd: the mean, then the sum of squared deviations.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(1024, 1)
    layernorm_fwd_packed(T* y, const T* x, const T* gamma, const T* beta, float* mean,
                         float* rstd, int rows, int d, int x_stride, int y_stride, float eps,
                         int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  extern __shared__ uint4 packed_memory[];
  const norm::PackedLayout<T, 2> layout(d, span_rows);
  {
    const void* tensors[2] = {x, y};
    const int strides[2] = {x_stride, y_stride};
    norm::trap_unless_packed<T, ITEMS>(layout, tensors, strides);
  }
  const norm::PackedParts<T, 2> parts(packed_memory, layout);
  T* gamma_copies = parts.weights;
  T* beta_copies = parts.weights + kVec * layout.padded_d;
  if (gamma != nullptr) norm::fill_shifted_copies(gamma_copies, gamma, d, layout.padded_d);
  if (beta != nullptr) norm::fill_shifted_copies(beta_copies, beta, d, layout.padded_d);
  float* means = parts.stats;
  float* inv_stds = parts.stats + span_rows;
  const norm::SpanWalk walk(d, kVec);
  const int nt = norm::block_threads(), t = norm::block_thread();
  const int warp = t >> 5, warps = nt >> 5;
  const norm::SpanLoop loop(span_rows);
  for (long long first = loop.first; first < rows; first += loop.step) {
    const int n = static_cast<int>(rows - first < span_rows ? rows - first : span_rows);
    const int count = n * d;
    const int chunks = (count + kVec - 1) / kVec;
    const long long offset = first * d;
    uint4 xs[ITEMS];
    norm::load_span<T, ITEMS>(x + offset, count, xs);
    int row = walk.first_row, col = walk.first_col, tt = t;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      if (c < chunks) {
        float f[kVec];
        E::unpack(xs[i], f);
        norm::record_chunk(f, c, row, col, d, parts.partial, parts.carry);
      }
      walk.next(row, col, d);
    }
    __syncthreads();
    for (int k = warp; k < n; k += warps) {
      const float mu = norm::mean_of(norm::row_total(parts.partial, parts.carry, k, d, kVec), d);
      if ((t & 31) == 0) means[k] = mu;
    }
    __syncthreads();
    // Squared deviations; the elements past the span's end (zero, not data) are left out.
    // Recomputed rather than kept from the pass above (each item's row, column and index would
    // otherwise stay in registers across the barrier).
    row = walk.first_row;
    col = walk.first_col;
    tt = t;
    norm::opaque(row);
    norm::opaque(col);
    norm::opaque(tt);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      norm::opaque(xs[i]);
      if (c < chunks) {
        float f[kVec];
        E::unpack(xs[i], f);
        if (col + kVec <= d && (c + 1) * kVec <= count) {
          const float mu = means[row];
#pragma unroll
          for (int e = 0; e < kVec; ++e) f[e] = (f[e] - mu) * (f[e] - mu);
        } else {
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            const float dev = f[e] - means[row + (col + e >= d)];
            f[e] = c * kVec + e < count ? dev * dev : 0.f;
          }
        }
        norm::record_chunk(f, c, row, col, d, parts.partial, parts.carry);
      }
      walk.next(row, col, d);
    }
    __syncthreads();
    for (int k = warp; k < n; k += warps) {
      const float var = norm::mean_of(norm::row_total(parts.partial, parts.carry, k, d, kVec), d);
      const float inv_std = rsqrtf(var + eps);
      if ((t & 31) == 0) {
        inv_stds[k] = inv_std;
        if (mean != nullptr) mean[first + k] = means[k];
        if (rstd != nullptr) rstd[first + k] = inv_std;
      }
    }
    __syncthreads();
    // Recomputed rather than kept from the pass above (each item's row, column and index would
    // otherwise stay in registers across the barrier).
    row = walk.first_row;
    col = walk.first_col;
    tt = t;
    norm::opaque(row);
    norm::opaque(col);
    norm::opaque(tt);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c = i * nt + tt;
      norm::opaque(xs[i]);
      if (c < chunks) {
        float v[kVec];
        E::unpack(xs[i], v);
        if (col + kVec <= d) {
          const float mu = means[row], inv_std = inv_stds[row];
          float g[kVec], b[kVec];
          if (gamma != nullptr) {
            E::unpack(norm::shifted_weight(gamma_copies, layout.padded_d, col), g);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) g[e] = 1.f;
          }
          if (beta != nullptr) {
            E::unpack(norm::shifted_weight(beta_copies, layout.padded_d, col), b);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) b[e] = 0.f;
          }
#pragma unroll
          for (int e = 0; e < kVec; ++e) v[e] = fmaf((v[e] - mu) * inv_std, g[e], b[e]);
        } else {
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            const bool next = col + e >= d;
            const int cc = next ? col + e - d : col + e;
            v[e] = (v[e] - means[row + next]) * inv_stds[row + next];
            if (gamma != nullptr) v[e] *= E::to_float(gamma_copies[cc]);
            if (beta != nullptr) v[e] += E::to_float(beta_copies[cc]);
          }
        }
        norm::store_span_chunk(y + offset, c, count, v);
      }
      walk.next(row, col, d);
    }
  }
}

}  // namespace ladder
