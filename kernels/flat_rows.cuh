// RMSNorm forward and backward over contiguous rows off the 16-byte grid, read as one flat array
// of segments of S rows (schedule=flat; the layout and why: flat_common.cuh). Math, arguments,
// results and aliasing as rmsnorm.cuh's rmsnorm_fwd and rmsnorm_bwd.cuh's rmsnorm_bwd.
#pragma once
#include "flat_common.cuh"

namespace ladder {
namespace norm {

// The launch bound: a thread's chunks of a segment, its weight window and (backward) its
// weight-gradient sums stay in registers, which a 1024-thread bound (64 registers) would spill.
constexpr int kFlatMaxThreads = 512;

// Sums of element j of chunk k into row k's slot, or row k - 1's where it wraps (the extra chunk,
// k == S, always wraps). Fast path: no element of the thread wraps.
template <typename T, int R>
__device__ __forceinline__ void flat_add(bool generic, float* sums, int t, int k, int j, int d,
                                         float v) {
  constexpr int S = FlatShape<T, R>::kRows;
  if (!generic || k == 0) {
    sums[k] += v;
  } else if (k == S) {
    sums[S - 1] += v;
  } else {
    const bool wrapped = FlatPlace<T, R>(t, k, j, d).wrapped;
    sums[k - 1] += wrapped ? v : 0.f;
    sums[k] += wrapped ? 0.f : v;
  }
}

// Whether chunk k of thread t exists (the extra chunk: t < EXTRA only).
template <typename T, int R>
__device__ __forceinline__ bool flat_has_chunk(int t, int k) {
  using F = FlatShape<T, R>;
  return k < F::kRows || t < F::kExtra;
}

// A value picked per row: slot k's own row, or k - 1's where element j wraps.
template <typename T, int R, int N>
__device__ __forceinline__ float flat_row_value(const float (&v)[N], const FlatPlace<T, R>& p,
                                                int k) {
  const float own = v[k < N ? k : N - 1];
  const float above = v[k > 0 ? k - 1 : 0];
  return p.wrapped ? above : own;
}

// The segment's chunks k < S of one tensor, each one 16-byte load on the fast path.
template <typename T, int R>
__device__ __forceinline__ void load_flat_chunks(bool generic, const T* seg, int t, int span, long long limit,
                                                 bool vec, uint4 (&c)[FlatShape<T, R>::kRows]) {
#pragma unroll
  for (int k = 0; k < FlatShape<T, R>::kRows; ++k) {
    const long long f = flat_offset<T, R>(t, k, span);
    c[k] = generic ? load_flat(seg, f, limit, vec) : *reinterpret_cast<const uint4*>(seg + f);
  }
}

// The thread's extra chunk (k == S), zero for t >= EXTRA.
template <typename T, int R>
__device__ __forceinline__ uint4 load_flat_extra(const T* seg, int t, int span, long long limit,
                                                 bool vec) {
  constexpr int S = FlatShape<T, R>::kRows;
  return flat_has_chunk<T, R>(t, S) ? load_flat(seg, flat_offset<T, R>(t, S, span), limit, vec)
                                    : make_uint4(0u, 0u, 0u, 0u);
}

}  // namespace norm

// RMSNorm forward over segments of S packed rows: arguments, results and aliasing as rmsnorm_fwd
// (y may be x: a block reads its whole segment before the barrier that precedes its stores).
// Launch: R = d mod VEC (0 < R < VEC), every stride d, block (32 * ceil(span / 32), 1, 1) with
// span = d / VEC, and any grid (blocks walk segments blockIdx.x, + gridDim.x, ...; best about as
// many as are resident). A launch that breaks the geometry traps.
template <typename T, int R>
__global__ void __launch_bounds__(norm::kFlatMaxThreads)
    rmsnorm_fwd_flat(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                     int y_stride, float eps, float w_offset) {
  using F = norm::FlatShape<T, R>;
  using E = norm::Elem<T>;
  constexpr int kVec = F::kVec, S = F::kRows;
  const int strides[2] = {x_stride, y_stride};
  const int span = norm::flat_span_or_trap<T, R>(d, strides, 2);
  __shared__ norm::ReduceScratch<S> scratch;
  const int t = threadIdx.x;
  const bool mine = t < span;  // threads past the span only join the reductions
  float win[F::kWindow], wrap_w[F::kWrap];
  norm::load_flat_weight<T, R>(w, w_offset, t, span, d, win);
  norm::load_flat_wrap_weight<T, R>(w, w_offset, t, d, wrap_w);
  const bool vec = norm::flat_aligned(x) && norm::flat_aligned(y);
  const norm::FlatSegments segs(rows, d, S);
  int parity = 0;
  for (long long seg = blockIdx.x; seg < segs.count; seg += gridDim.x) {
    const T* xs = x + segs.begin(seg);
    T* ys = y + segs.begin(seg);
    const long long limit = segs.limit(seg);
    // Warp-uniform: warp 0 holds the wrapped elements and the extra chunks.
    const bool generic = t < 32 || !vec || limit < static_cast<long long>(S) * d;
    uint4 c[S + 1];  // c[S]: the extra chunk (generic path)
    float sums[S];
#pragma unroll
    for (int k = 0; k < S; ++k) sums[k] = 0.f;
    auto sum_squares = [&](bool on_generic) {
      norm::load_flat_chunks<T, R>(on_generic, xs, t, span, limit, vec,
                                             reinterpret_cast<uint4(&)[S]>(c));
      if (on_generic) c[S] = norm::load_flat_extra<T, R>(xs, t, span, limit, vec);
#pragma unroll
      for (int k = 0; k < (on_generic ? S + 1 : S); ++k) {
        float v[kVec];
        E::unpack(c[k], v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) norm::flat_add<T, R>(on_generic, sums, t, k, j, d, v[j] * v[j]);
      }
    };
    if (mine) {
      if (generic) sum_squares(true);
      else sum_squares(false);
    }
    norm::row_group_sum<true>(sums, scratch, parity);
    float inv[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      inv[k] = 1.f / sqrtf(sums[k] / static_cast<float>(d) + eps);
      if (t == 0 && rstd != nullptr && segs.first_row(seg) + k < rows) rstd[segs.first_row(seg) + k] = inv[k];
    }
    if (!mine) continue;
    if (!generic) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        float v[kVec];
        E::unpack(c[k], v);
#pragma unroll
        for (int j = 0; j < kVec; ++j) v[j] = v[j] * inv[k] * win[j - R * k + F::kLow];
        *reinterpret_cast<uint4*>(ys + norm::flat_offset<T, R>(t, k, span)) = E::pack(v);
      }
      continue;
    }
#pragma unroll
    for (int k = 0; k <= S; ++k) {
      if (!norm::flat_has_chunk<T, R>(t, k)) continue;
      float v[kVec];
      E::unpack(c[k], v);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const norm::FlatPlace<T, R> p(t, k, j, d);
        const float wv = p.wrapped ? norm::window_at(wrap_w, j - R * k + F::kWrap)
                                   : norm::window_at(win, j - R * k + F::kLow);
        v[j] = v[j] * norm::flat_row_value(inv, p, k) * wv;
      }
      norm::store_flat(ys, norm::flat_offset<T, R>(t, k, span), limit, vec, v);
    }
  }
}

// RMSNorm backward over segments of S packed rows: arguments, results and aliasing as
// rmsnorm_bwd (dx may be dy or x: a block reads its segment before the barrier that precedes
// its stores). A thread's weight window and weight-gradient sums live in its slots of dynamic
// shared memory (in registers, beside the two tensors' chunks, they spilled: ptxas, sm_90);
// the block's sums go out once as its partial row dw_partial[blockIdx.x][0..d) (column_sum.cuh
// adds the rows in a fixed order). Launch as rmsnorm_fwd_flat, with flat_backward_shared_bytes
// of dynamic shared memory; a launch with less traps.
template <typename T, int R>
__global__ void __launch_bounds__(norm::kFlatMaxThreads)
    rmsnorm_bwd_flat(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows,
                     int d, int x_stride, int dy_stride, int dx_stride, float eps,
                     float w_offset) {
  using F = norm::FlatShape<T, R>;
  using E = norm::Elem<T>;
  constexpr int kVec = F::kVec, S = F::kRows;
  norm::allow_dependent_launch();
  const int strides[3] = {x_stride, dy_stride, dx_stride};
  const int span = norm::flat_span_or_trap<T, R>(d, strides, 3);
  __shared__ norm::ReduceScratch<2 * S> scratch;
  extern __shared__ float flat_memory[];
  const norm::FlatBackwardSlots<T, R> slots(flat_memory, d);
  const int t = threadIdx.x;
  const bool mine = t < span;
  slots.begin(w, w_offset, t, span, d);
  const bool vec = norm::flat_aligned(x) && norm::flat_aligned(dy) && norm::flat_aligned(dx);
  const norm::FlatSegments segs(rows, d, S);
  int parity = 0;
  for (long long seg = blockIdx.x; seg < segs.count; seg += gridDim.x) {
    const long long begin = segs.begin(seg);
    const long long limit = segs.limit(seg);
    const bool generic = t < 32 || !vec || limit < static_cast<long long>(S) * d;
    uint4 xc[S], gc[S];
    float sums[2 * S];  // sum(x^2) of row k, then sum(g * x), g = dy * weight
#pragma unroll
    for (int k = 0; k < 2 * S; ++k) sums[k] = 0.f;
    // The weight of element j of chunk k: its window slot, or its wrapped one.
    auto weight_of = [&](bool wrapped, int k, int j) {
      return wrapped ? slots.wrap_weight(t, j - R * k + F::kWrap)
                     : slots.weight(j - R * k + F::kLow);
    };
    // The extra chunk (k == S, t < EXTRA) is read again in the second pass rather than held:
    // its registers made the 16-bit build spill.
    auto extra = [&](const T* base) { return norm::load_flat_extra<T, R>(base + begin, t, span, limit, vec); };
    auto add_sums = [&](bool on_generic, int k, const uint4& xr, const uint4& gr) {
      float xv[kVec], gv[kVec];
      E::unpack(xr, xv);
      E::unpack(gr, gv);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const bool wrapped = on_generic && (k == S || norm::FlatPlace<T, R>(t, k, j, d).wrapped);
        norm::flat_add<T, R>(on_generic, sums, t, k, j, d, xv[j] * xv[j]);
        norm::flat_add<T, R>(on_generic, sums + S, t, k, j, d, gv[j] * weight_of(wrapped, k, j) * xv[j]);
      }
    };
    auto reduce_pass = [&](bool on_generic) {
      norm::load_flat_chunks<T, R>(on_generic, x + begin, t, span, limit, vec, xc);
      norm::load_flat_chunks<T, R>(on_generic, dy + begin, t, span, limit, vec, gc);
#pragma unroll
      for (int k = 0; k < S; ++k) add_sums(on_generic, k, xc[k], gc[k]);
      if (on_generic) add_sums(on_generic, S, extra(x), extra(dy));
    };
    if (mine) {
      if (generic) reduce_pass(true);
      else reduce_pass(false);
    }
    norm::row_group_sum<true>(sums, scratch, parity);
    float inv[S], coef[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      inv[k] = rsqrtf(norm::mean_of(sums[k], d) + eps);
      coef[k] = inv[k] * inv[k] * inv[k] * norm::mean_of(sums[S + k], d);
    }
    if (!mine) continue;
    auto gradient = [&](bool on_generic, int k, const uint4& xr, const uint4& gr) {
      float xv[kVec], gv[kVec];
      E::unpack(xr, xv);
      E::unpack(gr, gv);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const norm::FlatPlace<T, R> p(t, k, j, d);
        const bool wrapped = on_generic && (k == S || p.wrapped);
        const float inv_row = on_generic ? norm::flat_row_value(inv, p, k) : inv[k];
        const float coef_row = on_generic ? norm::flat_row_value(coef, p, k) : coef[k];
        const float contrib = gv[j] * xv[j] * inv_row;
        if (wrapped) {
          slots.add_wrap(t, j - R * k + F::kWrap, contrib);
        } else {
          slots.add(j - R * k + F::kLow, contrib);
        }
        gv[j] = inv_row * gv[j] * weight_of(wrapped, k, j) - xv[j] * coef_row;
      }
      const long long f = norm::flat_offset<T, R>(t, k, span);
      if (on_generic) norm::store_flat(dx + begin, f, limit, vec, gv);
      else *reinterpret_cast<uint4*>(dx + begin + f) = E::pack(gv);
    };
    if (generic) {
#pragma unroll
      for (int k = 0; k < S; ++k) gradient(true, k, xc[k], gc[k]);
      // Read after this thread's own stores above, which never touch the extra chunk.
      if (norm::flat_has_chunk<T, R>(t, S)) gradient(true, S, extra(x), extra(dy));
    } else {
#pragma unroll
      for (int k = 0; k < S; ++k) gradient(false, k, xc[k], gc[k]);
    }
  }
  if (dw_partial != nullptr) slots.write_partial(dw_partial, t, span, d);
}

}  // namespace ladder
