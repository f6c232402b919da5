// Per-block copies of the weight vectors in dynamic shared memory, for the forward kernels.
//
// Why: every row reads the whole weight (and LayerNorm's bias). Read from global memory, a row of
// d elements costs d more elements of L1/L2 traffic, and with the row data streaming through L1
// most of it reaches L2: Nsight Compute showed RMSNorm bf16 16384x4096 with L2 88% busy and an
// L1 hit rate of 33%. A block that caches the weights once and then normalizes several rows
// reads them from shared memory instead, at no register cost.
//
// Layout of one cached vector of d elements: chunk 0 is zero, chunk j >= 1 holds columns
// [(j-1)*VEC, j*VEC), zero past d, and one more zero chunk follows. A row on a chunk grid shifted
// by `phase` (its chunks start at q*VEC - phase) reads each chunk as one 16-byte load when the
// phase is 0, else as two and a funnel shift: shared memory serves any phase, so misaligned rows
// (d = 2049) use the cache too.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

__device__ __forceinline__ unsigned dynamic_smem_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// 16-byte chunks one cached vector takes (the host's cached_weight_bytes mirrors this).
template <typename T>
__device__ __forceinline__ int cached_chunks(int d) {
  return (d + Elem<T>::kVec - 1) / Elem<T>::kVec + 2;
}

// Copies the N vectors (each nullable: a null one is skipped) into the block's dynamic shared
// memory, one slot of cached_chunks(d) chunks each, and returns true; returns false, touching
// nothing, when the launch gave too little dynamic shared memory (callers then read global
// memory as before). Every thread of the block must call it; it ends with a barrier.
template <typename T, int N>
__device__ __forceinline__ bool fill_weight_cache(const T* const (&src)[N], int d,
                                                  uint4* smem) {
  constexpr int kVec = Elem<T>::kVec;
  const int chunks = cached_chunks<T>(d);
  if (dynamic_smem_bytes() < static_cast<unsigned>(N * chunks * kChunkBytes)) return false;
  const int threads = static_cast<int>(blockDim.x * blockDim.y);
  const int tid = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (src[k] == nullptr) continue;
    const bool vec = offset_in_chunk(src[k]) == 0;
    for (int j = tid; j < chunks; j += threads) {
      const int c0 = (j - 1) * kVec;
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (j > 0 && c0 < d) v = load_chunk_packed<T, Load::ReadOnly>(src[k], c0, d, vec);
      smem[k * chunks + j] = v;
    }
  }
  __syncthreads();
  return true;
}

// Slot k of the cache.
template <typename T>
__device__ __forceinline__ const uint4* cache_slot(const uint4* smem, int k, int d) {
  return smem + k * cached_chunks<T>(d);
}

// The cached chunk of columns [c0, c0 + VEC) (c0 > -VEC), packed as stored; columns outside
// [0, cols) read as zero or as whatever the slot holds there, which callers never store. `skew`
// is (VEC - phase) % VEC for the row's phase: the same for every chunk of the row, so the branch
// does not diverge.
template <typename T>
__device__ __forceinline__ uint4 cached_chunk(const uint4* slot, int c0, int cols, int skew) {
  constexpr int kVec = Elem<T>::kVec;
  if (c0 >= cols) return make_uint4(0u, 0u, 0u, 0u);
  const int j = (c0 + kVec) / kVec;  // c0 + kVec > 0
  if (skew == 0) return slot[j];
  return funnel16(slot[j], slot[j + 1], skew * static_cast<int>(sizeof(T)));
}

__device__ __forceinline__ int cache_skew(int phase, int vec) { return (vec - phase) % vec; }

}  // namespace norm
}  // namespace ladder
