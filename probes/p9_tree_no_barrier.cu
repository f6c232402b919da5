// Rung p9: p5's tree with every barrier removed. It is wrong on purpose: a thread may read a
// partner's partial sum before the partner has stored it, or before the partner has folded its
// own upper half in. The ladder expects the harness to catch this as a mismatch.
//
// Small shapes can come out right by luck (one warp, or warps that happen to run in order); on
// an H200 at 4096 x 4096 with 256 threads about 90% of rows were wrong. So the manifest lists
// only large shapes, where warps of a block drift apart.
//
// Every s[r] is still written by thread 0 and nothing is stored out of bounds, so the only
// failure the harness can see is wrong numbers.

// The largest block CUDA allows; the partial sums are sized for it so any legal block fits.
constexpr int kMaxBlockThreads = 1024;

extern "C" __global__ void p9_tree_no_barrier(const float* x, float* s, int d) {
  __shared__ float partial_sums[kMaxBlockThreads];
  const long long row_start = static_cast<long long>(blockIdx.x) * d;

  float own_sum = 0.0f;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    const float v = x[row_start + c];
    own_sum += v * v;
  }
  partial_sums[threadIdx.x] = own_sum;
  // p5 has a barrier here: the race starts with the first step of the tree.

  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial_sums[threadIdx.x] += partial_sums[threadIdx.x + stride];
    // p5 has a barrier here too.
  }

  if (threadIdx.x == 0) s[blockIdx.x] = partial_sums[0];
}
