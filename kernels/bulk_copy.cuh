// Whole rows copied into shared memory by the Tensor Memory Accelerator (sm_90 and later): one
// thread starts a row's copy with one instruction (cp.async.bulk), and an mbarrier counts its
// bytes in, so the rows ahead are in flight at no register or instruction cost to the others.
// Every function here is sm_90 PTX; callers guard their use with LADDER_BULK_COPY and keep a
// path for older devices.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define LADDER_BULK_COPY 1
#else
#define LADDER_BULK_COPY 0
#endif

#include "norm_common.cuh"

namespace ladder {
namespace norm {

// The stages a bulk kernel's barriers allow; the launch's dynamic shared memory sets how many
// of them it uses.
constexpr int kMaxBulkStages = 8;

// The stages of `rows` rows of `row_bytes` each that the launch's dynamic shared memory holds, at
// most kMaxBulkStages (0 for empty rows: nothing to copy).
__device__ __forceinline__ int bulk_stages_in_launch(unsigned row_bytes, unsigned rows) {
  const int fit = row_bytes == 0 ? 0 : static_cast<int>(dynamic_shared_bytes() / (rows * row_bytes));
  return fit < kMaxBulkStages ? fit : kMaxBulkStages;
}

#if LADDER_BULK_COPY
// An mbarrier that completes a phase when `arrivals` threads have arrived and every byte they
// announced has landed.
__device__ __forceinline__ void bulk_barrier_init(unsigned long long* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals)
               : "memory");
}

// Makes initialized barriers visible to the copy engine (the async proxy); then a block barrier
// makes them visible to the other threads.
__device__ __forceinline__ void bulk_barrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Orders this block's earlier shared-memory reads (made visible to this thread by a block
// barrier) before a copy that overwrites them.
__device__ __forceinline__ void bulk_reuse_fence() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Arrives on `bar` announcing `bytes` that copies started on it will bring.
__device__ __forceinline__ void bulk_arrive_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
}

// Starts copying `bytes` from global `src` to shared `dst` (both 16-byte aligned, bytes a
// multiple of 16); they count towards the phase of `bar` that an arrival announced.
// Under the L2 keep policy (Load::Keep's, global_loads.cuh): the copies read their rows once,
// and behind a kernel that left the L2 full of dirty lines (the bench's cold flush) the kept reads
// measured faster (call 238, two rounds, cold: LayerNorm bf16 2048x32768 81.4-82.2 -> 77.5-78.1
// us, add_rmsnorm_bwd 2048x16384 104.6-106.8 -> 102.0-102.7, rmsnorm_bwd 66.8-67.2 -> 65.8-66.6;
// layernorm_bwd and the 1024x32768 clusters within 1.6% either way). An evict-first hint measured
// 3-8% slower (call 144, reports/h200/bench-bulk-2.txt).
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1], %2, [%3], %4;" ::"r"(shared_address(dst)),
      "l"(src), "r"(bytes), "r"(shared_address(bar)), "l"(keep_policy())
      : "memory");
}

// One row: arrives on `bar` announcing its bytes and starts their copy; the barrier's phase
// completes when they land.
__device__ __forceinline__ void bulk_copy_row(void* dst, const void* src, unsigned bytes,
                                              unsigned long long* bar) {
  bulk_arrive_expect(bar, bytes);
  bulk_copy(dst, src, bytes, bar);
}

// Spins until the barrier's phase of this parity has completed, acquiring at CTA scope (the
// default, enough for this block's own bulk copies) or, with CLUSTER_SCOPE, at cluster scope:
// what other blocks of its cluster stored into it (cluster_sum.cuh).
template <bool CLUSTER_SCOPE = false>
__device__ __forceinline__ void bulk_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    if constexpr (CLUSTER_SCOPE) {
      asm volatile(
          "{ .reg .pred p;\n"
          "  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
          "  selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(shared_address(bar)), "r"(parity)
          : "memory");
    } else {
      asm volatile(
          "{ .reg .pred p;\n"
          "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          "  selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(shared_address(bar)), "r"(parity)
          : "memory");
    }
  }
}

// The weight row (gamma, w) of the bulk-copy backward kernels, read in both passes of every
// row: copied once into the launch's shared memory after its stages where the launch left room
// for the row (its dynamic shared memory is then stages * stage_bytes + the row), else read from
// global memory at each use. Held in registers it cost the 64-register builds spills (ptxas
// sm_90), and read through L1 at each use, where the stages leave L1 little room, it measured 13%
// slower (rmsnorm_bwd bf16 2048x16384, call 156). Each thread copies the chunks it owns; the
// caller's next barrier publishes them. Returns the row's chunks (a generic pointer to either),
// or null without a weight.
template <typename T, int ITEMS, int THREADS>
__device__ __forceinline__ const uint4* stage_weight(const T* w, int chunks, int stages,
                                                     unsigned stage_bytes, uint4* stage_chunks) {
  if (w == nullptr) return nullptr;
  const uint4* src = reinterpret_cast<const uint4*>(w);
  const unsigned after = static_cast<unsigned>(stages) * stage_bytes;
  if (dynamic_shared_bytes() - after < static_cast<unsigned>(chunks) * 16u) return src;
  uint4* dst = stage_chunks + after / 16u;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c = i * THREADS + static_cast<int>(threadIdx.x);
    if (c < chunks) dst[c] = __ldg(src + c);
  }
  return dst;
}

// The block's rows first, + step, ... (blockIdx.x and gridDim.x, or for a block of a cluster that
// splits its rows' columns, the cluster's index and count) through `stages` shared-memory stages of
// `stage_bytes`: the block's k-th row goes to stage k % stages, and copy_row(stage, row, barrier)
// starts its copies (thread 0 only). for_each_row(body) calls body(row, k) for each; the body
// waits for its row (wait(k)) and calls refill_previous(k) after its first block-wide reduction,
// which no thread leaves before every thread has finished row k - 1 (its barrier, a warp barrier
// for a one-warp block, orders their reads before the refill), so that row's stage takes the row
// `stages` after it while this one is worked on. With one or two stages a stage is refilled at
// its row's end instead, after a block barrier: with two, a refill at the next row's reduction
// left the row after it in flight only during that row's second pass, and add_rmsnorm_bwd bf16
// 2048x16384 (two 96 KiB stages) measured 108 us refilled at the row's end against 113 (call
// 161); with three or more the extra barrier cost more than the earlier start (rmsnorm_bwd bf16
// 2048x16384: 71.6 against 68.7 us). With one stage the next row's copies can only follow the
// whole of this one. (A struct rather than a generic lambda: NVRTC compiles no unannotated
// templates for the device.)
template <typename CopyRow>
struct BulkRowWalk {
  long long rows;
  int stages;
  unsigned stage_bytes;
  unsigned long long* landed;
  CopyRow copy_row;
  long long first;
  long long step;

  __device__ __forceinline__ void start_copies(int k) const {
    const long long row = first + static_cast<long long>(k) * step;
    if (row >= rows) return;
    const int s = k % stages;
    bulk_arrive_expect(&landed[s], stage_bytes);
    copy_row(s, row, &landed[s]);
  }
  __device__ __forceinline__ void wait(int k) const {
    bulk_wait(&landed[k % stages], static_cast<unsigned>(k / stages) & 1u);
  }
  // Where a stage is refilled: at its row's end (one or two stages), or at the next row's first
  // reduction (refill_previous).
  __device__ __forceinline__ bool refills_at_row_end() const { return stages <= 2; }
  __device__ __forceinline__ void refill_previous(int k) const {
    if (threadIdx.x == 0 && k > 0 && !refills_at_row_end()) {
      bulk_reuse_fence();
      start_copies(k - 1 + stages);
    }
  }
  template <typename Body>
  __device__ __forceinline__ void for_each_row(Body&& body) const {
    if (threadIdx.x == 0) {
      for (int s = 0; s < stages; ++s) bulk_barrier_init(&landed[s], 1);
      bulk_barrier_init_fence();
      for (int k = 0; k < stages; ++k) start_copies(k);
    }
    __syncthreads();
    int k = 0;
    for (long long row = first; row < rows; row += step, ++k) {
      body(row, k);
      if (refills_at_row_end()) {
        __syncthreads();
        if (threadIdx.x == 0) {
          bulk_reuse_fence();
          start_copies(k + stages);
        }
      }
    }
  }
};

template <typename CopyRow>
__device__ __forceinline__ BulkRowWalk<CopyRow> bulk_row_walk(long long rows, int stages,
                                                             unsigned stage_bytes,
                                                             unsigned long long* landed,
                                                             CopyRow copy_row, long long first,
                                                             long long step) {
  return {rows, stages, stage_bytes, landed, copy_row, first, step};
}
#endif

}  // namespace norm
}  // namespace ladder
