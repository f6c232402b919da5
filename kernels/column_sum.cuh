// The final, deterministic reduce of the backward kernels' weight-gradient partials:
// out[c] = sum over p of partial[p * partial_stride + c], in a fixed order, rounded once to T.
#pragma once
#include "dependent_launch.cuh"
#include "norm_common.cuh"

namespace ladder {

// Block: 32 x 32 threads. threadIdx.x picks a column (32 consecutive columns per block: coalesced
// reads), threadIdx.y one of 32 interleaved slices of the partial rows, so each thread sums
// ceil(parts / 32) values and the whole reduce takes a few memory round trips. The slices are
// then added in slice order through shared memory. Grid: ceil(d / 32) blocks (column_sum_pair:
// ceil(d / 32) x 2, blockIdx.y picking the pair's member). parts may be 0 (no rows): out is
// then all zeros. Launched programmatically after the kernel that wrote the partials
// (dependent_launch.cuh), it waits for that kernel first.
constexpr int kColumnSumColumns = 32;
constexpr int kColumnSumSlices = 32;

namespace norm {

template <typename T>
__device__ __forceinline__ void column_sum_block(T* out, const float* partial, int parts, int d,
                                                 int partial_stride) {
  __shared__ float slice_sums[kColumnSumSlices][kColumnSumColumns + 1];
  wait_for_previous_launch();
  const int col = blockIdx.x * kColumnSumColumns + threadIdx.x;
  float sum = 0.f;
  if (col < d) {
#pragma unroll 8
    for (int p = threadIdx.y; p < parts; p += kColumnSumSlices)
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
