// Shared device-side building blocks for the normalization kernels: 16-byte packing per dtype,
// chunk loads and stores that take the vector path only when it is legal, and row reductions.
// Reads of rows and weights off the 16-byte grid build on these in row_reads.cuh.
//
// Layout every kernel in this folder shares:
// - A "row group" of blockDim.x threads owns one row at a time; blockDim.y row groups share a block.
//   blockDim.x is a power of two up to 32 (the group lives inside one warp, reductions are shuffles
//   only) or a multiple of 32 (the group is several warps; one shared-memory exchange, with a
//   barrier for the whole block, joins them). A block has at most 32 warps.
// - A row is cut into 16-byte "chunks" of VEC elements. Chunk q of a tile covers the columns
//   [q*VEC - phase, q*VEC - phase + VEC), where `phase` is how many elements the row's first
//   element sits past a 16-byte boundary. Shifting the chunk grid by the phase is what lets rows of
//   odd length (d = 2049) still use 16-byte accesses for everything but their two ends.
// - Thread tx of a group owns chunks i*blockDim.x + tx for i < ITEMS: consecutive threads touch
//   consecutive 16-byte pieces, so each warp-wide access is coalesced.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "global_loads.cuh"

namespace ladder {
namespace norm {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kChunkBytes = 16;

// LayerNorm's standardized value (v - mean) * rstd for one row's mean and rstd. 16-bit builds
// take it as one fma, v * rstd + shift with shift = -mean * rstd (derived once a row), where the
// subtraction and the product are two instructions. Its rounding is at the size of
// (|v| + |mean|) * rstd rather than of the result: under 2^-17 absolute while |mean| < 100 std,
// 1/128 of an fp16 ulp at 1, and the error scale the oracle holds LayerNorm's y to
// (oracles/norms.cpp, layernorm_scales) is that size already.
// fp32 builds keep the exact difference (not timed with the fma).
// Measured on the H200 (call 246, reports/h200/bench-ln-246.txt, two rounds, cold, against the
// two-instruction form): bf16 65536x1024 69.6 -> 68.9-69.1 us, 8192x8192 69.9-70.1 -> 69.6-69.8,
// 4096x16384 72.1 -> 71.7, f16 65536x1024 71.5-71.6 -> 70.5, 4096x16384 71.1-71.4 -> 70.5-70.7,
// 2048x32768 level; every LayerNorm verify rung passed with it (verify-ln-both-246.txt).
template <typename T>
struct Standardize {
  float mu, inv_std, shift;
  __device__ __forceinline__ Standardize(float mean, float rstd)
      : mu(mean), inv_std(rstd), shift(-mean * rstd) {}
  __device__ __forceinline__ float operator()(float v) const {
    if constexpr (sizeof(T) == 2) return fmaf(v, inv_std, shift);
    else return (v - mu) * inv_std;
  }
};

// Element <-> float conversions and 16-byte packing. Accumulation is always fp32.
template <typename T> struct Elem;

template <> struct Elem<float> {
  static constexpr int kVec = 4;
  static __device__ __forceinline__ float to_float(float v) { return v; }
  static __device__ __forceinline__ float from_float(float v) { return v; }
  static __device__ __forceinline__ unsigned bits(float v) { return __float_as_uint(v); }
  static __device__ __forceinline__ float from_bits(unsigned b) { return __uint_as_float(b); }
  static __device__ __forceinline__ void unpack(const uint4& u, float (&f)[kVec]) {
    f[0] = __uint_as_float(u.x); f[1] = __uint_as_float(u.y);
    f[2] = __uint_as_float(u.z); f[3] = __uint_as_float(u.w);
  }
  static __device__ __forceinline__ uint4 pack(const float (&f)[kVec]) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]),
                      __float_as_uint(f[3]));
  }
};

template <> struct Elem<__nv_bfloat16> {
  static constexpr int kVec = 8;
  static __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 from_float(float v) {
    return __float2bfloat16_rn(v);
  }
  static __device__ __forceinline__ unsigned bits(__nv_bfloat16 v) {
    return __bfloat16_as_ushort(v);
  }
  static __device__ __forceinline__ __nv_bfloat16 from_bits(unsigned b) {
    return __ushort_as_bfloat16(static_cast<unsigned short>(b));
  }
  // A bf16 is the top half of an fp32, so widening is a shift or a mask: cheaper than cvt.
  static __device__ __forceinline__ void unpack_word(unsigned w, float& lo, float& hi) {
    lo = __uint_as_float(w << 16);
    hi = __uint_as_float(w & 0xffff0000u);
  }
  static __device__ __forceinline__ unsigned pack_word(float lo, float hi) {
    __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);  // .x (low half) = lo
    return *reinterpret_cast<unsigned*>(&p);
  }
  static __device__ __forceinline__ void unpack(const uint4& u, float (&f)[kVec]) {
    unpack_word(u.x, f[0], f[1]); unpack_word(u.y, f[2], f[3]);
    unpack_word(u.z, f[4], f[5]); unpack_word(u.w, f[6], f[7]);
  }
  static __device__ __forceinline__ uint4 pack(const float (&f)[kVec]) {
    return make_uint4(pack_word(f[0], f[1]), pack_word(f[2], f[3]), pack_word(f[4], f[5]),
                      pack_word(f[6], f[7]));
  }
};

template <> struct Elem<__half> {
  static constexpr int kVec = 8;
  static __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half from_float(float v) { return __float2half_rn(v); }
  static __device__ __forceinline__ unsigned bits(__half v) { return __half_as_ushort(v); }
  static __device__ __forceinline__ __half from_bits(unsigned b) {
    return __ushort_as_half(static_cast<unsigned short>(b));
  }
  static __device__ __forceinline__ void unpack_word(unsigned w, float& lo, float& hi) {
    __half2 p = *reinterpret_cast<__half2*>(&w);
    float2 f = __half22float2(p);
    lo = f.x;
    hi = f.y;
  }
  static __device__ __forceinline__ unsigned pack_word(float lo, float hi) {
    __half2 p = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&p);
  }
  static __device__ __forceinline__ void unpack(const uint4& u, float (&f)[kVec]) {
    unpack_word(u.x, f[0], f[1]); unpack_word(u.y, f[2], f[3]);
    unpack_word(u.z, f[4], f[5]); unpack_word(u.w, f[6], f[7]);
  }
  static __device__ __forceinline__ uint4 pack(const float (&f)[kVec]) {
    return make_uint4(pack_word(f[0], f[1]), pack_word(f[2], f[3]), pack_word(f[4], f[5]),
                      pack_word(f[6], f[7]));
  }
};

__device__ __forceinline__ unsigned offset_in_chunk(const void* p) {
  return static_cast<unsigned>(reinterpret_cast<unsigned long long>(p) & (kChunkBytes - 1));
}

// A shared-memory pointer as the 32-bit address the PTX of cp.async and mbarrier takes.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The dynamic shared memory this launch was given.
__device__ __forceinline__ unsigned dynamic_shared_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// How a row may be accessed. `vec` is true only when every listed row pointer sits at the same
// offset inside a 16-byte chunk (and that offset is a whole number of elements): then one shifted
// chunk grid is 16-byte aligned for all of them at once. Otherwise every access is scalar.
struct RowAccess {
  bool vec = false;
  int phase = 0;  // elements from the previous 16-byte boundary to the row's first element
};

// NULLABLE: null pointers after rows[0] (optional tensors) are skipped; rows[0] is never null.
template <typename T, bool NULLABLE = false>
__device__ __forceinline__ RowAccess row_access(const void* const* rows, int count) {
  RowAccess a;
  const unsigned off = offset_in_chunk(rows[0]);
  bool same = (off % sizeof(T)) == 0;
  for (int k = 1; k < count; ++k)
    same = same && ((NULLABLE && rows[k] == nullptr) || offset_in_chunk(rows[k]) == off);
  a.vec = same;
  a.phase = same ? static_cast<int>(off / sizeof(T)) : 0;
  return a;
}

// One 16-byte global store (st.global.v4, the default cache policy) to a 16-byte aligned p.
// Written as `*reinterpret_cast<uint4*>(row + c0) = v`, the compiler split the store into four
// 32-bit stores wherever it could not see that row + c0 is 16-byte aligned (the phase kernels'
// rows off the 16-byte grid: Nsight Compute, call 217), four times the store instructions and
// requests of the aligned kernels. The "memory" clobber keeps it ordered with the loads and
// stores around it, as a plain store to a pointer that may alias them is.
__device__ __forceinline__ void store_16_bytes(void* p, const uint4& v) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(p)),
               "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// How store_chunk writes a chunk that is not whole on the 16-byte path. Its warp waits for its
// slowest lane, and a block, at the row's barrier, for its slowest warp, so an edge lane's loop
// holds up every thread of the block. Chosen per kernel by measurement (call 77,
// reports/h200/bench-edge-stores.txt): the backward kernels gain 4-13% on rows that leave
// their tile partly empty (d = 2049, 2056, 5125); the faster policies cost registers that make
// add_rmsnorm spill (forward 16384x4096: 0.96 -> 0.91), so it keeps the rolled loop.
enum class Edge {
  Rolled,       // every such chunk: a rolled element loop (fewest registers)
  SkipOutside,  // a chunk wholly outside the row stores nothing; a straddling one as Rolled
  Unrolled,     // as SkipOutside, the straddling chunk's elements stored unrolled
};

// Stores the columns of the chunk at c0 that fall inside [0, d); never touches anything else,
// so neighbouring rows, row padding and redzones stay untouched.
// known_inside: the caller knows the chunk is whole and on the 16-byte path (tile_interior); a
// literal true there (with_inside_copy) folds the test away.
// ONE_STORE: the whole chunk goes out through store_16_bytes, for the kernels whose plain store
// the compiler split (the forward phase kernels and add_rmsnorm_bwd_phase); elsewhere the plain
// store keeps the machine code the kernels were measured with (the asm's ordering moves their
// instructions, with the same stores).
template <typename T, bool EVICT_FIRST = false, Edge EDGE = Edge::Rolled, bool ONE_STORE = false>
__device__ __forceinline__ void store_chunk(T* row, int c0, int d, bool vec,
                                            const float (&v)[Elem<T>::kVec],
                                            bool known_inside = false) {
  constexpr int kVec = Elem<T>::kVec;
  if (known_inside || (vec && c0 >= 0 && c0 + kVec <= d)) {
    if constexpr (EVICT_FIRST) {
      __stcs(reinterpret_cast<uint4*>(row + c0), Elem<T>::pack(v));
    } else {
      if constexpr (ONE_STORE) {
        store_16_bytes(row + c0, Elem<T>::pack(v));
      } else {
        *reinterpret_cast<uint4*>(row + c0) = Elem<T>::pack(v);
      }
    }
    return;
  }
  if (EDGE != Edge::Rolled && (c0 >= d || c0 + kVec <= 0)) return;
  const uint4 p = Elem<T>::pack(v);
  if constexpr (EDGE == Edge::Unrolled) {
    const unsigned w[4] = {p.x, p.y, p.z, p.w};
    constexpr int kPerWord = kVec / 4;  // elements per 32-bit word: 1 (fp32) or 2 (16-bit)
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const int c = c0 + e;
      const unsigned bits = kPerWord == 1 ? w[e] : (w[e / 2] >> (16 * (e % 2))) & 0xffffu;
      if (c >= 0 && c < d) row[c] = Elem<T>::from_bits(bits);
    }
  } else {
    // Rolled, through the packed bits: one loop body whatever the dtype.
    constexpr int kBits = 8 * static_cast<int>(sizeof(T));
    unsigned long long lo = (static_cast<unsigned long long>(p.y) << 32) | p.x;
    unsigned long long hi = (static_cast<unsigned long long>(p.w) << 32) | p.z;
#pragma unroll 1
    for (int e = 0; e < kVec; ++e) {
      const int c = c0 + e;
      if (c >= 0 && c < d) row[c] = Elem<T>::from_bits(static_cast<unsigned>(lo));
      lo = (lo >> kBits) | (hi << (64 - kBits));
      hi >>= kBits;
    }
  }
}

// Edge::Unrolled for 16-bit rows, where it measured faster; fp32 rows take `fp32_policy`.
template <typename T>
__host__ __device__ constexpr Edge edge_for_16bit(Edge fp32_policy) {
  return sizeof(T) == 2 ? Edge::Unrolled : fp32_policy;
}

// True when the weight pointer can use the vector path for a row with this access.
__device__ __forceinline__ bool weight_vec_ok(const void* w, const RowAccess& a) {
  return a.vec && a.phase == 0 && offset_in_chunk(w) == 0;
}

// Shared memory for joining the warps of one row group: two buffers used alternately, so a
// reduction never overwrites partials that another warp may still be reading from the previous
// one (the barrier inside the intervening reduction orders them).
template <int N>
struct ReduceScratch {
  float partial[2][32][N];
};

// Sums each of N values over the 32 lanes of the warp with an xor butterfly: every lane gets
// the bit-identical sums (each step adds the same pair in both lanes), in a fixed order.
template <int N>
__device__ __forceinline__ void warp_sum(float (&v)[N]) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] += __shfl_xor_sync(kFullMask, v[k], offset);
  }
}

// Sums N values over the row group; every thread of the group receives bit-identical results
// (xor butterflies add the same pair in each lane, and addition is commutative), so every thread
// makes the same decisions from them. Deterministic: the order is fixed by the geometry alone.
// Must be reached by every thread of the block when blockDim.x > 32, and by every lane of the
// warp otherwise. Orders shared memory as a barrier over the group does. The scratch may be wider
// than the values (M > N): a kernel that reduces different counts keeps one scratch for all.
// UNROLLED: the in-warp butterfly as five predicated steps (steps at or past a narrower group's
// width skipped; the test is uniform) instead of a counted loop that branches back after each.
// Measured on the H200 (calls 56-57, reports/h200/bench-lean.txt): together with tiles_for's
// ONE_TILE_FIRST and mean_of, LayerNorm forward and the backward kernels gained 1-4%; rmsnorm_fwd
// and add_rmsnorm_fwd lost 1-4%, so they keep the loop (and the IEEE per-row math).
// BLOCK: blockDim.x where the kernel fixes it at compile time (it traps on any other), or
// 0 where it is known only at run time. A block fixed wider than a warp never takes the one-warp
// return, so its builds leave out that return's barrier: with the barrier compiled into every
// build, ptxas allocated some wide builds differently (layernorm_fwd_loop<float, 512, 2>: 64
// registers and two rows an SM where it had 40 and three), which none of them needs.
template <bool UNROLLED = false, int BLOCK = 0, int N, int M>
__device__ __forceinline__ void row_group_sum(float (&v)[N], ReduceScratch<M>& scratch,
                                              int& parity) {
  static_assert(N <= M, "the scratch holds fewer values than the reduction");
  const int width = blockDim.x < 32 ? blockDim.x : 32;
  if constexpr (UNROLLED) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      if (offset < width) {
#pragma unroll
        for (int k = 0; k < N; ++k) v[k] += __shfl_xor_sync(kFullMask, v[k], offset);
      }
    }
  } else {
    for (int offset = width >> 1; offset > 0; offset >>= 1) {
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] += __shfl_xor_sync(kFullMask, v[k], offset);
    }
  }
  // A one-warp group's sum is shuffles alone, which exchange registers but order no memory: the
  // warp barrier gives its callers the ordering the block barrier below gives wider groups (the
  // lanes' reads of a shared stage before its first thread refills it, or of a cluster slot set
  // before it is sent the next sums). Without it racecheck reported stage refills racing the
  // lanes' reads in the one-warp bulk kernels, forward (call 338) and backward (call 343); with
  // it none, and schedule=warp's bf16 65536x1024 times did not move (call 343, an H100).
  if (blockDim.x <= 32) {
    if constexpr (BLOCK <= 32) __syncwarp();
    return;
  }
  const int lane = threadIdx.x & 31;
  const int warps = blockDim.x >> 5;
  // This group's slots: one per warp, after those of the groups above it in the block.
  float (*buf)[M] = scratch.partial[parity] + threadIdx.y * warps;
  parity ^= 1;
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) buf[threadIdx.x >> 5][k] = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = lane < warps ? buf[lane][k] : 0.f;
  warp_sum(v);
}

// A row's mean from its sum: a product with 1 / d, which the compiler hoists out of the row loop
// (d is uniform), where a division is a routine of its own per row and thread. LayerNorm and the
// backward kernels use it, with rsqrtf for 1 / sqrt (as PyTorch's normalization kernels do): in
// kernels bound by issue, with 16-32 values a thread, the per-row scalar math is not negligible.
// (Results differ from the IEEE division and square root by an ulp or two of fp32.)
__device__ __forceinline__ float mean_of(float sum, int d) {
  return sum * (1.f / static_cast<float>(d));
}

// RMSNorm's 1 / sqrt(mean(x^2) + eps) for the row, from the row's sum of squares (already joined
// over the row group). The group's first thread stores it to rstd[row] when `store` and rstd is
// given.
__device__ __forceinline__ float inv_rms_of(float row_sum_sq, int d, float eps, float* rstd,
                                            long long row, bool store) {
  const float inv_rms = 1.f / sqrtf(row_sum_sq / static_cast<float>(d) + eps);
  if (store && rstd != nullptr && threadIdx.x == 0) rstd[row] = inv_rms;
  return inv_rms;
}

// The same from each thread's sum of squares over its columns, joined here over the row group
// (row_group_sum: every thread of the block when the group is several warps).
__device__ __forceinline__ float row_inv_rms(float sum_sq, ReduceScratch<1>& scratch, int& parity,
                                             int d, float eps, float* rstd, long long row,
                                             bool store) {
  float sum[1] = {sum_sq};
  row_group_sum(sum, scratch, parity);
  return inv_rms_of(sum[0], d, eps, rstd, row, store);
}

// v = v * inv_rms * (w + w_offset). A plain weight (w_offset == 0, uniform over the launch)
// skips the add: one instruction fewer per element, measured on the H200 (call 19, f16
// add_rmsnorm 16384x4096: 0.885 -> 0.927 of the copy ceiling; bf16 and fp32 unchanged to +1%).
// The product is the same either way: w + 0 == w.
template <int N>
__device__ __forceinline__ void scale_by_weight(float (&v)[N], float inv_rms, const float (&wv)[N],
                                                float w_offset) {
  if (w_offset == 0.f) {
#pragma unroll
    for (int e = 0; e < N; ++e) v[e] = v[e] * inv_rms * wv[e];
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) v[e] = v[e] * inv_rms * (wv[e] + w_offset);
  }
}

// y = v * inv_rms * (w + w_offset), or v * inv_rms without a weight (w_raw: the packed weight
// chunk, read only when has_weight).
template <typename T>
__device__ __forceinline__ void scale_by_rms(float (&v)[Elem<T>::kVec], float inv_rms,
                                             bool has_weight, const uint4& w_raw, float w_offset) {
  if (has_weight) {
    float wv[Elem<T>::kVec];
    Elem<T>::unpack(w_raw, wv);
    scale_by_weight(v, inv_rms, wv, w_offset);
  } else {
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) v[e] *= inv_rms;
  }
}

// Columns a tile covers: blockDim.x threads x ITEMS chunks x VEC elements.
template <typename T, int ITEMS>
__device__ __forceinline__ int tile_columns() {
  return static_cast<int>(blockDim.x) * ITEMS * Elem<T>::kVec;
}

// The single-tile kernels (staged, several rows a thread) keep a whole row per thread group:
// a launch whose tile is too narrow for the row would leave columns unwritten, so it traps.
template <typename T, int ITEMS>
__device__ __forceinline__ void trap_unless_one_tile(int d, int phase) {
  if (tile_columns<T, ITEMS>() < d + phase) __trap();
}

// First column of thread tx's i-th chunk in tile t (can be negative in tile 0 when phase > 0).
template <typename T, int ITEMS>
__device__ __forceinline__ int chunk_column(int tile, int item, int phase) {
  return tile * tile_columns<T, ITEMS>() +
         (item * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x)) * Elem<T>::kVec -
         phase;
}

// Whether the chunk at column c0 lies wholly inside [0, cols): such a chunk needs no per-element
// column test (all but a row's two edge chunks and the tile's tail).
template <typename T>
__device__ __forceinline__ bool chunk_inside(int c0, int cols) {
  return c0 >= 0 && c0 + Elem<T>::kVec <= cols;
}

// Whether every chunk thread tx owns in tile t lies inside [0, cols) on the 16-byte path: then
// none of them needs a column test, an element-wise edge path or a gathered weight. A thread's
// chunks ascend with i, so the first and the last decide it.
template <typename T, int ITEMS>
__device__ __forceinline__ bool tile_interior(int tile, bool vec, int phase, int cols) {
  const int first = chunk_column<T, ITEMS>(tile, 0, phase);
  const int last = chunk_column<T, ITEMS>(tile, ITEMS - 1, phase);
  return vec && first >= 0 && last + Elem<T>::kVec <= cols;
}

// Runs body(true) when `inside` (every chunk the thread touches is whole and on the 16-byte
// path: its loads and stores need no test) and body(false) otherwise; with ENABLED false only the
// general copy is compiled. Each call inlines the body with a literal argument, so the inside
// copy has no per-chunk tests at all: two copies of a loop, one branch a tile. (A plain bool,
// not a generic lambda over a compile-time flag: NVRTC compiles no generic lambdas.)
template <bool ENABLED, typename Body>
__device__ __forceinline__ void with_inside_copy(bool inside, Body&& body) {
  if (ENABLED && inside) {
    body(true);
  } else {
    body(false);
  }
}

// Tiles needed to cover d columns with the given phase. One tile: the row lives in registers and
// DRAM is read once. More: the kernel streams the row twice (the second read mostly hits L2).
// ONE_TILE_FIRST: test for one tile before dividing (the common case; see row_group_sum's
// UNROLLED for where it is used and why).
template <typename T, int ITEMS, bool ONE_TILE_FIRST = false>
__device__ __forceinline__ int tiles_for(int d, int phase) {
  const int cols = tile_columns<T, ITEMS>();
  if (ONE_TILE_FIRST && d + phase <= cols) return 1;
  return (d + phase + cols - 1) / cols;
}

// Row loop bounds: row groups of a block take consecutive rows; the grid strides over the rest.
// The loop condition is uniform per block, so barriers inside the body are safe.
struct RowLoop {
  long long first, step;
  __device__ __forceinline__ RowLoop()
      : first(static_cast<long long>(blockIdx.x) * blockDim.y),
        step(static_cast<long long>(gridDim.x) * blockDim.y) {}
};

// Loads the chunk at c0 element by element as raw bits, zero bits outside [0, d): the edge chunks
// of a row, and every chunk of a row that cannot use 16-byte accesses. READ_ONLY goes through the
// read-only cache (weights, shared by every row).
template <typename T, bool READ_ONLY>
__device__ __forceinline__ uint4 gather_chunk(const T* row, int c0, int d) {
  constexpr int kVec = Elem<T>::kVec;
  constexpr int kPerWord = kVec / 4;  // elements per 32-bit word: 1 (fp32) or 2 (16-bit)
  // Every element load is issued before any is combined: one memory latency per chunk.
  unsigned b[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    const int c = c0 + e;
    b[e] = (c >= 0 && c < d) ? Elem<T>::bits(READ_ONLY ? __ldg(row + c) : row[c]) : 0u;
  }
  unsigned word[4] = {0u, 0u, 0u, 0u};
#pragma unroll
  for (int e = 0; e < kVec; ++e) word[e / kPerWord] |= b[e] << (16 * (e % kPerWord));
  return make_uint4(word[0], word[1], word[2], word[3]);
}

// One chunk, packed: a 16-byte load where legal, else gathered. For weights read chunk by chunk
// after the reduction (they hit L1), where holding a whole tile of them would cost registers.
// known_inside: as in store_chunk.
template <typename T, Load KIND = Load::Plain>
__device__ __forceinline__ uint4 load_chunk_packed(const T* row, int c0, int d, bool vec,
                                                   bool known_inside = false) {
  if (known_inside || (vec && c0 >= 0 && c0 + Elem<T>::kVec <= d))
    return load16<KIND>(reinterpret_cast<const uint4*>(row + c0));
  return gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
}

// Loads the ITEMS chunks a thread owns in tile `tile`, packed as stored (4 registers per chunk
// whatever T is). Every 16-byte load of the tile is issued before any chunk is used or any edge
// chunk is gathered: were each load followed by its use, as a per-chunk branch makes the compiler
// do, the thread would wait one full memory latency per chunk instead of one per tile.
// ZERO_FIRST (the backward kernels, which load a row ahead): an edge thread zeroes its chunks
// before its 16-byte loads rather than after them. Written after a load (on another lane's path
// of the same warp), the zero waits for that load to land, which ends the overlap of the row
// loaded ahead with the row before it: rmsnorm_bwd bf16 16384x2056, whose last warps own chunks
// past the row's end, 0.40 -> 0.66 of the copy ceiling (call 78, bench-edge-loads.txt). The
// forward kernels use their rows at once, gain nothing, and keep their registers (add_rmsnorm
// bf16 16384x4096 measured 0.96 -> 0.92 with it).
template <typename T, int ITEMS, Load KIND = Load::Plain, bool ZERO_FIRST = false>
__device__ __forceinline__ void load_tile(const T* row, int tile, bool vec, int phase, int d,
                                          uint4 (&raw)[ITEMS]) {
  constexpr int kVec = Elem<T>::kVec;
  // Most threads take this path; keeping the edge handling out of it keeps its registers few.
  if (tile_interior<T, ITEMS>(tile, vec, phase, d)) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      raw[i] = load16<KIND>(reinterpret_cast<const uint4*>(row + chunk_column<T, ITEMS>(tile, i, phase)));
    }
    return;
  }
  // Edge threads: the 16-byte loads first, without branches between them, then the chunks that
  // straddle an end of the row; chunks wholly outside it are zero and read nothing.
  bool full[ITEMS];
  if constexpr (ZERO_FIRST) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) raw[i] = make_uint4(0u, 0u, 0u, 0u);
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    full[i] = vec && c0 >= 0 && c0 + kVec <= d;
    if (full[i]) raw[i] = load16<KIND>(reinterpret_cast<const uint4*>(row + c0));
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (full[i]) continue;
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    const bool outside = c0 >= d || c0 + kVec <= 0;
    if constexpr (ZERO_FIRST) {
      if (!outside) raw[i] = gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
    } else {
      raw[i] = outside ? make_uint4(0u, 0u, 0u, 0u)
                       : gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
    }
  }
}

}  // namespace norm
}  // namespace ladder
