// Selftest: a compile error. The kernel initialises a non-const pointer from a const one, a type
// error every C++ front end must reject, so NVRTC fails and the rung must come back
// XFAIL (compile). Everything else about the rung (buffers, geometry) is valid, so nothing but
// the compiler can be blamed.
extern "C" __global__ void st_compile_error(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* writable_input = x;  // deliberate: drops const, which C++ forbids without a cast
  if (i < n) y[i] = writable_input[i];
}
