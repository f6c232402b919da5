// A 16-bit row's sum by the tensor cores, for the first pass of the streamed and held LayerNorm
// (layernorm_loop.cuh, held_row.cuh): there the SMs' issue rate, not the bytes, holds the 16-bit rows on the
// H200, and the sum by unpacking and adding took two instructions an element of about twelve.
// Each 16-byte chunk (eight 16-bit values) is one thread's A fragment of an m16n8k16 mma whose B
// is all ones, so D accumulates in fp32 the sums of A's sixteen rows, each repeated across D's
// eight columns: the warp's 32 chunks are A's 256 entries, whichever entry each value lands in,
// and the sum of every lane's four accumulators is eight times the sum of its values. Each value
// times one is exact in fp32, so only the additions round, as the unpacked sum's did (in another
// order). Arch below sm_80 (no 16-bit mma) takes the unpacked sum.
#pragma once
#include "norm_common.cuh"
#include "global_loads.cuh"

namespace ladder {
namespace norm {

template <typename T> constexpr bool kIsBfloat16 = false;
template <> constexpr bool kIsBfloat16<__nv_bfloat16> = true;

// c += chunk . ones (m16n8k16, fp32 accumulators), every lane of the warp at once.
template <typename T>
__device__ __forceinline__ void mma_chunk_sum(float (&c)[4], const uint4& a) {
  static_assert(sizeof(T) == 2, "16-bit chunks");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kIsBfloat16<T>) {
    constexpr unsigned kOnes = 0x3F803F80u;  // two bf16 1.0
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(kOnes), "r"(kOnes));
  } else {
    constexpr unsigned kOnes = 0x3C003C00u;  // two f16 1.0
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(kOnes), "r"(kOnes));
  }
#else
  float v[Elem<T>::kVec];
  Elem<T>::unpack(a, v);
#pragma unroll
  for (int e = 0; e < Elem<T>::kVec; ++e) c[e & 3] += v[e] * 8.f;  // the mma's eightfold sum
#endif
}

// This thread's share of the sum of a 16-bit row on the 16-byte path (units chunks, thread tx
// taking units tx, tx + THREADS, ...), read under the L2 keep policy, four chunks in flight. The
// block's threads run the same rounds (ceil(units / THREADS)), the chunks past the row as zeros,
// so that every lane of a warp reaches each mma. The shares add up to the row's sum.
template <typename T, int THREADS>
__device__ __forceinline__ float tensor_unit_sum(const T* row, int units, unsigned long long keep) {
  static_assert(sizeof(T) == 2, "16-bit rows");
  constexpr int kInFlight = 4;
  const uint4* p = reinterpret_cast<const uint4*>(row);
  const int tx = static_cast<int>(threadIdx.x);
  const int rounds = (units + THREADS - 1) / THREADS;
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < rounds; k += kInFlight) {
    uint4 u[kInFlight];
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) {
      const int unit = tx + (k + j) * THREADS;
      u[j] = unit < units ? load16_keep(p + unit, keep) : make_uint4(0u, 0u, 0u, 0u);
    }
#pragma unroll
    for (int j = 0; j < kInFlight; ++j)
      if (k + j < rounds) mma_chunk_sum<T>(c, u[j]);  // the same for the whole block
  }
  return (c[0] + c[1] + c[2] + c[3]) * 0.125f;
}

// This thread's share of the sum of a row held in registers (held_row.cuh: HOLD chunks, zeros
// past the row): 16-bit by the same mma (every thread of the block holds HOLD chunks), fp32 by
// adding its values.
template <typename T, int HOLD>
__device__ __forceinline__ float tensor_held_sum(const uint4 (&held)[HOLD]) {
  if constexpr (sizeof(T) == 2) {
    float c[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int k = 0; k < HOLD; ++k) mma_chunk_sum<T>(c, held[k]);
    return (c[0] + c[1] + c[2] + c[3]) * 0.125f;
  } else {
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < HOLD; ++k) {
      float v[Elem<T>::kVec];
      Elem<T>::unpack(held[k], v);
#pragma unroll
      for (int e = 0; e < Elem<T>::kVec; ++e) acc += v[e];
    }
    return acc;
  }
}

}  // namespace norm
}  // namespace ladder
