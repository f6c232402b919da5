// The cache behaviour of the kernels' 16-byte global loads, in one place: which kinds exist, what
// each compiles to, and (in the comments) what each measured where it is used.
#pragma once
// uint4 and __ldg are built in under nvcc and NVRTC alike: nothing to include.

namespace ladder {
namespace norm {

// How a 16-byte load is cached. Weights (ReadOnly) go through the read-only path: every row
// reads them. No kind reads rows evict-first (ld.global.cs) any more: LayerNorm's register kernel
// did, with evict-first stores (0.67 -> 0.72 of the copy ceiling at bf16 16384x4096 then, while
// rmsnorm and add_rmsnorm lost 3-8% with them), until its reads kept measured 4-7% faster
// (Keep, below).
// Stream (ld.global.L1::no_allocate) leaves L1 to the weights: row data read exactly once. Only
// layernorm_bwd's 16-bit one-tile rows gained with it; it cost rmsnorm_fwd 2-4%, add_rmsnorm_fwd
// 4-9%, rmsnorm_bwd 1% and fp32 layernorm_bwd up to 7% (reports/h200/bench-l1.txt).
// Keep (an L2 evict_last policy) is for row data read once into registers by a kernel that runs
// after others have filled the L2 with dirty lines (the bench's cold flush): evict-first reads
// lost 6-9% there against the same kernel hot, plain reads 2-5%, kept reads 1-2% (call 237,
// reports/h200/bench-policy-237.txt). LayerNorm's register kernel reads x kept (call 238: bf16
// 65536x1024 73.4 -> 70.6 us, fp32 140.3 -> 130.9, f16 74.2 -> 72.0 against evict-first).
enum class Load { Plain, ReadOnly, Stream, Keep };

// The backward register kernels' row reads (rmsnorm_bwd.cuh, layernorm_bwd.cuh's plain rows):
// kept in fp32, where call 238 measured rmsnorm_bwd f32 16384x4096 203.5-203.9 -> 199.6-200.0 us
// and layernorm_bwd 211.2-213.4 -> 205.9-206.2 (cold); plain in 16 bits, level at 16384x4096 and
// 2.9% slower kept at rmsnorm_bwd bf16 8192x2049.
template <typename T>
inline constexpr Load kBackwardRowLoad = sizeof(T) == 4 ? Load::Keep : Load::Plain;

// The L2 policy of Load::Keep and of the streamed kernels' first reads (stream_row.cuh): lines
// that should outlive other traffic (sm_80 and later). Not volatile: one createpolicy serves
// every load of a launch.
__device__ __forceinline__ unsigned long long keep_policy() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// A 16-byte load under that policy. volatile: never merged with another load of the same
// address (the streamed kernels' next pass reads it again).
__device__ __forceinline__ uint4 load16_keep(const uint4* p, unsigned long long policy) {
  uint4 v;
  asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

template <Load KIND>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (KIND == Load::ReadOnly) return __ldg(p);
  if constexpr (KIND == Load::Stream) {
    uint4 v;
    // volatile: kept in place and never merged with another load of the same address.
    asm volatile("ld.global.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
  }
  if constexpr (KIND == Load::Keep) return load16_keep(p, keep_policy());
  return *p;
}

// The same for 4 bytes, for the skewed weight reads (row_reads.cuh's load_skewed). No Stream
// form: nothing reads 32-bit words that way.
template <Load KIND>
__device__ __forceinline__ unsigned load4(const unsigned* p) {
  static_assert(KIND != Load::Stream, "load4 has no L1::no_allocate form");
  if constexpr (KIND == Load::ReadOnly) return __ldg(p);
  if constexpr (KIND == Load::Keep) {
    unsigned v;
    asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v) : "l"(p), "l"(keep_policy()));
    return v;
  }
  return *p;
}

}  // namespace norm
}  // namespace ladder
