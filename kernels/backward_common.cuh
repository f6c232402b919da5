// Shared pieces of the backward kernels: the per-block weight-gradient partials and the access
// rule that keeps a thread on the same columns for every row.
//
// Weight gradients (dw, dgamma, dbeta) are sums over rows. No atomics: each block of a fixed-size
// grid loops over its rows and keeps the sums for the columns its threads own, then writes one
// partial row partial[blockIdx.x][0..d). column_sum.cuh adds the partial rows in a fixed order.
// The result depends only on rows, d and the launch geometry, so it is bit-for-bit reproducible.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

// The most threads a backward block may have (the kernels' __launch_bounds__); sizes the
// shared buffer that joins a block's row groups.
constexpr int kBackwardMaxThreads = 512;

// Backward rows always use the unshifted chunk grid (phase 0), so a thread's columns are the same
// in every row and its gradient sums can stay in registers. A row whose pointers are not all
// 16-byte aligned is read and written element by element.
__device__ __forceinline__ RowAccess aligned_access(const void* const* rows, int count) {
  RowAccess a;
  a.vec = true;
  for (int k = 0; k < count; ++k) a.vec = a.vec && offset_in_chunk(rows[k]) == 0;
  a.phase = 0;
  return a;
}

// Joins the row groups of a block and writes partial[blockIdx.x][c] = sum over groups (in group
// order) of acc for column c. Every thread of the block must call it (it has barriers); it runs
// once per block, after the row loop.
template <typename T, int ITEMS>
__device__ __forceinline__ void write_block_partial(float* partial, int d,
                                                    const float (&acc)[ITEMS][Elem<T>::kVec]) {
  constexpr int kVec = Elem<T>::kVec;
  __shared__ float exchange[kBackwardMaxThreads * kVec];
  const int tpr = blockDim.x;
  const int groups = blockDim.y;
  const int threads = tpr * groups;
  const int tid = threadIdx.y * tpr + threadIdx.x;
  float* out = partial + static_cast<long long>(blockIdx.x) * d;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    __syncthreads();  // the previous item's reads are done
#pragma unroll
    for (int e = 0; e < kVec; ++e) exchange[threadIdx.y * tpr * kVec + threadIdx.x * kVec + e] =
        acc[i][e];
    __syncthreads();
    // Column of exchange slot j in item i: (i * tpr) * kVec + j, the unshifted chunk grid.
    for (int j = tid; j < tpr * kVec; j += threads) {
      const int col = i * tpr * kVec + j;
      if (col >= d) continue;
      float sum = 0.f;
      for (int g = 0; g < groups; ++g) sum += exchange[g * tpr * kVec + j];
      out[col] = sum;
    }
  }
}

// The streaming path (a row wider than one tile; one row group per block): the block's partial
// row lives in global memory instead of registers. Only this thread touches these columns of
// this partial row, so the read-modify-write needs no synchronization and stays deterministic.
template <typename T>
__device__ __forceinline__ void accumulate_partial_chunk(float* partial_row, int c0, int d,
                                                         bool first_row,
                                                         const float (&add)[Elem<T>::kVec]) {
#pragma unroll
  for (int e = 0; e < Elem<T>::kVec; ++e) {
    const int c = c0 + e;
    if (c < 0 || c >= d) continue;
    partial_row[c] = first_row ? add[e] : partial_row[c] + add[e];
  }
}

}  // namespace norm
}  // namespace ladder
