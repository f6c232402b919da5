// Selftest: an off-by-one store past the end of the output. The loop bound is `i <= n` where it
// should be `i < n`, so exactly one store lands on y[n], in the redzone after y: XFAIL (redzone).
//
// To make the redzone the first and only check that trips:
// - every real element gets the right value, y[i] = x[i] * w[i % d], so coverage and numerics
//   would pass on their own;
// - the load is clamped to x[n-1], so the only out-of-bounds access is the store, and the stray
//   value is an ordinary finite number rather than whatever bytes sit past the end of x (a NaN
//   redzone pattern could otherwise propagate through the multiply and write back the very
//   bytes the redzone already held, hiding the store);
// - it is a grid-stride loop, so some thread always reaches i == n, whatever n's remainder.
extern "C" __global__ void st_off_by_one(const float* x, const float* w, float* y, int n, int d) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride) {
    const int loaded = i < n ? i : n - 1;
    y[i] = x[loaded] * w[i % d];
  }
}
