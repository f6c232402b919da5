// Contiguous rows off the 16-byte grid read as one flat array (schedule=flat; the kernels are in
// flat_rows.cuh): rows of d = VEC * span + R elements with 0 < R < VEC (16-bit d = 2049: R = 1).
//
// Why: rows of 2049 bf16 elements start at eight different offsets within 16 bytes, so every
// kernel that walks a row at a time reads and writes each row's two end chunks in part (and the
// phase kernels keep a block to rows of one offset). But S = VEC / gcd(R, VEC) consecutive rows
// (8 in 16-bit at R = 1) together span a whole number of chunks: with rows packed (every stride
// d) and the tensors 16-byte aligned, a "segment" of S rows is one aligned run of S * d / VEC
// chunks, and every access of the kernel is a whole 16-byte load or store.
// Thread t of a block takes chunks t + span * k of its segment (k < S), plus chunk S * span + t for
// t < EXTRA (= R / gcd(R, VEC), the chunks left over). Element j of chunk k sits in row k at
// column t * VEC + j - R * k, or, where that is negative (t < EXTRA only, all in warp 0), at the end
// of row k - 1 ("wrapped"). So the rows of a thread's chunks are known at compile time, and in
// every segment a thread touches the same VEC + R * (S - 1) columns: its weight window is read once
// a block into registers, and its weight-gradient sums stay in registers across segments.
// One reduction of S values a segment serves S rows (one barrier for eight rows).
// Warp 0, a segment running past the last row, and pointers off the 16-byte grid take the
// generic path: element-wise reads at the tensor's end, wrapped elements placed in their row.
#pragma once
#include "dependent_launch.cuh"
#include "norm_common.cuh"

namespace ladder {
namespace norm {

__host__ __device__ constexpr int flat_gcd(int a, int b) { return b == 0 ? a : flat_gcd(b, a % b); }

template <typename T, int R>
struct FlatShape {
  static constexpr int kVec = Elem<T>::kVec;
  static_assert(R > 0 && R < kVec, "R is d mod VEC, rows off the 16-byte grid");
  static constexpr int kRows = kVec / flat_gcd(R, kVec);   // S: rows a segment
  static constexpr int kExtra = R / flat_gcd(R, kVec);     // chunks past S * span
  static constexpr int kLow = R * (kRows - 1);             // reach below t * VEC
  static constexpr int kWindow = kVec + kLow;              // columns a thread's own rows touch
  static constexpr int kWrap = R * kRows;                  // columns its wrapped elements touch
};

// The geometry every flat launch keeps: contiguous rows (every stride d) with d mod VEC == R, and
// a block of at least span = d / VEC threads, one row group. A launch that breaks it traps rather
// than leave elements unwritten.
template <typename T, int R>
__device__ __forceinline__ int flat_span_or_trap(int d, const int* strides, int count) {
  constexpr int kVec = Elem<T>::kVec;
  const int span = d / kVec;
  bool ok = d % kVec == R && static_cast<int>(blockDim.x) >= span && blockDim.y == 1;
  for (int i = 0; i < count; ++i) ok = ok && strides[i] == d;
  if (!ok) __trap();
  return span;
}

// Chunk k of thread t in a segment (k == S: the extra chunk), as an element offset from the
// segment's start.
template <typename T, int R>
__device__ __forceinline__ long long flat_offset(int t, int k, int span) {
  using F = FlatShape<T, R>;
  const long long chunk = k < F::kRows ? t + static_cast<long long>(span) * k
                                       : static_cast<long long>(F::kRows) * span + t;
  return chunk * F::kVec;
}

// Reads VEC elements at p[f..): one 16-byte load where `vec` and they all lie below `limit`, else
// element by element, zero at and past `limit`.
template <typename T>
__device__ __forceinline__ uint4 load_flat(const T* p, long long f, long long limit, bool vec) {
  constexpr int kVec = Elem<T>::kVec;
  if (vec && f + kVec <= limit) return *reinterpret_cast<const uint4*>(p + f);
  float v[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) v[e] = f + e < limit ? Elem<T>::to_float(p[f + e]) : 0.f;
  return Elem<T>::pack(v);
}

// Writes v to p[f..) below `limit`: one 16-byte store where `vec` and all of them fit.
template <typename T>
__device__ __forceinline__ void store_flat(T* p, long long f, long long limit, bool vec,
                                           const float (&v)[Elem<T>::kVec]) {
  constexpr int kVec = Elem<T>::kVec;
  if (vec && f + kVec <= limit) {
    *reinterpret_cast<uint4*>(p + f) = Elem<T>::pack(v);
    return;
  }
#pragma unroll
  for (int e = 0; e < kVec; ++e)
    if (f + e < limit) p[f + e] = Elem<T>::from_float(v[e]);
}

// Slot m of a register window, zero outside it (m is a compile-time constant once unrolled: an
// index the loops never take is not an access).
template <int N>
__device__ __forceinline__ float window_at(const float (&w)[N], int m) {
  return m >= 0 && m < N ? w[m] : 0.f;
}

template <int N>
__device__ __forceinline__ void window_add(float (&w)[N], int m, float v) {
  if (m >= 0 && m < N) w[m] += v;
}

// The weight at this thread's window: w[t * VEC - kLow + m] (+ w_offset), 1 without a weight,
// 0 outside the row.
template <typename T, int R>
__device__ __forceinline__ void load_flat_weight(const T* w, float w_offset, int t, int span, int d,
                                                 float (&win)[FlatShape<T, R>::kWindow]) {
  using F = FlatShape<T, R>;
#pragma unroll
  for (int m = 0; m < F::kWindow; ++m) {
    const int col = t * F::kVec - F::kLow + m;
    win[m] = t < span && col >= 0 && col < d
                 ? (w != nullptr ? Elem<T>::to_float(w[col]) + w_offset : 1.f)
                 : 0.f;
  }
}

// The weight at this thread's wrapped columns: w[d + t * VEC - kWrap + m] where that column is
// one a wrapped element of the thread reaches (t < EXTRA only), else 0.
template <typename T, int R>
__device__ __forceinline__ void load_flat_wrap_weight(const T* w, float w_offset, int t, int d,
                                                      float (&win)[FlatShape<T, R>::kWrap]) {
  using F = FlatShape<T, R>;
#pragma unroll
  for (int m = 0; m < F::kWrap; ++m) {
    const int raw = t * F::kVec - F::kWrap + m;
    win[m] = t < F::kExtra && raw < 0 && d + raw >= 0
                 ? (w != nullptr ? Elem<T>::to_float(w[d + raw]) + w_offset : 1.f)
                 : 0.f;
  }
}

// Where element j of chunk k of thread t sits: its row within the segment and its column.
template <typename T, int R>
struct FlatPlace {
  int row, col;
  bool wrapped;
  __device__ __forceinline__ FlatPlace(int t, int k, int j, int d) {
    using F = FlatShape<T, R>;
    const int raw = t * F::kVec + j - R * k;
    wrapped = raw < 0;
    row = wrapped ? k - 1 : k;
    col = wrapped ? raw + d : raw;
  }
};

// The segments of S rows block b walks: b, b + gridDim.x, ...; `limit` is how many of a segment's
// elements lie inside the tensor (S * d but for a last segment of fewer rows).
struct FlatSegments {
  long long count, rows;
  int d, per_segment_rows;
  __device__ __forceinline__ FlatSegments(long long rows_, int d_, int s)
      : count((rows_ + s - 1) / s), rows(rows_), d(d_), per_segment_rows(s) {}
  __device__ __forceinline__ long long first_row(long long seg) const {
    return seg * per_segment_rows;
  }
  __device__ __forceinline__ long long begin(long long seg) const { return first_row(seg) * d; }
  __device__ __forceinline__ long long limit(long long seg) const {
    const long long left = rows - first_row(seg);
    return (left < per_segment_rows ? left : per_segment_rows) * static_cast<long long>(d);
  }
};

// The backward's dynamic shared memory: the block's partial row (d floats, rounded up to a
// chunk), each thread's weight window and weight-gradient sums (kWindow slots each, slot m of
// thread t at m * blockDim.x + t: a warp's accesses fall in distinct banks), and the wrapped
// weights and sums of threads t < EXTRA (kWrap each). Each thread touches only its own slots
// until write_partial.
template <typename T, int R>
struct FlatBackwardSlots {
  using F = FlatShape<T, R>;
  float *part, *win, *sums, *wrap_w, *wrap_sums;

  static __host__ __device__ constexpr unsigned bytes(int d, int width) {
    return 4u * static_cast<unsigned>(((d + 3) & ~3) + 2 * F::kWindow * width + 2 * F::kExtra * F::kWrap);
  }

  __device__ __forceinline__ FlatBackwardSlots(float* memory, int d) {
    const int width = blockDim.x;
    if (dynamic_shared_bytes() < bytes(d, width)) __trap();
    part = memory;
    win = part + ((d + 3) & ~3);
    sums = win + F::kWindow * width;
    wrap_w = sums + F::kWindow * width;
    wrap_sums = wrap_w + F::kExtra * F::kWrap;
  }

  // The weight window (1 without a weight, 0 outside the row), the sums at zero.
  __device__ __forceinline__ void begin(const T* w, float w_offset, int t, int span, int d) const {
    float wv[F::kWindow], wrap[F::kWrap];
    load_flat_weight<T, R>(w, w_offset, t, span, d, wv);
    load_flat_wrap_weight<T, R>(w, w_offset, t, d, wrap);
#pragma unroll
    for (int m = 0; m < F::kWindow; ++m) {
      win[m * blockDim.x + t] = wv[m];
      sums[m * blockDim.x + t] = 0.f;
    }
    if (t < F::kExtra) {
#pragma unroll
      for (int m = 0; m < F::kWrap; ++m) {
        wrap_w[t * F::kWrap + m] = wrap[m];
        wrap_sums[t * F::kWrap + m] = 0.f;
      }
    }
  }

  // Slot m (compile-time once unrolled); 0 outside the window.
  __device__ __forceinline__ float weight(int m) const {
    return m >= 0 && m < F::kWindow ? win[m * blockDim.x + threadIdx.x] : 0.f;
  }
  __device__ __forceinline__ float wrap_weight(int t, int m) const {
    return m >= 0 && m < F::kWrap && t < F::kExtra ? wrap_w[t * F::kWrap + m] : 0.f;
  }
  __device__ __forceinline__ void add(int m, float v) const {
    if (m >= 0 && m < F::kWindow) sums[m * blockDim.x + threadIdx.x] += v;
  }
  __device__ __forceinline__ void add_wrap(int t, int m, float v) const {
    if (m >= 0 && m < F::kWrap && t < F::kExtra) wrap_sums[t * F::kWrap + m] += v;
  }

  // Writes the block's partial row partial[blockIdx.x][0..d): the threads' windows (thread t's
  // slot m is column t * VEC - kLow + m) and wrapped sums (column d + t * VEC - kWrap + m), joined
  // in `part` in a fixed order: each thread's own VEC columns first, then the windows reaching
  // down one block of VEC columns at a time, then the wrapped sums thread by thread.
  // Deterministic, no atomics; a block that walked no segment writes zeros.
  __device__ __forceinline__ void write_partial(float* partial, int t, int span, int d) const {
    constexpr int kVec = F::kVec;
    const bool mine = t < span;
    if (mine) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) part[t * kVec + j] = sums[(F::kLow + j) * blockDim.x + t];
    }
    // The last R columns belong to no window: only wrapped elements reach them.
    for (int col = span * kVec + t; col < d; col += blockDim.x) part[col] = 0.f;
    __syncthreads();
    constexpr int kSteps = (F::kLow + kVec - 1) / kVec;
#pragma unroll
    for (int s = 1; s <= kSteps; ++s) {
      if (mine) {
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          const int m = F::kLow - s * kVec + j;
          const int col = (t - s) * kVec + j;
          if (m >= 0 && col >= 0) part[col] += sums[m * blockDim.x + t];
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < F::kExtra; ++u) {
      if (t == u) {
#pragma unroll
        for (int m = 0; m < F::kWrap; ++m) {
          const int raw = u * kVec - F::kWrap + m;
          if (raw < 0 && d + raw >= 0) part[d + raw] += wrap_sums[u * F::kWrap + m];
        }
      }
      __syncthreads();
    }
    float* out = partial + static_cast<long long>(blockIdx.x) * d;
    for (int col = t; col < d; col += blockDim.x) out[col] = part[col];
  }
};

__device__ __forceinline__ bool flat_aligned(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & (kChunkBytes - 1)) == 0;
}

}  // namespace norm
}  // namespace ladder

