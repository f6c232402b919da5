// Rung p0: the smallest kernel whose result can be checked. Two input buffers, one output, one
// flat index and one multiply. If this rung fails, nothing above it says anything about the
// lowering: the compiler, the loader or the harness's buffer plumbing is at fault.
//
// y[r, c] = x[r, c] * w[c]; x and y are row-major [rows, d], w is [d].
// One thread per element. The grid is rounded up to whole blocks, so threads past n must not
// store: that bounds check is the only control flow here.
extern "C" __global__ void p0_three_buffers(const float* x, const float* w, float* y, int n, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[i % d];
}
