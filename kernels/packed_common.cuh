// Packed spans: the forward schedule for contiguous tensors whose rows are off the 16-byte grid
// (16-bit d = 2049: every row starts at another offset inside a chunk).
//
// Why: the register kernels give such a row its own shifted chunk grid, and each row still pays
// its two edge chunks element by element, a weight gathered element by element (7 rows in 8) and
// a reduction across several warps. Nsight Compute has them issue-bound at about half the copy
// ceiling (reports/h200/notes.md). But when the rows are packed (row stride == d), span_rows
// consecutive rows are one run of memory that starts on the 16-byte grid whenever
// span_rows * d * sizeof(T) is a multiple of 16 (8 rows of an odd d in 16-bit, 4 in fp32). A
// block takes such a span as one flat array: thread t works on chunks t, t + NT, ... of it, all
// on the 16-byte grid. A chunk lies in one row, or straddles two (one chunk a row boundary). Each chunk's sum goes to shared memory, one warp a row adds its row's sums in a
// fixed order (deterministic), and the chunks are normalized and stored. The weight is kept in
// shared memory as VEC copies, copy p shifted left by p elements, so that the weight of any chunk
// that does not straddle is one aligned 16-byte read of the copy its column phase picks.
// The spans pass through two shared-memory stages: while a block works on one span, the next is
// on its way in (cp.async). Each thread copies exactly the chunks it later reads (chunks t, t +
// NT, ... of every span), so cp.async.wait_group alone orders a copy before its use, and a stage
// is refilled only after the same thread has read it. (Held in registers instead, with no
// stage, a span left a block nothing in flight between its loads: 0.57 of the copy ceiling at
// rmsnorm bf16 16384x2049, call 68.)
//
// Launch contract (each kernel traps rather than leave elements unwritten): a 1-D block of whole
// warps; every row tensor 16-byte aligned with row stride d; d >= VEC (a chunk then touches at
// most two rows); span_rows * d * sizeof(T) a multiple of 16; PackedLayout::bytes() of dynamic
// shared memory.
#pragma once
#include "norm_common.cuh"
#include "row_reads.cuh"
#include "staged_common.cuh"

namespace ladder {
namespace norm {

// The shared memory of a packed block, each part 16-byte aligned. kernels/README.md gives the
// same sizes for callers who launch these kernels themselves.
//   weights: WEIGHTS tensors (rmsnorm and add_rmsnorm 1, layernorm 2: gamma and beta) x COPIES
//            copies (VEC shifted ones, or the weight alone) x copy_len elements (d rounded up to
//            VEC, and one chunk more for the funnel shift's second read);
//   stages:  2 stages x TENSORS staged inputs (add_rmsnorm 2: x and r) x span_chunks chunks;
//   partial: one float a chunk of the span (the sum over the chunk's elements in its first row);
//   carry:   span_rows + 1 floats (the straddling chunk's sum over the next row, by that row);
//   stats:   2 * span_rows floats (per row: rmsnorm 1 / rms; layernorm mean and 1 / std).
template <typename T, int WEIGHTS, int TENSORS, int COPIES>
struct PackedLayout {
  static constexpr int kVec = Elem<T>::kVec;
  int d, span_rows, copy_len, span_chunks;
  __device__ __forceinline__ PackedLayout(int d_, int span_rows_)
      : d(d_), span_rows(span_rows_), copy_len((d_ + kVec - 1) / kVec * kVec + kVec),
        span_chunks(static_cast<int>((static_cast<long long>(span_rows_) * d_) / kVec)) {}
  __device__ __forceinline__ static int align16(int bytes) { return (bytes + 15) / 16 * 16; }
  __device__ __forceinline__ int stages_offset() const {
    return WEIGHTS * COPIES * copy_len * static_cast<int>(sizeof(T));
  }
  __device__ __forceinline__ int partial_offset() const {
    return stages_offset() + 2 * TENSORS * span_chunks * kChunkBytes;
  }
  __device__ __forceinline__ int carry_offset() const {
    return partial_offset() + align16(span_chunks * 4);
  }
  __device__ __forceinline__ int stats_offset() const {
    return carry_offset() + align16((span_rows + 1) * 4);
  }
  __device__ __forceinline__ int bytes() const { return stats_offset() + align16(2 * span_rows * 4); }
};

// The launch contract above.
template <typename T, int WEIGHTS, int TENSORS, int COPIES, int N>
__device__ __forceinline__ void trap_unless_packed(
    const PackedLayout<T, WEIGHTS, TENSORS, COPIES>& layout, const void* const (&tensors)[N],
    const int (&strides)[N]) {
  constexpr int kVec = Elem<T>::kVec;
  const int d = layout.d;
  bool ok = blockDim.y == 1 && blockDim.x % 32 == 0 && layout.span_rows > 0 && d >= kVec &&
            (static_cast<long long>(layout.span_rows) * d) % kVec == 0 &&
            static_cast<unsigned>(layout.bytes()) <= dynamic_shared_bytes();
#pragma unroll
  for (int k = 0; k < N; ++k) ok = ok && offset_in_chunk(tensors[k]) == 0 && strides[k] == d;
  if (!ok) __trap();
}

__device__ __forceinline__ int block_thread() {
  return static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
}
__device__ __forceinline__ int block_threads() { return static_cast<int>(blockDim.x * blockDim.y); }

// Fills the copies of one weight: copy p holds w[p], w[p + 1], ..., zero past d.
template <typename T, int COPIES>
__device__ __forceinline__ void fill_weight_copies(T* copies, const T* w, int d, int copy_len) {
#pragma unroll 1
  for (int p = 0; p < COPIES; ++p)
    for (int i = block_thread(); i < copy_len; i += block_threads())
      copies[p * copy_len + i] = i + p < d ? w[i + p] : Elem<T>::from_float(0.f);
}

// The weight chunk for columns [col, col + VEC) of a row (col + VEC <= d). With VEC shifted
// copies: one aligned read of the copy the column's phase picks. With the weight alone: the two
// aligned chunks around it, joined by a funnel shift (VEC times less shared memory).
template <typename T, int COPIES>
__device__ __forceinline__ uint4 weight_chunk(const T* copies, int copy_len, int col) {
  constexpr int kVec = Elem<T>::kVec;
  const int phase = col & (kVec - 1);
  if constexpr (COPIES == kVec) {
    return *reinterpret_cast<const uint4*>(copies + phase * copy_len + (col - phase));
  } else {
    const uint4* pair = reinterpret_cast<const uint4*>(copies + (col - phase));
    if (phase == 0) return pair[0];
    return funnel16(pair[0], pair[1], phase * static_cast<int>(sizeof(T)));
  }
}

// Where thread t's chunks of a span lie: its k-th is the span's chunk t + k * NT, starting at
// element (t + k * NT) * VEC, in span row `row` at column `col`. Each step adds NT * VEC
// elements: q rows and rem columns, with one carry (rem < d). The divisions happen once a kernel.
struct SpanWalk {
  int first_row, first_col, q, rem;
  __device__ __forceinline__ SpanWalk(int d, int vec) {
    const int nt = block_threads(), t = block_thread();
    first_row = t * vec / d;
    first_col = t * vec - first_row * d;
    q = nt * vec / d;
    rem = nt * vec - q * d;
  }
  __device__ __forceinline__ void next(int& row, int& col, int d) const {
    row += q;
    col += rem;
    if (col >= d) {
      col -= d;
      ++row;
    }
  }
};

// One staged input of a span (x, or r): its global span and its shared-memory stage.
template <typename T>
struct StagedSpan {
  const T* global;  // the span's first element, 16-byte aligned
  uint4* stage;     // span_chunks slots
  int count;        // elements in the span (a last span may be short)

  // Starts the copies of this thread's whole chunks (a short last span's partial chunk is
  // gathered from global memory when used instead).
  __device__ __forceinline__ void copy_in() const {
    constexpr int kVec = Elem<T>::kVec;
    const int whole = count / kVec;
    for (int c = block_thread(); c < whole; c += block_threads())
      cp_async16(stage + c, global + c * kVec);
  }
  // Chunk c, packed, on its first read: from the stage when whole, else gathered (zero past
  // count) and parked in its slot, so that later passes read the stage only (h may be r, y x).
  __device__ __forceinline__ uint4 first_read(int c) const {
    constexpr int kVec = Elem<T>::kVec;
    if ((c + 1) * kVec <= count) return stage[c];
    const uint4 raw = gather_chunk<T, false>(global, c * kVec, count);
    stage[c] = raw;
    return raw;
  }
  __device__ __forceinline__ uint4 reread(int c) const { return stage[c]; }
};

// Stores a chunk of a span: 16 bytes when whole (one store: store_chunk's ONE_STORE), else its
// elements below `count`.
template <typename T>
__device__ __forceinline__ void store_span_chunk(T* span, int c, int count,
                                                 const float (&v)[Elem<T>::kVec]) {
  store_chunk<T, false, Edge::Rolled, true>(span, c * Elem<T>::kVec, count, true, v);
}

// Sums of a chunk's values (f, or f squared) split at a row's end: `first` over the columns
// below d (the chunk's own row), `next` over the rest (the next row).
template <int N>
__device__ __forceinline__ void split_sums(const float (&f)[N], int col, int d, float& first,
                                           float& next) {
  first = 0.f;
  next = 0.f;
  if (col + N <= d) {
#pragma unroll
    for (int e = 0; e < N; ++e) first += f[e];
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) {
      if (col + e < d) {
        first += f[e];
      } else {
        next += f[e];
      }
    }
  }
}

// One row's total from the chunk sums: the chunks that start in row r (in order, strided over
// the warp's lanes, then a butterfly: a fixed order, so deterministic), plus the carry of the
// chunk that straddles into it. Every lane of the warp gets the total.
__device__ __forceinline__ float row_total(const float* partial, const float* carry, int r, int d,
                                           int vec) {
  const long long start = static_cast<long long>(r) * d;
  const int lo = static_cast<int>((start + vec - 1) / vec);
  const int hi = static_cast<int>((start + d - 1) / vec);
  const int lane = static_cast<int>(threadIdx.x & 31);
  float s[1] = {0.f};
  for (int c = lo + lane; c <= hi; c += 32) s[0] += partial[c];
  warp_sum(s);
  return start % vec != 0 ? s[0] + carry[r] : s[0];
}

// The block's walk over spans: block b takes spans b, b + G, ... (G = gridDim.x); the loop
// condition is uniform per block, so its body may use barriers.
struct SpanLoop {
  long long first, step;
  __device__ __forceinline__ explicit SpanLoop(int span_rows)
      : first(static_cast<long long>(blockIdx.x) * span_rows),
        step(static_cast<long long>(gridDim.x) * span_rows) {}
};

}  // namespace norm
}  // namespace ladder
