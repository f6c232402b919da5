// Selftest: nondeterminism. y[i] = x[i] * w[i % d], then the lowest mantissa bit is flipped or
// kept depending on a hash of the clocks at the moment of the store. The change is at most one
// unit in the last place (about 1e-7 relative), inside any fp32 tolerance, so numerics alone
// would pass; but two runs of the same launch see different clock values, so their outputs
// differ bitwise somewhere. The rung declares `deterministic`: XFAIL (nondeterministic).
//
// %globaltimer (nanoseconds, shared by the device) differs between the two runs by at least the
// time the harness spends between them; clock64 (the SM's cycle counter) is mixed in too because
// on some parts the global timer only ticks every microsecond or so.

__device__ unsigned long long read_global_timer_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// A 64-bit finaliser (the splitmix64 mixing step) so that every input bit, including the
// timers' fast-changing low bits, affects the bit we keep.
__device__ unsigned long long mix_bits(unsigned long long v) {
  v ^= v >> 30;
  v *= 0xbf58476d1ce4e5b9ull;
  v ^= v >> 27;
  v *= 0x94d049bb133111ebull;
  v ^= v >> 31;
  return v;
}

extern "C" __global__ void st_timer_noise(const float* x, const float* w, float* y, int n, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float product = x[i] * w[i % d];
    const unsigned long long stamp =
        read_global_timer_ns() ^ (static_cast<unsigned long long>(clock64()) << 20) ^ static_cast<unsigned long long>(i);
    const unsigned int noise_bit = static_cast<unsigned int>(mix_bits(stamp) & 1ull);
    y[i] = __uint_as_float(__float_as_uint(product) ^ noise_bit);
  }
}
