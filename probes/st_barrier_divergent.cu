// Synccheck demo 2: one warp's threads at two different barriers. Threads 0-47 of the 64-thread
// block pass an extra __syncthreads() that threads 48-63 skip, so warp 1 splits: lanes 0-15 wait
// at the first barrier while lanes 16-31 wait at the second. __syncthreads() is bar.sync, the
// aligned form, which PTX asks a warp to execute as one; but a barrier counts a warp as arrived
// once all its threads that have not exited have executed a barrier on that resource (0 for
// both), so both should still complete. Each thread reads back only its own shared slot, so
// every output is exactly x[i] * w[i % d] and the rung passes every harness check. A barrier
// whose condition differs across the block is the misuse that compute-sanitizer synccheck is
// there to report, which no value check can see. Should the hardware hang instead, the rung's
// child is ended at its timeout (TIMEOUT), and the demo says so.
extern "C" __global__ void st_barrier_divergent(const float* x, const float* w, float* y, int n, int d) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? x[i] * w[i % d] : 0.0f;
  if (t < 48) __syncthreads();
  __syncthreads();
  if (i < n) y[i] = tile[t];
}
