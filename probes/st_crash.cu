// Selftest: an illegal-address crash. The kernel first writes every output correctly, then one
// thread stores through a wild pointer. The address comes in as a runtime argument so the
// compiler cannot reason about it (a literal null store may be turned into a trap, which is a
// different error); the manifest passes 4096, inside the never-mapped first pages of the device's
// virtual address space. The store makes the context sticky-fail with an illegal address, which
// the harness sees at synchronisation: XFAIL (crash). A wild_address of 0 stores nothing: the
// case passes (st_crash_after_pass runs such a case first, then a crashing one, in one process).
extern "C" __global__ void st_crash(const float* x, float* y, int n, long long wild_address) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
  if (i == 0 && wild_address != 0) *reinterpret_cast<volatile float*>(wild_address) = 1.0f;
}
