// Synccheck demo 1: threads that return before the block's barrier. Threads past the end of the
// data leave at once, and the rest meet at __syncthreads() with a partial warp missing. PTX's exit
// releases a barrier that waits only on threads that have exited, so the barrier completes; each
// thread reads back only its own shared slot, so every output is exactly x[i] * w[i % d] and the
// rung passes every harness check. The CUDA programming guide allows __syncthreads() in
// conditional code only where the condition is the same across the block, yet compute-sanitizer
// synccheck does not report this form: on an H100 (call 331, reports/h100/synccheck-demo-331.*)
// the rung passed under it with no barrier error. It stays in the demo as the misuse synccheck
// is known not to see (red_check.py --quiet), so that nobody reads its silence as a proof.
extern "C" __global__ void st_barrier_skipped(const float* x, const float* w, float* y, int n, int d) {
  __shared__ float tile[64];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  tile[t] = x[i] * w[i % d];
  __syncthreads();
  y[i] = tile[t];
}
