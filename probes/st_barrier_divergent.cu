// Synccheck demo 2: one warp's threads at two different barriers. Threads 0-47 of the 64-thread
// block pass an extra __syncthreads() that threads 48-63 skip, so warp 1 splits: lanes 0-15 wait
// at the first barrier while lanes 16-31 wait at the second. __syncthreads() is bar.sync, the
// aligned form, which PTX asks a warp to execute as one; but a barrier counts a warp as arrived
// once all its threads that have not exited have executed a barrier on that resource (0 for
// both), so both complete. Each thread reads back only its own shared slot, so every output is
// exactly x[i] * w[i % d] and the rung passes every harness check (an H100, call 331). Under
// compute-sanitizer synccheck it is reported ("Barrier error detected. Divergent thread(s) in
// warp" at the second barrier, first printed for threads 32-35 of the block, 96 errors in all),
// the tool ends the launch and the rung FAILs (reports/h100/synccheck-demo-331.*; red_check.py
// --red).
extern "C" __global__ void st_barrier_divergent(const float* x, const float* w, float* y, int n, int d) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? x[i] * w[i % d] : 0.0f;
  if (t < 48) __syncthreads();
  __syncthreads();
  if (i < n) y[i] = tile[t];
}
