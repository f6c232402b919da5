// The final, deterministic reduce of the backward kernels' weight-gradient partials:
// out[c] = sum over p of partial[p * partial_stride + c], in a fixed order, rounded once to T.
#pragma once
#include "norm_common.cuh"

namespace ladder {

// Block: 32 x 32 threads. threadIdx.x picks a column (32 consecutive columns per block: coalesced
// reads), threadIdx.y one of 32 interleaved slices of the partial rows, so each thread sums
// ceil(parts / 32) values and the whole reduce takes a few memory round trips. The slices are
// then added in slice order through shared memory. Grid: ceil(d / 32) blocks.
// parts may be 0 (no rows): out is then all zeros.
constexpr int kColumnSumColumns = 32;
constexpr int kColumnSumSlices = 32;

template <typename T>
__global__ void __launch_bounds__(kColumnSumColumns * kColumnSumSlices)
    column_sum(T* out, const float* partial, int parts, int d, int partial_stride) {
  __shared__ float slice_sums[kColumnSumSlices][kColumnSumColumns + 1];
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
    out[col] = norm::Elem<T>::from_float(total);
  }
}

}  // namespace ladder
