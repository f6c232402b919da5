// Packed spans: the forward schedule for contiguous tensors whose rows are off the 16-byte grid
// (16-bit d = 2049: every row starts at another offset inside a chunk).
//
// Why: the register kernels give such a row a shifted chunk grid, and each row still pays its two
// edge chunks element by element and a weight gathered element by element (7 rows in 8); the
// profile is issue-bound at about half the copy ceiling (reports/h200/notes.md). But when the
// rows are packed (row stride == d), span_rows consecutive rows are one contiguous run of memory
// that starts on the 16-byte grid whenever span_rows * d * sizeof(T) is a multiple of 16
// (8 rows of an odd d in 16-bit, 4 in fp32). So a block copies a whole span into shared memory
// with 16-byte copies only, normalizes its rows there (each row on its own column grid, so the
// weight is read with 16-byte loads too), and copies the span back out, again 16 bytes at a time.
// Only the shared-memory side sees the rows' odd offsets.
//
// Launch contract (each kernel traps rather than leave elements unwritten): every row tensor
// 16-byte aligned with row stride d; span_rows a multiple of blockDim.y with span_rows * d *
// sizeof(T) a multiple of 16; at least span_rows * d * sizeof(T) bytes of dynamic shared memory
// per staged tensor.
#pragma once
#include "norm_common.cuh"
#include "staged_common.cuh"

namespace ladder {
namespace norm {

__device__ __forceinline__ unsigned dynamic_shared_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// The launch contract above, for `count` row tensors (all non-null) and `staged` of them held in
// shared memory at once.
template <typename T, int N>
__device__ __forceinline__ void trap_unless_packed(const void* const (&tensors)[N],
                                                   const int (&strides)[N], int span_rows, int d,
                                                   int staged) {
  const long long span_bytes = static_cast<long long>(span_rows) * d * sizeof(T);
  bool ok = span_rows > 0 && span_rows % static_cast<int>(blockDim.y) == 0 &&
            span_bytes % kChunkBytes == 0 &&
            span_bytes * staged <= static_cast<long long>(dynamic_shared_bytes());
#pragma unroll
  for (int k = 0; k < N; ++k) ok = ok && offset_in_chunk(tensors[k]) == 0 && strides[k] == d;
  if (!ok) __trap();
}

// The threads of the block, numbered row-major, for the span copies.
__device__ __forceinline__ int block_thread() {
  return static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
}
__device__ __forceinline__ int block_threads() { return static_cast<int>(blockDim.x * blockDim.y); }

// Starts copying `count` elements from src (global, 16-byte aligned) to dst (shared, 16-byte
// aligned): whole chunks with cp.async, a last span's remainder (count % VEC) element by element.
// Thread t takes chunks t, t + threads, ...: the same ones span_copy_out gives it, so a thread
// refills only slots it has itself emptied, and no barrier is needed between the two.
template <typename T>
__device__ __forceinline__ void span_copy_in(T* dst, const T* src, int count) {
  constexpr int kVec = Elem<T>::kVec;
  const int chunks = count / kVec;
  for (int c = block_thread(); c < chunks; c += block_threads())
    cp_async16(dst + c * kVec, src + c * kVec);
  for (int e = chunks * kVec + block_thread(); e < count; e += block_threads()) dst[e] = src[e];
}

// Waits for this thread's copies, then for every thread's: the span is in shared memory.
__device__ __forceinline__ void span_landed() {
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
}

// Copies `count` elements from shared memory back out, as span_copy_in brought them in.
template <typename T>
__device__ __forceinline__ void span_copy_out(T* dst, const T* src, int count) {
  constexpr int kVec = Elem<T>::kVec;
  const int chunks = count / kVec;
  for (int c = block_thread(); c < chunks; c += block_threads())
    *reinterpret_cast<uint4*>(dst + c * kVec) = *reinterpret_cast<const uint4*>(src + c * kVec);
  for (int e = chunks * kVec + block_thread(); e < count; e += block_threads()) dst[e] = src[e];
}

// A row of a span in shared memory: where it starts, and how far past a 16-byte boundary
// (uniform over the row, so the branches below do not diverge).
template <typename T>
struct SpanRow {
  T* at;
  int skew_bytes;
  __device__ __forceinline__ SpanRow(T* span, int k, int d)
      : at(span + static_cast<long long>(k) * d),
        skew_bytes(static_cast<int>((static_cast<long long>(k) * d * sizeof(T)) % kChunkBytes)) {}
};

// The chunk at column c0 of a span row, packed, zero outside [0, cols). Interior chunks are the
// two aligned 16-byte chunks around them joined by a funnel shift: consecutive threads read
// consecutive 16-byte slots, free of bank conflicts. Chunks whose aligned pair would reach past
// either end of the row are read element by element, so no thread touches a neighbouring row's
// bytes (another row group may be writing them).
template <typename T>
__device__ __forceinline__ uint4 span_row_load(const SpanRow<T>& row, int c0, int cols) {
  constexpr int kVec = Elem<T>::kVec;
  if (row.skew_bytes == 0 && c0 >= 0 && c0 + kVec <= cols)
    return *reinterpret_cast<const uint4*>(row.at + c0);
  const int skew = row.skew_bytes / static_cast<int>(sizeof(T));
  if (row.skew_bytes != 0 && c0 - skew >= 0 && c0 - skew + 2 * kVec <= cols) {
    const uint4* pair = reinterpret_cast<const uint4*>(row.at + c0 - skew);
    return funnel16(pair[0], pair[1], row.skew_bytes);
  }
  if (c0 >= cols || c0 + kVec <= 0) return make_uint4(0u, 0u, 0u, 0u);
  return gather_chunk<T, false>(row.at, c0, cols);
}

// Stores the columns of the chunk at c0 that fall inside [0, cols) into a span row, touching no
// other byte: the widest accesses the row's offset allows, element by element at its ends.
template <typename T>
__device__ __forceinline__ void span_row_store(const SpanRow<T>& row, int c0, int cols,
                                               const float (&v)[Elem<T>::kVec]) {
  constexpr int kVec = Elem<T>::kVec;
  if (c0 < 0 || c0 + kVec > cols) {
    store_chunk(row.at, c0, cols, false, v);
    return;
  }
  const uint4 p = Elem<T>::pack(v);
  T* at = row.at + c0;
  if (row.skew_bytes == 0) {
    *reinterpret_cast<uint4*>(at) = p;
  } else if (row.skew_bytes % 8 == 0) {
    reinterpret_cast<uint2*>(at)[0] = make_uint2(p.x, p.y);
    reinterpret_cast<uint2*>(at)[1] = make_uint2(p.z, p.w);
  } else if (row.skew_bytes % 4 == 0) {
    unsigned* q = reinterpret_cast<unsigned*>(at);
    q[0] = p.x; q[1] = p.y; q[2] = p.z; q[3] = p.w;
  } else {
    // 16-bit elements at an odd offset: the first and last element alone, the six between them
    // as three aligned words.
    unsigned short* half = reinterpret_cast<unsigned short*>(at);
    unsigned* q = reinterpret_cast<unsigned*>(half + 1);
    half[0] = static_cast<unsigned short>(p.x);
    q[0] = __funnelshift_r(p.x, p.y, 16);
    q[1] = __funnelshift_r(p.y, p.z, 16);
    q[2] = __funnelshift_r(p.z, p.w, 16);
    half[7] = static_cast<unsigned short>(p.w >> 16);
  }
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
