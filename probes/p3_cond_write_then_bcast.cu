// Rung p3: a shared value written by one thread only, published by a barrier, and read by every
// thread (a broadcast), followed by a second shared-memory phase with its own barrier.
//
// y[r, c] = x[r, c] * scale. One block per row; the dynamic shared array holds the row (the
// manifest passes shared_bytes = d*4), the static one holds the broadcast scale.
extern "C" __global__ void p3_cond_write_then_bcast(const float* x, float* y, float scale, int d) {
  __shared__ float shared_scale;
  extern __shared__ float scaled_row[];
  const long long row_start = static_cast<long long>(blockIdx.x) * d;

  // Only thread 0 writes: a store under a thread-dependent branch, which the compiler must not
  // hoist or drop.
  if (threadIdx.x == 0) shared_scale = scale;
  // Barrier 1 publishes shared_scale to the other threads.
  __syncthreads();
  const float broadcast_scale = shared_scale;

  for (int c = threadIdx.x; c < d; c += blockDim.x) scaled_row[c] = x[row_start + c] * broadcast_scale;
  // Barrier 2 publishes the scaled row; the mirrored reads below cross threads as in p2.
  __syncthreads();

  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    const int mirrored = d - 1 - c;
    y[row_start + mirrored] = scaled_row[mirrored];
  }
}
