// The final, deterministic reduce of the backward kernels' weight-gradient partials:
// out[c] = sum over p of partial[p * partial_stride + c], in a fixed order, rounded once to T.
#pragma once
#include "dependent_launch.cuh"
#include "norm_common.cuh"

namespace ladder {

// Block: 32 x 32 threads. threadIdx.x picks four consecutive columns (128 a block: one 16-byte
// load a thread, 512 bytes a warp), threadIdx.y one of 32 interleaved slices of the partial rows,
// so each thread sums ceil(parts / 32) values a column. A thread issues the loads of up to
// kColumnSumBatch partial rows before it adds any of them: added as they arrived, one load at a
// time, the reduce waited one memory round trip a partial row and took 8.4 us for 132 partial
// rows of 16384 columns under Nsight Compute (call 161, rmsnorm_bwd bf16 2048x16384), against
// 55.6 us for the backward kernel itself. The slices are then added in slice order through
// shared memory, so the sum's order, and its bits, do not depend on the batching. Partial rows
// off the 16-byte grid (d or partial_stride not a multiple of 4) are read a column at a time.
// Grid: ceil(d / 128) blocks (column_sum_pair: ceil(d / 128) x 2, blockIdx.y picking the pair's
// member). parts may be 0 (no rows): out is then all zeros. Launched programmatically after the
// kernel that wrote the partials (dependent_launch.cuh), it waits for that kernel first.
constexpr int kColumnSumThreadColumns = 4;
constexpr int kColumnSumColumns = 32 * kColumnSumThreadColumns;
constexpr int kColumnSumSlices = 32;
constexpr int kColumnSumBatch = 8;

namespace norm {

template <typename T>
__device__ __forceinline__ void column_sum_block(T* out, const float* partial, int parts, int d,
                                                 int partial_stride) {
  constexpr int kCols = kColumnSumThreadColumns;
  // Rows of 132 floats: 16-byte aligned for the float4 stores below, and a row's 32 slots of
  // one column index fall in distinct banks for the final pass.
  __shared__ alignas(16) float slice_sums[kColumnSumSlices][kColumnSumColumns + 4];
  wait_for_previous_launch();
  const int col0 = blockIdx.x * kColumnSumColumns + kCols * static_cast<int>(threadIdx.x);
  const bool whole_chunks = d % kCols == 0 && partial_stride % kCols == 0 &&
                            offset_in_chunk(partial) == 0;
  float sum[kCols] = {0.f, 0.f, 0.f, 0.f};
  if (col0 < d) {
    for (int p0 = static_cast<int>(threadIdx.y); p0 < parts;
         p0 += kColumnSumSlices * kColumnSumBatch) {
      float v[kColumnSumBatch][kCols];
#pragma unroll
      for (int j = 0; j < kColumnSumBatch; ++j) {
        const int p = p0 + j * kColumnSumSlices;
        const float* row = partial + static_cast<long long>(p) * partial_stride + col0;
        if (p < parts && whole_chunks) {
          const float4 q = *reinterpret_cast<const float4*>(row);
          v[j][0] = q.x;
          v[j][1] = q.y;
          v[j][2] = q.z;
          v[j][3] = q.w;
        } else {
#pragma unroll
          for (int e = 0; e < kCols; ++e) v[j][e] = p < parts && col0 + e < d ? row[e] : 0.f;
        }
      }
#pragma unroll
      for (int j = 0; j < kColumnSumBatch; ++j) {
#pragma unroll
        for (int e = 0; e < kCols; ++e) sum[e] += v[j][e];
      }
    }
  }
  *reinterpret_cast<float4*>(&slice_sums[threadIdx.y][kCols * threadIdx.x]) =
      make_float4(sum[0], sum[1], sum[2], sum[3]);
  __syncthreads();
  const int c = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const int col = blockIdx.x * kColumnSumColumns + c;
  if (c < kColumnSumColumns && col < d) {
    float total = 0.f;
    for (int s = 0; s < kColumnSumSlices; ++s) total += slice_sums[s][c];
    out[col] = Elem<T>::from_float(total);
  }
}

}  // namespace norm

template <typename T>
__global__ void __launch_bounds__(kColumnSumColumns * kColumnSumSlices)
    column_sum(T* out, const float* partial, int parts, int d, int partial_stride) {
  norm::column_sum_block(out, partial, parts, d, partial_stride);
}

// Two reduces of the same shape in one launch (LayerNorm's dgamma and dbeta): one launch gap
// fewer.
template <typename T>
__global__ void __launch_bounds__(kColumnSumColumns * kColumnSumSlices)
    column_sum_pair(T* out0, const float* partial0, T* out1, const float* partial1, int parts,
                    int d, int partial_stride) {
  if (blockIdx.y == 0) {
    norm::column_sum_block(out0, partial0, parts, d, partial_stride);
  } else {
    norm::column_sum_block(out1, partial1, parts, d, partial_stride);
  }
}

}  // namespace ladder
