// Rung p7: a complete RMSNorm with a weight, built only from the pieces the rungs below it
// checked: a strided row loop, the p5 tree, a conditional shared write by thread 0 with a
// broadcast (p3), and rsqrtf.
//
// y[r, c] = x[r, c] * rsqrt(mean over c of x[r, c]^2 + eps) * w[c]. One block per row; the tree
// needs blockDim.x to be a power of two (the manifest launches 256 threads).

// The largest block CUDA allows; the partial sums are sized for it so any legal block fits.
constexpr int kMaxBlockThreads = 1024;

extern "C" __global__ void p7_full_kernel(const float* x, const float* w, float* y, int d, float eps) {
  __shared__ float partial_sums[kMaxBlockThreads];
  __shared__ float row_rstd;
  const long long row_start = static_cast<long long>(blockIdx.x) * d;

  float own_sum = 0.0f;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    const float v = x[row_start + c];
    own_sum += v * v;
  }
  partial_sums[threadIdx.x] = own_sum;
  __syncthreads();

  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial_sums[threadIdx.x] += partial_sums[threadIdx.x + stride];
    __syncthreads();
  }

  // One thread turns the sum into the reciprocal RMS; the barrier then hands it to everyone.
  if (threadIdx.x == 0) row_rstd = rsqrtf(partial_sums[0] / static_cast<float>(d) + eps);
  __syncthreads();
  const float rstd = row_rstd;

  for (int c = threadIdx.x; c < d; c += blockDim.x) y[row_start + c] = x[row_start + c] * rstd * w[c];
}
