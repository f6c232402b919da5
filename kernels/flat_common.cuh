// Packed rows off the 16-byte grid read as one flat array (schedule=flat; the kernels are in
// flat_rows.cuh): rows of d = VEC * span + R elements with 0 < R < VEC (16-bit d = 2049: R = 1).
//
// Why: rows of 2049 bf16 elements start at eight different offsets within 16 bytes, so a kernel
// that walks a row at a time reads and writes each row's two end chunks in part (and the phase
// kernels keep a block to rows of one offset). But S = VEC / gcd(R, VEC) consecutive rows (8 in
// 16-bit at R = 1) span a whole number of chunks: with every stride d and the tensors 16-byte
// aligned, a "segment" of S rows is one aligned run of S * d / VEC chunks, read and written
// whole.
// Layout: chunk t + span * k of a segment (k < S) holds, for t >= EXTRA (= R / gcd(R, VEC)),
// elements of row k only, at columns t * VEC + j - R * k. Those "main" chunks go to thread t
// of the block's first P = 32 * ceil(span / 32) threads: the rows of a thread's chunks are known
// at compile time, and in every segment it touches the same VEC + R * (S - 1) columns, so its
// weight window is read once a block and its weight-gradient sums stay on its own slots. The
// other chunks (t < EXTRA, k <= S; chunk S * span + t being the EXTRA left over) straddle the end
// of a row or lie past row S - 1's start; one "edge" lane each, in the block's last warp, takes
// them element by element, each element's row and column fixed for the launch. One reduction of
// S values a segment serves S rows (one barrier for eight rows).
// A segment with fewer rows (the last) and tensors off the 16-byte grid take the row path: the
// block walks the segment's rows one at a time, element by element (correct for any pointers,
// not fast).
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
  static constexpr int kLow = R * (kRows - 1);             // a window's reach below t * VEC
  static constexpr int kWindow = kVec + kLow;              // columns a main thread touches
  static constexpr int kEdgeLanes = kExtra * (kRows + 1);  // chunks the edge lanes take
};

// A launch's roles: main threads t < P (those with EXTRA <= t < span hold chunks), then one warp
// of edge lanes. The geometry every flat launch keeps (every stride d, d mod VEC == R, block
// (P + 32, 1, 1)) is checked here: a launch that breaks it traps rather than leave elements
// unwritten.
template <typename T, int R>
struct FlatRoles {
  using F = FlatShape<T, R>;
  int span, main_threads, t;
  bool main, edge;
  int edge_t, edge_k;  // the edge lane's chunk: thread edge_t's chunk edge_k (k == S: extra)

  __device__ __forceinline__ FlatRoles(int d, const int* strides, int count) {
    span = d / F::kVec;
    main_threads = (span + 31) / 32 * 32;
    bool ok = d % F::kVec == R && static_cast<int>(blockDim.x) == main_threads + 32 &&
              blockDim.y == 1 && span >= F::kExtra;
    for (int i = 0; i < count; ++i) ok = ok && strides[i] == d;
    if (!ok) __trap();
    t = threadIdx.x;
    main = t >= F::kExtra && t < span;
    const int lane = t - main_threads;
    edge = lane >= 0 && lane < F::kEdgeLanes;
    edge_t = edge ? lane / (F::kRows + 1) : 0;
    edge_k = edge ? lane % (F::kRows + 1) : 0;
  }
};

// Chunk k of thread t in a segment (k == S: the extra chunk), as an element offset from the
// segment's start.
template <typename T, int R>
__device__ __forceinline__ long long flat_offset(int t, int k, int span) {
  using F = FlatShape<T, R>;
  const long long chunk = k < F::kRows ? t + static_cast<long long>(span) * k
                                       : static_cast<long long>(F::kRows) * span + t;
  return chunk * F::kVec;
}

// Where element j of chunk k of thread t sits: its row in the segment and its column. Elements
// at negative column t * VEC + j - R * k (and every element of the extra chunk) end row k - 1.
template <typename T, int R>
struct FlatPlace {
  int row, col;
  __device__ __forceinline__ FlatPlace(int t, int k, int j, int d) {
    using F = FlatShape<T, R>;
    const int raw = t * F::kVec + j - R * k;
    const bool wrapped = k >= F::kRows || raw < 0;
    row = wrapped ? k - 1 : k;
    col = raw < 0 ? raw + d : raw;
  }
};

// The segments of S rows block b walks: b, b + gridDim.x, ...
struct FlatSegments {
  long long count, rows;
  int d, per_segment_rows;
  __device__ __forceinline__ FlatSegments(long long rows_, int d_, int s)
      : count((rows_ + s - 1) / s), rows(rows_), d(d_), per_segment_rows(s) {}
  __device__ __forceinline__ long long first_row(long long seg) const {
    return seg * per_segment_rows;
  }
  __device__ __forceinline__ long long begin(long long seg) const { return first_row(seg) * d; }
  // Whether segment seg exists and holds S rows (every chunk of it may be read whole).
  __device__ __forceinline__ bool whole(long long seg) const {
    return seg < count && first_row(seg) + per_segment_rows <= rows;
  }
  __device__ __forceinline__ int rows_in(long long seg) const {
    const long long left = rows - first_row(seg);
    return static_cast<int>(left < per_segment_rows ? left : per_segment_rows);
  }
};

__device__ __forceinline__ bool flat_aligned(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & (kChunkBytes - 1)) == 0;
}

// The weight at column col (+ w_offset; 1 without a weight; 0 outside the row).
template <typename T>
__device__ __forceinline__ float flat_weight(const T* w, float w_offset, int col, int d) {
  if (col < 0 || col >= d) return 0.f;
  return w != nullptr ? Elem<T>::to_float(w[col]) + w_offset : 1.f;
}

// A main thread's weight window: slot m is column t * VEC - kLow + m.
template <typename T, int R>
__device__ __forceinline__ void load_flat_window(const T* w, float w_offset, int t, int d,
                                                 float (&win)[FlatShape<T, R>::kWindow]) {
  using F = FlatShape<T, R>;
#pragma unroll
  for (int m = 0; m < F::kWindow; ++m) win[m] = flat_weight(w, w_offset, t * F::kVec - F::kLow + m, d);
}

// v[m] for a row index the code knows only at run time, without indexing a register array.
template <int N>
__device__ __forceinline__ float flat_pick(const float (&v)[N], int row) {
  float out = v[0];
#pragma unroll
  for (int m = 1; m < N; ++m) out = row == m ? v[m] : out;
  return out;
}

// Asks the L2 for the thread's chunks of a segment (the block's next), holding no register.
template <typename T, int R>
__device__ __forceinline__ void prefetch_flat_chunks(const T* seg, const FlatRoles<T, R>& roles) {
  using F = FlatShape<T, R>;
  if (roles.main) {
#pragma unroll
    for (int k = 0; k < F::kRows; ++k)
      asm volatile("prefetch.L2 [%0];" ::"l"(seg + flat_offset<T, R>(roles.t, k, roles.span)));
  } else if (roles.edge) {
    asm volatile("prefetch.L2 [%0];" ::"l"(seg + flat_offset<T, R>(roles.edge_t, roles.edge_k, roles.span)));
  }
}

// The backward's edge lanes' weights and dw sums of their VEC elements, in static shared memory
// (in registers every thread would hold them).
template <typename T, int R>
struct FlatEdgeSlots {
  using F = FlatShape<T, R>;
  float w[F::kEdgeLanes][F::kVec], dw[F::kEdgeLanes][F::kVec];

  __device__ __forceinline__ void begin(const T* weight, float w_offset, const FlatRoles<T, R>& roles,
                                        int d) {
    if (!roles.edge) return;
    const int lane = roles.t - roles.main_threads;
#pragma unroll
    for (int j = 0; j < F::kVec; ++j) {
      w[lane][j] = flat_weight(weight, w_offset, FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).col, d);
      dw[lane][j] = 0.f;
    }
  }
  // The calling edge lane's rows (a main thread's calls return a row it never reads).
  __device__ __forceinline__ const float* weights(const FlatRoles<T, R>& roles) const {
    return w[roles.edge ? roles.t - roles.main_threads : 0];
  }
  __device__ __forceinline__ float* sums(const FlatRoles<T, R>& roles) {
    return dw[roles.edge ? roles.t - roles.main_threads : 0];
  }
};

// The backward's dynamic shared memory: the block's partial row of weight-gradient sums (d
// floats, rounded up to a chunk; the row path adds to it as it goes), then each main thread's
// weight window and sums (kWindow slots each, slot m of thread t at m * P + t, so that a warp's
// accesses fall in distinct banks). A main thread touches only its own slots until write_partial.
template <typename T, int R>
struct FlatBackwardSlots {
  using F = FlatShape<T, R>;
  float *part, *win, *sums;
  int width;  // P

  static __host__ __device__ constexpr unsigned bytes(int d, int main_threads) {
    return 4u * static_cast<unsigned>(((d + 3) & ~3) + 2 * F::kWindow * main_threads);
  }

  __device__ __forceinline__ FlatBackwardSlots(float* memory, int d, int main_threads)
      : width(main_threads) {
    if (dynamic_shared_bytes() < bytes(d, main_threads)) __trap();
    part = memory;
    win = part + ((d + 3) & ~3);
    sums = win + F::kWindow * main_threads;
  }

  // The partial row at zero; a main thread's weight window and sums (at zero).
  __device__ __forceinline__ void begin(const T* w, float w_offset, const FlatRoles<T, R>& roles,
                                        int d) const {
    for (int col = roles.t; col < d; col += blockDim.x) part[col] = 0.f;
    if (!roles.main) return;
    float wv[F::kWindow];
    load_flat_window<T, R>(w, w_offset, roles.t, d, wv);
#pragma unroll
    for (int m = 0; m < F::kWindow; ++m) {
      win[m * width + roles.t] = wv[m];
      sums[m * width + roles.t] = 0.f;
    }
  }

  // Slot m of the calling main thread (m is a compile-time constant once unrolled).
  __device__ __forceinline__ float weight(int m) const { return win[m * width + threadIdx.x]; }
  __device__ __forceinline__ void add(int m, float v) const { sums[m * width + threadIdx.x] += v; }

  // Writes the block's partial row partial[blockIdx.x][0..d): to what the row path left in
  // `part`, adds the main threads' windows (thread t's slot m is column t * VEC - kLow + m) and
  // then the edge lanes' sums (`edge_sums`, lane by lane, at their elements' columns), in a fixed order: each
  // main thread's own VEC columns, then the windows reaching down one block of VEC columns at a
  // time, then the edge lanes one by one. Deterministic, no atomics; a block that walked no
  // segment writes zeros.
  __device__ __forceinline__ void write_partial(float* partial, const FlatRoles<T, R>& roles, int d,
                                                const float (&edge_sums)[F::kEdgeLanes][F::kVec]) const {
    constexpr int kVec = F::kVec;
    const int t = roles.t;
    __syncthreads();
    if (roles.main) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) part[t * kVec + j] += sums[(F::kLow + j) * width + t];
    }
    __syncthreads();
    constexpr int kSteps = (F::kLow + kVec - 1) / kVec;
#pragma unroll
    for (int s = 1; s <= kSteps; ++s) {
      if (roles.main) {
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          const int m = F::kLow - s * kVec + j;
          const int col = (t - s) * kVec + j;
          if (m >= 0 && col >= 0) part[col] += sums[(m >= 0 ? m : 0) * width + t];
        }
      }
      __syncthreads();
    }
    if (t >= roles.main_threads) {  // the edge warp, every lane
      const int lane = t - roles.main_threads;
      for (int l = 0; l < F::kEdgeLanes; ++l) {
        if (lane == l) {
#pragma unroll
          for (int j = 0; j < kVec; ++j)
            part[FlatPlace<T, R>(roles.edge_t, roles.edge_k, j, d).col] += edge_sums[l][j];
        }
        __syncwarp();
      }
    }
    __syncthreads();
    float* out = partial + static_cast<long long>(blockIdx.x) * d;
    for (int col = t; col < d; col += blockDim.x) out[col] = part[col];
  }
};

}  // namespace norm
}  // namespace ladder
