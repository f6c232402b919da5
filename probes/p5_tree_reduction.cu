// Rung p5: a block-wide halving tree reduction whose number of steps depends on blockDim.x, a
// value known only at launch. One block per row; the result is the row's sum of squares.
//
// s[r] = sum over c of x[r, c]^2.
// The halving tree needs blockDim.x to be a power of two (the manifest launches 256 threads).

// The largest block CUDA allows; the partial sums are sized for it so any legal block fits.
constexpr int kMaxBlockThreads = 1024;

extern "C" __global__ void p5_tree_reduction(const float* x, float* s, int d) {
  __shared__ float partial_sums[kMaxBlockThreads];
  const long long row_start = static_cast<long long>(blockIdx.x) * d;

  // Each thread first sums a strided slice of the row, so d may exceed (or fall short of) the block.
  float own_sum = 0.0f;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    const float v = x[row_start + c];
    own_sum += v * v;
  }
  partial_sums[threadIdx.x] = own_sum;
  __syncthreads();

  // Each step folds the upper half onto the lower half. The barrier after each step is what p9
  // removes: without it a thread may read a partner's slot before the partner has updated it.
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial_sums[threadIdx.x] += partial_sums[threadIdx.x + stride];
    __syncthreads();
  }

  if (threadIdx.x == 0) s[blockIdx.x] = partial_sums[0];
}
