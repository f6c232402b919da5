// The packed-span schedule of the forward kernels (packed_common.cuh): RMSNorm, fused add +
// RMSNorm and LayerNorm for packed rows, each block taking span_rows rows as one flat array.
// Geometry and ABI: kernels/README.md.
#pragma once
#include "add_rmsnorm.cuh"
#include "packed_common.cuh"

namespace ladder {
namespace norm {

// The shared-memory parts of a packed block (PackedLayout), as pointers.
template <typename T, int WEIGHTS, int TENSORS, int COPIES>
struct PackedParts {
  T* weights;  // WEIGHTS x COPIES copies of copy_len elements
  uint4* stages;
  int span_chunks;
  float* partial;
  float* carry;
  float* stats;
  __device__ __forceinline__ PackedParts(void* memory,
                                         const PackedLayout<T, WEIGHTS, TENSORS, COPIES>& layout) {
    char* base = static_cast<char*>(memory);
    weights = reinterpret_cast<T*>(base);
    stages = reinterpret_cast<uint4*>(base + layout.stages_offset());
    span_chunks = layout.span_chunks;
    partial = reinterpret_cast<float*>(base + layout.partial_offset());
    carry = reinterpret_cast<float*>(base + layout.carry_offset());
    stats = reinterpret_cast<float*>(base + layout.stats_offset());
  }
  // Input k's slots in stage st.
  __device__ __forceinline__ uint4* stage(int st, int k) const {
    return stages + (st * TENSORS + k) * span_chunks;
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

// v *= inv_rms * (w + w_offset) for a chunk at column col of `row`; a chunk that straddles the
// row's end takes each element's own row statistic and column weight (copy 0 is the weight
// itself).
template <typename T, int COPIES>
__device__ __forceinline__ void scale_packed_chunk(float (&v)[Elem<T>::kVec], int row, int col,
                                                   int d, const float* inv_rms,
                                                   const T* w_copies, int copy_len,
                                                   bool has_weight, float w_offset) {
  constexpr int kVec = Elem<T>::kVec;
  if (col + kVec <= d) {
    if (has_weight) {
      float wv[kVec];
      Elem<T>::unpack(weight_chunk<T, COPIES>(w_copies, copy_len, col), wv);
      scale_by_weight(v, inv_rms[row], wv, w_offset);
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v[e] *= inv_rms[row];
    }
    return;
  }
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    const bool next = col + e >= d;
    v[e] *= inv_rms[row + next];
    if (has_weight) v[e] *= Elem<T>::to_float(w_copies[next ? col + e - d : col + e]) + w_offset;
  }
}

// The RMSNorm statistic of every row of a span, once each chunk's sum of squares is recorded:
// barrier, one warp a row (parts.stats[k] = 1 / rms, and rstd when given), barrier.
template <typename Parts>
__device__ __forceinline__ void span_inv_rms(const Parts& parts, long long first, int count,
                                             int d, float eps, float* rstd) {
  __syncthreads();
  const int t = block_thread(), vec = kChunkBytes / static_cast<int>(sizeof(*parts.weights));
  for (int k = t >> 5; k * d < count; k += block_threads() >> 5) {
    const float total = row_total(parts.partial, parts.carry, k, d, vec);
    const float inv_rms = 1.f / sqrtf(total / static_cast<float>(d) + eps);
    if ((t & 31) == 0) {
      parts.stats[k] = inv_rms;
      if (rstd != nullptr) rstd[first + k] = inv_rms;
    }
  }
  __syncthreads();
}

// The walk of a packed kernel over its spans, each one's copies started a span ahead.
// stage_copies(first, st) starts the copies of the span at row `first` into stage st (copy_in of
// each input); work(first, st) runs once they have landed. The loop condition is uniform per
// block, so work may use barriers.
template <typename StageCopies, typename Work>
__device__ __forceinline__ void walk_spans(int rows, int span_rows, StageCopies&& stage_copies,
                                           Work&& work) {
  const SpanLoop loop(span_rows);
  if (loop.first < rows) stage_copies(loop.first, 0);
  cp_async_commit();
  int st = 0;
  for (long long first = loop.first; first < rows; first += loop.step, st ^= 1) {
    if (first + loop.step < rows) stage_copies(first + loop.step, st ^ 1);
    cp_async_commit();
    cp_async_wait<1>();
    work(first, st);
  }
  cp_async_wait<0>();
}

// Elements in the span at row `first` (the last may be short).
__device__ __forceinline__ int span_count(long long first, int rows, int span_rows, int d) {
  const long long n = rows - first < span_rows ? rows - first : span_rows;
  return static_cast<int>(n) * d;
}

// The walk of a packed kernel with one row input, x: work(first, xs) runs on the span at row
// `first`, staged in shared memory (input 0 of parts' stages).
template <typename T, typename Parts, typename Work>
__device__ __forceinline__ void walk_input_spans(const T* x, const Parts& parts, int rows,
                                                 int span_rows, int d, Work&& work) {
  auto span_of = [&](long long first, int st) {
    return StagedSpan<T>{x + first * d, parts.stage(st, 0), span_count(first, rows, span_rows, d)};
  };
  walk_spans(rows, span_rows, [&](long long first, int st) { span_of(first, st).copy_in(); },
             [&](long long first, int st) { work(first, span_of(first, st)); });
}

}  // namespace norm

// Same arguments, results and aliasing as rmsnorm_fwd, plus span_rows (the launch contract in
// packed_common.cuh). Launch: a 1-D block of whole warps; norm::PackedLayout<T, 1, 1, COPIES>
// ::bytes() of dynamic shared memory (COPIES: VEC with SHIFTED_WEIGHT, else 1); any grid (blocks
// walk the spans: about as many as are resident). SHIFTED_WEIGHT: the weight as VEC shifted
// copies (one read a chunk) or alone (two reads and a funnel shift, VEC times less memory).
// y may be x: each chunk is stored by the thread that read it, after its last read.
template <typename T, bool SHIFTED_WEIGHT = true>
__global__ void __launch_bounds__(1024, 1)
    rmsnorm_fwd_packed(T* y, const T* x, const T* __restrict__ w, float* rstd, int rows, int d, int x_stride,
                       int y_stride, float eps, float w_offset, int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  constexpr int kCopies = SHIFTED_WEIGHT ? kVec : 1;
  extern __shared__ uint4 packed_memory[];
  const norm::PackedLayout<T, 1, 1, kCopies> layout(d, span_rows);
  norm::trap_unless_packed<T>(layout, {x, y}, {x_stride, y_stride});
  const norm::PackedParts<T, 1, 1, kCopies> parts(packed_memory, layout);
  if (w != nullptr) norm::fill_weight_copies<T, kCopies>(parts.weights, w, d, layout.copy_len);
  const norm::SpanWalk walk(d, kVec);
  const int nt = norm::block_threads(), t = norm::block_thread();
  norm::walk_input_spans(x, parts, rows, span_rows, d,
                         [&](long long first, const norm::StagedSpan<T>& xs) {
    const int chunks = (xs.count + kVec - 1) / kVec;
    int row = walk.first_row, col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float f[kVec];
      E::unpack(xs.first_read(c), f);
#pragma unroll
      for (int e = 0; e < kVec; ++e) f[e] *= f[e];
      norm::record_chunk(f, c, row, col, d, parts.partial, parts.carry);
      walk.next(row, col, d);
    }
    norm::span_inv_rms(parts, first, xs.count, d, eps, rstd);
    row = walk.first_row;
    col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float v[kVec];
      E::unpack(xs.reread(c), v);
      norm::scale_packed_chunk<T, kCopies>(v, row, col, d, parts.stats, parts.weights,
                                           layout.copy_len, w != nullptr, w_offset);
      norm::store_span_chunk(y + first * d, c, xs.count, v);
      walk.next(row, col, d);
    }
  });
}

// Same arguments, results and aliasing as add_rmsnorm_fwd, plus span_rows; launch as
// rmsnorm_fwd_packed with norm::PackedLayout<T, 1, 2, COPIES>::bytes() (x and r staged). h goes
// out in the first pass and y in the second, each chunk by the thread that read it, and the
// second pass reads only the stages: h may be r and y may be x.
template <typename T, bool ROUND_SUM, bool SHIFTED_WEIGHT = true>
__global__ void __launch_bounds__(1024, 1)
    add_rmsnorm_fwd_packed(T* y, T* h, const T* x, const T* r, const T* __restrict__ w, float* rstd, int rows,
                           int d, int x_stride, int r_stride, int h_stride, int y_stride,
                           float eps, float w_offset, int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  constexpr int kCopies = SHIFTED_WEIGHT ? kVec : 1;
  extern __shared__ uint4 packed_memory[];
  const norm::PackedLayout<T, 1, 2, kCopies> layout(d, span_rows);
  norm::trap_unless_packed<T>(layout, {x, r, h, y}, {x_stride, r_stride, h_stride, y_stride});
  const norm::PackedParts<T, 1, 2, kCopies> parts(packed_memory, layout);
  if (w != nullptr) norm::fill_weight_copies<T, kCopies>(parts.weights, w, d, layout.copy_len);
  const norm::SpanWalk walk(d, kVec);
  const int nt = norm::block_threads(), t = norm::block_thread();
  auto span_of = [&](const T* input, int k, long long first, int st) {
    return norm::StagedSpan<T>{input + first * d, parts.stage(st, k),
                               norm::span_count(first, rows, span_rows, d)};
  };
  norm::walk_spans(rows, span_rows,
                   [&](long long first, int st) {
                     span_of(x, 0, first, st).copy_in();
                     span_of(r, 1, first, st).copy_in();
                   },
                   [&](long long first, int st) {
    const norm::StagedSpan<T> xs = span_of(x, 0, first, st), rs = span_of(r, 1, first, st);
    const int count = xs.count;
    const int chunks = (count + kVec - 1) / kVec;
    int row = walk.first_row, col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float sv[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs.first_read(c), rs.first_read(c), sv);
      norm::store_span_chunk(h + first * d, c, count, sv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sv[e] *= sv[e];
      norm::record_chunk(sv, c, row, col, d, parts.partial, parts.carry);
      walk.next(row, col, d);
    }
    norm::span_inv_rms(parts, first, count, d, eps, rstd);
    row = walk.first_row;
    col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float sv[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs.reread(c), rs.reread(c), sv);
      norm::scale_packed_chunk<T, kCopies>(sv, row, col, d, parts.stats, parts.weights,
                                           layout.copy_len, w != nullptr, w_offset);
      norm::store_span_chunk(y + first * d, c, count, sv);
      walk.next(row, col, d);
    }
  });
}

// Same arguments, results and aliasing as layernorm_fwd, plus span_rows; launch as
// rmsnorm_fwd_packed with norm::PackedLayout<T, 2, 1, COPIES>::bytes() (gamma's and beta's
// copies). The same two-pass statistics as layernorm_fwd: the mean, then the sum of squared
// deviations.
template <typename T, bool SHIFTED_WEIGHT = true>
__global__ void __launch_bounds__(1024, 1)
    layernorm_fwd_packed(T* y, const T* x, const T* __restrict__ gamma, const T* __restrict__ beta, float* mean,
                         float* rstd, int rows, int d, int x_stride, int y_stride, float eps,
                         int span_rows) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  constexpr int kCopies = SHIFTED_WEIGHT ? kVec : 1;
  extern __shared__ uint4 packed_memory[];
  const norm::PackedLayout<T, 2, 1, kCopies> layout(d, span_rows);
  norm::trap_unless_packed<T>(layout, {x, y}, {x_stride, y_stride});
  const norm::PackedParts<T, 2, 1, kCopies> parts(packed_memory, layout);
  T* gamma_copies = parts.weights;
  T* beta_copies = parts.weights + kCopies * layout.copy_len;
  if (gamma != nullptr)
    norm::fill_weight_copies<T, kCopies>(gamma_copies, gamma, d, layout.copy_len);
  if (beta != nullptr) norm::fill_weight_copies<T, kCopies>(beta_copies, beta, d, layout.copy_len);
  float* means = parts.stats;
  float* inv_stds = parts.stats + span_rows;
  const norm::SpanWalk walk(d, kVec);
  const int nt = norm::block_threads(), t = norm::block_thread();
  norm::walk_input_spans(x, parts, rows, span_rows, d,
                         [&](long long first, const norm::StagedSpan<T>& xs) {
    const int count = xs.count;
    const int chunks = (count + kVec - 1) / kVec;
    int row = walk.first_row, col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float f[kVec];
      E::unpack(xs.first_read(c), f);
      norm::record_chunk(f, c, row, col, d, parts.partial, parts.carry);
      walk.next(row, col, d);
    }
    __syncthreads();
    for (int k = t >> 5; k * d < count; k += nt >> 5) {
      const float mu = norm::mean_of(norm::row_total(parts.partial, parts.carry, k, d, kVec), d);
      if ((t & 31) == 0) means[k] = mu;
    }
    __syncthreads();
    // Squared deviations; the elements past a short span's end (zero, not data) are left out.
    row = walk.first_row;
    col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float f[kVec];
      E::unpack(xs.reread(c), f);
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
      walk.next(row, col, d);
    }
    __syncthreads();
    for (int k = t >> 5; k * d < count; k += nt >> 5) {
      const float var = norm::mean_of(norm::row_total(parts.partial, parts.carry, k, d, kVec), d);
      const float inv_std = rsqrtf(var + eps);
      if ((t & 31) == 0) {
        inv_stds[k] = inv_std;
        if (mean != nullptr) mean[first + k] = means[k];
        if (rstd != nullptr) rstd[first + k] = inv_std;
      }
    }
    __syncthreads();
    row = walk.first_row;
    col = walk.first_col;
    for (int c = t; c < chunks; c += nt) {
      float v[kVec];
      E::unpack(xs.reread(c), v);
      if (col + kVec <= d) {
        const float mu = means[row], inv_std = inv_stds[row];
        float g[kVec], b[kVec];
        if (gamma != nullptr) {
          E::unpack(norm::weight_chunk<T, kCopies>(gamma_copies, layout.copy_len, col), g);
        } else {
#pragma unroll
          for (int e = 0; e < kVec; ++e) g[e] = 1.f;
        }
        if (beta != nullptr) {
          E::unpack(norm::weight_chunk<T, kCopies>(beta_copies, layout.copy_len, col), b);
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
      norm::store_span_chunk(y + first * d, c, count, v);
      walk.next(row, col, d);
    }
  });
}

}  // namespace ladder
