// Selftest: a hang. Every thread waits for a release flag that nothing ever sets: the host fills
// it with 0 and it is a read-only input, so no one can write it. The read is volatile so the
// compiler must reload it on every iteration and may not treat the loop as side-effect free and
// delete it. The harness must kill the child at the rung's timeout: XFAIL (timeout).
extern "C" __global__ void st_spin_forever(const int* release_flag, float* y) {
  const volatile int* flag = release_flag;
  while (*flag == 0) {
    // Sleep between polls so the hung kernel does not keep the SMs at full power until killed.
    __nanosleep(1000);
  }
  y[threadIdx.x] = 0.0f;
}
