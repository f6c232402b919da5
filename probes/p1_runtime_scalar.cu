// Rung p1: p0's elementwise shape, with the second operand now a by-value float parameter
// instead of a buffer. This exercises the parameter-passing path (the scalar travels in the
// kernel's parameter space, not through global memory).
//
// y[i] = x[i] * scale for every i < n.
extern "C" __global__ void p1_runtime_scalar(const float* x, float* y, float scale, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * scale;
}
