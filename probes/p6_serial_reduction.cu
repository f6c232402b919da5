// Rung p6: the same per-row sum of squares as p5, done by one thread per row with no shared
// memory and no barrier. When p5 fails and p6 passes, the tree (or its barriers) is at fault,
// not the loads or the arithmetic.
//
// s[r] = sum over c of x[r, c]^2. Thread r of the grid owns row r; the grid is rounded up, so
// threads past the last row return at once.
extern "C" __global__ void p6_serial_reduction(const float* x, float* s, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const long long row_start = static_cast<long long>(row) * d;

  float sum = 0.0f;
  for (int c = 0; c < d; ++c) {
    const float v = x[row_start + c];
    sum += v * v;
  }
  s[row] = sum;
}
