// Rung p10: p5's tree with its trip count fixed at compile time. The block size is a template
// parameter, so the halving loop fully unrolls and the shared array is sized exactly. It also
// exercises template entries: NVRTC instantiates p10_unrolled_tree<256> from the manifest's name
// expression, and the harness looks the kernel up by its mangled name.
//
// s[r] = sum over c of x[r, c]^2. The launch's blockDim.x must equal BLOCK (the manifest
// launches 256 threads with the <256> instantiation).
template <int BLOCK>
__global__ void p10_unrolled_tree(const float* x, float* s, int d) {
  static_assert(BLOCK > 0 && (BLOCK & (BLOCK - 1)) == 0, "the halving tree needs a power-of-two block");
  __shared__ float partial_sums[BLOCK];
  const long long row_start = static_cast<long long>(blockIdx.x) * d;

  float own_sum = 0.0f;
  for (int c = threadIdx.x; c < d; c += BLOCK) {
    const float v = x[row_start + c];
    own_sum += v * v;
  }
  partial_sums[threadIdx.x] = own_sum;
  __syncthreads();

#pragma unroll
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial_sums[threadIdx.x] += partial_sums[threadIdx.x + stride];
    __syncthreads();
  }

  if (threadIdx.x == 0) s[blockIdx.x] = partial_sums[0];
}
