// h = x + r, elementwise: the first half of the unfused add-then-RMSNorm baseline that
// `ladder bench` times beside the fused kernel. Not a production entry point.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ladder {

template <typename T>
__global__ void __launch_bounds__(256) elementwise_add(T* __restrict__ h, const T* __restrict__ x,
                                                       const T* __restrict__ r, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  constexpr int kVec = 16 / sizeof(T);
  const bool aligned = ((reinterpret_cast<unsigned long long>(h) | reinterpret_cast<unsigned long long>(x) |
                         reinterpret_cast<unsigned long long>(r)) & 15ull) == 0;
  long long start = 0;
  if (aligned) {
    const long long chunks = n / kVec;
    for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < chunks; c += stride) {
      const uint4 xv = reinterpret_cast<const uint4*>(x)[c];
      const uint4 rv = reinterpret_cast<const uint4*>(r)[c];
      uint4 hv;
      const T* xe = reinterpret_cast<const T*>(&xv);
      const T* re = reinterpret_cast<const T*>(&rv);
      T* he = reinterpret_cast<T*>(&hv);
#pragma unroll
      for (int i = 0; i < kVec; ++i) he[i] = static_cast<T>(static_cast<float>(xe[i]) + static_cast<float>(re[i]));
      reinterpret_cast<uint4*>(h)[c] = hv;
    }
    start = chunks * kVec;
  }
  for (long long i = start + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride)
    h[i] = static_cast<T>(static_cast<float>(x[i]) + static_cast<float>(r[i]));
}

}  // namespace ladder
