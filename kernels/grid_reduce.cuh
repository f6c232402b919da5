// The weight gradient's final reduce inside the backward kernel itself, after a grid-wide
// barrier, in place of a second launch (column_sum.cuh):
//   out[c] = sum over p of partial[p * partial_stride + c], in a fixed order, rounded once to T.
//
// Why: to take column_sum's launch (4.2 us under Nsight Compute, call 207) off the backward.
// Measured, it saved nothing where one block holds a row: the programmatic launch already hides
// most of column_sum under the kernel's tail, and this reduce costs about 1 us inside the kernel
// (rmsnorm_bwd bf16 2048x16384: 67.2-68.0 us against 67.5-68.0, call 207). Only layernorm_bwd
// with its rows split over clusters gained (bf16 1024x32768 86.3-86.9 against 87.9-88.2, call
// 208), and only there does the planner's auto take it.
//
// Contract: the launch is cooperative (every block resident at once, or the launch fails rather
// than deadlocks), and grid_sync points to one unsigned word that is zero before the launch; the
// launch leaves it zero again, so one zeroing at allocation serves every later launch on the same
// stream. The arrival count is the one atomic: the sums' order, and so their bits, depend only on
// the grid and the block.
#pragma once
#include "column_sum.cuh"

namespace ladder {
namespace norm {

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Every block of the grid waits here until all have arrived; the writes each made before it are
// then visible to all. The count rises to G as blocks arrive, and on to 2G as they leave: no block
// still waiting can miss the release, and the last to leave, after every other has passed its
// wait, sets the word back to zero for the next launch.
__device__ __forceinline__ void grid_barrier(unsigned* grid_sync) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    __threadfence();  // the block's writes, ordered by __syncthreads, before its arrival
    atomicAdd(grid_sync, 1u);
    while (load_acquire(grid_sync) < blocks) __nanosleep(32);
    __threadfence();
    if (atomicAdd(grid_sync, 1u) == 2 * blocks - 1) atomicExch(grid_sync, 0u);
  }
  __syncthreads();
}

// The reduce of the partial rows by the whole grid, after grid_barrier: block b takes an equal
// share of column_sum's tiles (column_tile_sum; four columns a thread where d, the stride and
// partial allow 16-byte loads), one after another, its warps' lanes taking a tile's column
// groups and its warps interleaved slices of the partial rows, joined in slice order through
// `join` (dynamic shared memory no longer in use: `slices` rows of it).
template <typename T, int COLS>
__device__ __forceinline__ void grid_column_tiles(T* out, const float* partial, int parts,
                                                  int d, int partial_stride, float* join,
                                                  int slices) {
  const int tid = static_cast<int>(threadIdx.x);
  const long long blocks = gridDim.x;
  const int groups = (d + COLS - 1) / COLS;  // column groups of COLS
  const int per_block = static_cast<int>((groups + blocks - 1) / blocks);
  const int first = static_cast<int>(blockIdx.x) * per_block;
  const int last = min(groups, first + per_block);
  for (int g0 = first; g0 < last; g0 += kColumnSumThreads) {
    column_tile_sum<T, COLS>(out, partial, parts, d, partial_stride, g0, last,
                             tid % kColumnSumThreads, tid / kColumnSumThreads, slices, tid, join,
                             true);
    __syncthreads();  // the tile's join read before the next tile's writes
  }
}

// This block's share of out, after grid_barrier. parts may be 0 (out all zeros). The block is
// 1-D (blockDim.x threads, a multiple of 32).
template <typename T>
__device__ __forceinline__ void grid_column_reduce(T* out, const float* partial, int parts, int d,
                                                   int partial_stride) {
  extern __shared__ uint4 grid_reduce_join[];
  const unsigned join_bytes = dynamic_shared_bytes();
  const bool four = partial_rows_take_chunks(partial, d, partial_stride);
  const int join_row_bytes = (four ? column_join_row<4>() : column_join_row<1>()) * 4;
  const int slices = max(1, min(static_cast<int>(blockDim.x) / kColumnSumThreads,
                                static_cast<int>(join_bytes) / join_row_bytes));
  float* join = reinterpret_cast<float*>(grid_reduce_join);
  if (four) {
    grid_column_tiles<T, 4>(out, partial, parts, d, partial_stride, join, slices);
  } else {
    grid_column_tiles<T, 1>(out, partial, parts, d, partial_stride, join, slices);
  }
}

}  // namespace norm
}  // namespace ladder
