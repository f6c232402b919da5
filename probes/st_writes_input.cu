// Selftest: a kernel that writes into a read-only input. It computes every output correctly,
// y[i] = x[i] * w[i % d], stays in bounds, and then stores the product back into x as if it had
// been half-converted to an in-place kernel. The harness compares inputs byte for byte after
// the run: XFAIL (clobbered). Each thread writes back only the element it alone read, so the
// outputs are exactly right and no other check fires first.
extern "C" __global__ void st_writes_input(float* x, const float* w, float* y, int n, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float product = x[i] * w[i % d];
    y[i] = product;
    x[i] = product;
  }
}
