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
#include "norm_common.cuh"

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

// The reduce of the partial rows by the whole grid, after grid_barrier. Block b takes an equal
// share of the columns (four at a time where d, the stride and partial allow 16-byte loads); its
// warps' lanes take consecutive columns and its warps interleaved slices of the partial rows,
// whose sums are joined in slice order through `join` (dynamic shared memory no longer in use:
// join_bytes of it). Loads go through the L2 (ld.global.cg): this SM's L1 may not hold another
// block's partial row from before the barrier, but nothing here relies on that.
constexpr int kGridReduceLanes = 32;
constexpr int kGridReduceBatch = 8;

template <typename T, int COLS>
__device__ __forceinline__ void grid_column_tiles(T* out, const float* partial, int parts,
                                                  int d, int partial_stride, float* join,
                                                  int slices) {
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kGridReduceLanes;
  const int slice = tid / kGridReduceLanes;
  constexpr int kTile = kGridReduceLanes * COLS;  // columns a pass
  constexpr int kJoinRow = kTile + 4;             // floats a slice's row of join
  const long long blocks = gridDim.x;
  const int groups = (d + COLS - 1) / COLS;  // column groups of COLS
  const int per_block = static_cast<int>((groups + blocks - 1) / blocks);
  const int first = static_cast<int>(blockIdx.x) * per_block;
  const int last = min(groups, first + per_block);
  for (int g0 = first; g0 < last; g0 += kGridReduceLanes) {
    const int group = g0 + lane;
    const int col0 = group * COLS;
    float sum[COLS];
#pragma unroll
    for (int e = 0; e < COLS; ++e) sum[e] = 0.f;
    if (slice < slices && group < last) {
      for (int p0 = slice; p0 < parts; p0 += slices * kGridReduceBatch) {
        float v[kGridReduceBatch][COLS];
#pragma unroll
        for (int j = 0; j < kGridReduceBatch; ++j) {
          const int p = p0 + j * slices;
          const float* row = partial + static_cast<long long>(p) * partial_stride + col0;
          if constexpr (COLS == 4) {
            const float4 q = p < parts ? __ldcg(reinterpret_cast<const float4*>(row))
                                       : make_float4(0.f, 0.f, 0.f, 0.f);
            v[j][0] = q.x;
            v[j][1] = q.y;
            v[j][2] = q.z;
            v[j][3] = q.w;
          } else {
            v[j][0] = p < parts && col0 < d ? __ldcg(row) : 0.f;
          }
        }
#pragma unroll
        for (int j = 0; j < kGridReduceBatch; ++j)
#pragma unroll
          for (int e = 0; e < COLS; ++e) sum[e] += v[j][e];
      }
    }
    if (slices == 1) {  // no join: the one slice's sums are the totals
      if (slice == 0 && group < last) {
#pragma unroll
        for (int e = 0; e < COLS; ++e)
          if (col0 + e < d) out[col0 + e] = Elem<T>::from_float(sum[e]);
      }
      continue;
    }
    if (slice < slices) {
#pragma unroll
      for (int e = 0; e < COLS; ++e) join[slice * kJoinRow + lane * COLS + e] = sum[e];
    }
    __syncthreads();
    const int c = tid;  // one column of the tile a thread
    const int col = g0 * COLS + c;
    if (c < kTile && col < min(d, last * COLS)) {
      float total = 0.f;
      for (int s = 0; s < slices; ++s) total += join[s * kJoinRow + c];
      out[col] = Elem<T>::from_float(total);
    }
    __syncthreads();  // the tile's join read before the next tile's writes
  }
}

// This block's share of out, after grid_barrier. parts may be 0 (out all zeros). The block is
// 1-D (blockDim.x threads, a multiple of 32).
template <typename T>
__device__ __forceinline__ void grid_column_reduce(T* out, const float* partial, int parts, int d,
                                                   int partial_stride) {
  extern __shared__ uint4 grid_reduce_join[];
  unsigned join_bytes;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(join_bytes));
  const bool four = d % 4 == 0 && partial_stride % 4 == 0 && offset_in_chunk(partial) == 0;
  const int join_row_bytes = (kGridReduceLanes * (four ? 4 : 1) + 4) * 4;
  const int slices = max(1, min(static_cast<int>(blockDim.x) / kGridReduceLanes,
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
