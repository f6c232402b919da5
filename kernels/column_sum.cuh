// The final, deterministic reduce of the backward kernels' weight-gradient partials:
// out[c] = sum over p of partial[p * partial_stride + c], in a fixed order, rounded once to T.
#pragma once
#include "dependent_launch.cuh"
#include "norm_common.cuh"

namespace ladder {

// Block: 32 x 32 threads. threadIdx.x picks one column, or four consecutive ones where the grid
// is too small for one a thread (gridDim.x * 32 < d: the planner's grid for d a multiple of 4,
// ceil(d / 128) blocks, one 16-byte load a thread and 512 bytes a warp); threadIdx.y one of 32
// interleaved slices of the partial rows, so each thread sums ceil(parts / 32) values a column,
// and the slices are added in slice order (norm::column_tile_sum, which says why four columns).
// column_sum_pair: the same grid x 2, blockIdx.y picking the pair's member. parts may be 0 (no
// rows): out is then all zeros. Launched programmatically after the kernel that wrote the
// partials (dependent_launch.cuh), it waits for that kernel first.
constexpr int kColumnSumThreads = 32;  // blockDim.x
constexpr int kColumnSumSlices = 32;   // blockDim.y
constexpr int kColumnSumBatch = 8;

namespace norm {

// Whether the partial rows allow four columns a thread (one 16-byte load of a row's four
// columns): d and the stride multiples of 4 floats, the base on the 16-byte grid. column_sum and
// the in-kernel reduce ask the same question.
__device__ __forceinline__ bool partial_rows_take_chunks(const float* partial, int d,
                                                         int partial_stride) {
  return d % 4 == 0 && partial_stride % 4 == 0 && offset_in_chunk(partial) == 0;
}

template <int COLS>
__host__ __device__ constexpr int column_join_row() {
  return kColumnSumThreads * COLS + 4;  // 16-byte rows; one column's slots in distinct banks
}

// One tile of the reduce, shared by column_sum (a block a tile) and the in-kernel reduce
// (grid_reduce.cuh: a block walks its share of the tiles). The tile is the kColumnSumThreads
// column groups of COLS columns from group g0 (groups past `last` left out); `lane` picks this
// thread's group and `slice` one of `slices` interleaved slices of the partial rows (threads
// with slice >= slices only join). The slices' sums are added in slice order through `join`
// (slices rows of column_join_row<COLS>() floats) by the threads of flat index below the tile's
// width, so the result's bits depend on neither the loads' order nor the grid. No barrier after
// the join's reads: a caller that reuses `join` adds one.
// Four columns a thread batch the loads of up to kColumnSumBatch partial rows: one column a
// thread, each thread adding its rows in a loop the compiler unrolls by 8, issues one load at a
// time where a thread has fewer than 8 rows (132 partial rows: 4 or 5), and took 8.4 us under
// Nsight Compute for 132 partial rows of 16384 columns (call 161) against 5.3 us batched (call
// 162). Odd widths keep one column a thread and that loop: four columns a thread off the 16-byte
// grid left 17 blocks at d = 2049 and lost 2 us (call 162), and batching the one column measured
// 1-3% slower at d = 2049 and 5125 (call 163). Loads bypass L1 (ld.global.cg): each partial is
// read once, and in the in-kernel reduce this SM's L1 may hold nothing of another block's rows.
template <typename T, int COLS>
__device__ __forceinline__ void column_tile_sum(T* out, const float* partial, int parts, int d,
                                                int partial_stride, int g0, int last, int lane,
                                                int slice, int slices, int flat, float* join,
                                                bool vector) {
  static_assert(COLS == 1 || COLS == 4, "COLS");
  constexpr int kTile = kColumnSumThreads * COLS;
  constexpr int kJoinRow = column_join_row<COLS>();
  const int group = g0 + lane;
  const int col0 = group * COLS;
  float sum[COLS];
#pragma unroll
  for (int e = 0; e < COLS; ++e) sum[e] = 0.f;
  if (slice < slices && group < last) {
    if constexpr (COLS == 1) {
#pragma unroll 8
      for (int p = slice; p < parts; p += slices)
        sum[0] += __ldcg(partial + static_cast<long long>(p) * partial_stride + col0);
    } else {
      for (int p0 = slice; p0 < parts; p0 += slices * kColumnSumBatch) {
        float v[kColumnSumBatch][COLS];
#pragma unroll
        for (int j = 0; j < kColumnSumBatch; ++j) {
          const int p = p0 + j * slices;
          const float* row = partial + static_cast<long long>(p) * partial_stride + col0;
          if (p < parts && vector) {
            const float4 q = __ldcg(reinterpret_cast<const float4*>(row));
            v[j][0] = q.x;
            v[j][1] = q.y;
            v[j][2] = q.z;
            v[j][3] = q.w;
          } else {
#pragma unroll
            for (int e = 0; e < COLS; ++e) v[j][e] = p < parts && col0 + e < d ? __ldcg(row + e) : 0.f;
          }
        }
#pragma unroll
        for (int j = 0; j < kColumnSumBatch; ++j)
#pragma unroll
          for (int e = 0; e < COLS; ++e) sum[e] += v[j][e];
      }
    }
  }
  const int end = min(d, last * COLS);  // the columns this caller's tiles cover
  if (slices == 1) {  // no join: the one slice's sums are the totals
    if (slice == 0 && group < last) {
#pragma unroll
      for (int e = 0; e < COLS; ++e)
        if (col0 + e < end) out[col0 + e] = Elem<T>::from_float(sum[e]);
    }
    return;
  }
  if (slice < slices) {
    float* slot = join + slice * kJoinRow + lane * COLS;
    if constexpr (COLS == 4) {
      *reinterpret_cast<float4*>(slot) = make_float4(sum[0], sum[1], sum[2], sum[3]);
    } else {
      slot[0] = sum[0];
    }
  }
  __syncthreads();
  const int col = g0 * COLS + flat;
  if (flat < kTile && col < end) {
    float total = 0.f;
    for (int s = 0; s < slices; ++s) total += join[s * kJoinRow + flat];
    out[col] = Elem<T>::from_float(total);
  }
}

// column_sum's block: one tile (blockIdx.x), lanes threadIdx.x, slices threadIdx.y; `join`
// holds kColumnSumSlices rows of column_join_row<COLS>() floats.
template <typename T, int COLS>
__device__ __forceinline__ void column_sum_tile(T* out, const float* partial, int parts, int d,
                                                int partial_stride, float* join) {
  const bool vector = COLS == 1 || partial_rows_take_chunks(partial, d, partial_stride);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  column_tile_sum<T, COLS>(out, partial, parts, d, partial_stride,
                           static_cast<int>(blockIdx.x) * kColumnSumThreads, (d + COLS - 1) / COLS,
                           tx, ty, kColumnSumSlices, ty * kColumnSumThreads + tx, join, vector);
}

template <typename T>
__device__ __forceinline__ void column_sum_block(T* out, const float* partial, int parts, int d,
                                                 int partial_stride) {
  __shared__ alignas(16) float join[kColumnSumSlices * column_join_row<4>()];
  wait_for_previous_launch();
  if (static_cast<long long>(gridDim.x) * kColumnSumThreads < d) {
    column_sum_tile<T, 4>(out, partial, parts, d, partial_stride, join);
  } else {
    column_sum_tile<T, 1>(out, partial, parts, d, partial_stride, join);
  }
}

}  // namespace norm

template <typename T>
__global__ void __launch_bounds__(kColumnSumThreads * kColumnSumSlices)
    column_sum(T* out, const float* partial, int parts, int d, int partial_stride) {
  norm::column_sum_block(out, partial, parts, d, partial_stride);
}

// Two reduces of the same shape in one launch (LayerNorm's dgamma and dbeta): one launch gap
// fewer.
template <typename T>
__global__ void __launch_bounds__(kColumnSumThreads * kColumnSumSlices)
    column_sum_pair(T* out0, const float* partial0, T* out1, const float* partial1, int parts,
                    int d, int partial_stride) {
  if (blockIdx.y == 0) {
    norm::column_sum_block(out0, partial0, parts, d, partial_stride);
  } else {
    norm::column_sum_block(out1, partial1, parts, d, partial_stride);
  }
}

}  // namespace ladder
