// Rung p2: the first use of shared memory and of a barrier. One block per row: every thread
// copies its columns of x into shared memory, one __syncthreads() publishes them, and then every
// thread reads columns that another thread stored.
//
// y[r, c] = x[r, c] * w[c]. The shared copy holds the whole row (d floats of dynamic shared
// memory: the manifest passes shared_bytes = d*4), so d of any size the device's shared memory
// allows works with a single barrier and no loop around it.
extern "C" __global__ void p2_shared_write_sync_read(const float* x, const float* w, float* y, int d) {
  extern __shared__ float row_copy[];
  const long long row_start = static_cast<long long>(blockIdx.x) * d;

  for (int c = threadIdx.x; c < d; c += blockDim.x) row_copy[c] = x[row_start + c];

  // Without this barrier the mirrored reads below would see slots other threads have not
  // written yet; that is the whole point of the rung.
  __syncthreads();

  // Walk the row back to front: column d-1-c was stored by thread (d-1-c) % blockDim.x, which in
  // general is not this thread.
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    const int mirrored = d - 1 - c;
    y[row_start + mirrored] = row_copy[mirrored] * w[mirrored];
  }
}
