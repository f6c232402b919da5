// Sweep demo: a row scale y = x * w whose loop takes four elements at a time and forgets the
// remainder, the envelope bug of a vectorized kernel that was only tried on round widths. Rows
// whose d is not a multiple of 4 leave their last d % 4 elements unwritten, and d < 4 writes
// nothing: `ladder sweep st_vector_tail --ladder probes/sweep_demo.json --dim rows=1..4
// --dim d=1..24` maps it (U in every column with d % 4 != 0).
extern "C" __global__ void st_vector_tail(const float* x, const float* w, float* y, int rows, int d) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  for (int c = threadIdx.x * 4; c + 4 <= d; c += blockDim.x * 4)
    for (int k = 0; k < 4; ++k) y[row * d + c + k] = x[row * d + c + k] * w[c + k];
}
