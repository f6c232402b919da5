// The final, deterministic reduce of the backward kernels' weight-gradient partials:
// out[c] = sum over p of partial[p * partial_stride + c], in a fixed order, rounded once to T.
#pragma once
#include "dependent_launch.cuh"
#include "norm_common.cuh"

namespace ladder {

// Block: 32 x 32 threads. threadIdx.x picks one column, or four consecutive ones where the grid
// is too small for one a thread (gridDim.x * 32 < d: the planner's grid for d a multiple of 4,
// ceil(d / 128) blocks, one 16-byte load a thread and 512 bytes a warp); threadIdx.y one of 32
// interleaved slices of the partial rows, so each thread sums ceil(parts / 32) values a column.
// The slices are then added in slice order through shared memory, so the sum's order, and its
// bits, depend neither on how the loads are issued nor on the columns a thread.
// Why four columns, with their loads batched: one column a thread, each thread adding its
// partial rows in a loop that the compiler unrolls by 8, issues one load at a time where a
// thread has fewer than 8 rows (132 partial rows: 4 or 5), and took 8.4 us under Nsight Compute
// for 132 partial rows of 16384 columns (call 161, rmsnorm_bwd bf16 2048x16384, against 55.6 us
// for the backward kernel itself); four columns a thread with the loads of up to kColumnSumBatch
// rows issued together took 5.3 us (call 162). Odd widths keep one column a thread and that
// loop: four columns a thread off the 16-byte grid left 17 blocks at d = 2049 and lost 2 us
// (call 162). column_sum_pair: the same grid x 2, blockIdx.y picking the pair's member. parts
// may be 0 (no rows): out is then all zeros. Launched programmatically after the kernel that
// wrote the partials (dependent_launch.cuh), it waits for that kernel first.
constexpr int kColumnSumThreads = 32;  // blockDim.x
constexpr int kColumnSumSlices = 32;   // blockDim.y
constexpr int kColumnSumBatch = 8;

namespace norm {

// Four columns a thread, the loads of up to kColumnSumBatch partial rows issued together.
template <typename T>
__device__ __forceinline__ void column_sum_four(T* out, const float* partial, int parts, int d,
                                                int partial_stride) {
  constexpr int kMaxCols = 4;
  // Rows of 132 floats: 16-byte aligned for the float4 stores below, and the 32 slots of one
  // column in the final pass fall in distinct banks.
  __shared__ alignas(16) float slice_sums[kColumnSumSlices][kColumnSumThreads * kMaxCols + 4];
  const int block_cols = kColumnSumThreads * kMaxCols;
  const int col0 = blockIdx.x * block_cols + kMaxCols * static_cast<int>(threadIdx.x);
  const bool vector = d % kMaxCols == 0 && partial_stride % kMaxCols == 0 &&
                      offset_in_chunk(partial) == 0;
  float sum[kMaxCols] = {0.f, 0.f, 0.f, 0.f};
  if (col0 < d) {
    for (int p0 = static_cast<int>(threadIdx.y); p0 < parts;
         p0 += kColumnSumSlices * kColumnSumBatch) {
      float v[kColumnSumBatch][kMaxCols];
#pragma unroll
      for (int j = 0; j < kColumnSumBatch; ++j) {
        const int p = p0 + j * kColumnSumSlices;
        const float* row = partial + static_cast<long long>(p) * partial_stride + col0;
        if (p < parts && vector) {
          const float4 q = *reinterpret_cast<const float4*>(row);
          v[j][0] = q.x;
          v[j][1] = q.y;
          v[j][2] = q.z;
          v[j][3] = q.w;
        } else {
#pragma unroll
          for (int e = 0; e < kMaxCols; ++e)
            v[j][e] = p < parts && col0 + e < d ? row[e] : 0.f;
        }
      }
#pragma unroll
      for (int j = 0; j < kColumnSumBatch; ++j) {
#pragma unroll
        for (int e = 0; e < kMaxCols; ++e) sum[e] += v[j][e];
      }
    }
  }
  *reinterpret_cast<float4*>(&slice_sums[threadIdx.y][kMaxCols * threadIdx.x]) =
      make_float4(sum[0], sum[1], sum[2], sum[3]);
  __syncthreads();
  const int c = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const int col = blockIdx.x * block_cols + c;
  if (c < block_cols && col < d) {
    float total = 0.f;
    for (int s = 0; s < kColumnSumSlices; ++s) total += slice_sums[s][c];
    out[col] = Elem<T>::from_float(total);
  }
}

// One column a thread (odd widths), each thread's partial rows added in a loop unrolled by 8.
// With the four-column path's explicit batching instead, the backward at d = 2049 and 5125
// measured 1-3% slower than with this loop (call 163).
template <typename T>
__device__ __forceinline__ void column_sum_one(T* out, const float* partial, int parts, int d,
                                               int partial_stride) {
  __shared__ float slice_sums[kColumnSumSlices][kColumnSumThreads + 1];
  const int col = blockIdx.x * kColumnSumThreads + static_cast<int>(threadIdx.x);
  float sum = 0.f;
  if (col < d) {
#pragma unroll 8
    for (int p = static_cast<int>(threadIdx.y); p < parts; p += kColumnSumSlices)
      sum += partial[static_cast<long long>(p) * partial_stride + col];
  }
  slice_sums[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && col < d) {
    float total = 0.f;
    for (int s = 0; s < kColumnSumSlices; ++s) total += slice_sums[s][threadIdx.x];
    out[col] = Elem<T>::from_float(total);
  }
}

template <typename T>
__device__ __forceinline__ void column_sum_block(T* out, const float* partial, int parts, int d,
                                                 int partial_stride) {
  wait_for_previous_launch();
  if (static_cast<long long>(gridDim.x) * kColumnSumThreads < d) {
    column_sum_four(out, partial, parts, d, partial_stride);
  } else {
    column_sum_one(out, partial, parts, d, partial_stride);
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
