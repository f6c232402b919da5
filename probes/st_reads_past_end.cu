// Memcheck demo: a read one element past the end of the input that no value check can see.
// Every thread also reads its right neighbour, x[i + 1], and weighs it by zero, so the last
// thread reads x[n]. With redzones that read lands in x's redzone and returns its fill (a finite
// number), every output is exactly x[i] * w[i % d], and the rung passes every harness check.
// Under `--bare-allocations` x[n] lies outside x's allocation, which compute-sanitizer memcheck
// reports as an invalid global read: the failure class memcheck is there to catch.
//
// fmaf(0, next, v) is kept by the compiler: 0 * next is not 0 when next is an infinity or a NaN.
extern "C" __global__ void st_reads_past_end(const float* x, const float* w, float* y, int n, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float next = x[i + 1];
  y[i] = fmaf(0.0f, next, x[i] * w[i % d]);
}
