// Selftest: a numerical bug. This is p7's RMSNorm with epsilon added outside the square root,
// y = x * w / (sqrt(mean(x^2)) + eps), instead of y = x * w * rsqrt(mean(x^2) + eps). With
// eps = 0.1 (the manifest's value) and mean(x^2) near 1, outputs are off by about 5%: every
// element is written, in bounds, without touching the inputs, so only the oracle comparison
// fails: XFAIL (mismatch). The tree needs a power-of-two block (the manifest launches 256).

// The largest block CUDA allows; the partial sums are sized for it so any legal block fits.
constexpr int kMaxBlockThreads = 1024;

extern "C" __global__ void st_eps_outside_sqrt(const float* x, const float* w, float* y, int d, float eps) {
  __shared__ float partial_sums[kMaxBlockThreads];
  __shared__ float row_denominator;
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

  // The defect: eps belongs inside the sqrt.
  if (threadIdx.x == 0) row_denominator = sqrtf(partial_sums[0] / static_cast<float>(d)) + eps;
  __syncthreads();
  const float denominator = row_denominator;

  for (int c = threadIdx.x; c < d; c += blockDim.x) y[row_start + c] = x[row_start + c] * w[c] / denominator;
}
