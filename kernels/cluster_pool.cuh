// The weight-gradient partial rows of a cluster's blocks pooled into one (sm_90 and later), for
// the bulk backward kernels whose blocks each take whole rows and keep their columns' gradient
// sums in registers (rmsnorm_bwd_bulk.cuh, layernorm_bwd_bulk.cuh).
//
// Why: a launch of one block an SM writes one fp32 partial row a block after its last row
// (bf16 2048x16384: 132 rows of 64 KiB, 8.6 MB a gradient), with no row left to overlap the
// stores, and column_sum reads them all again. Pooled over clusters of POOL blocks through
// distributed shared memory, a launch writes gridDim.x / POOL of them. The backward without its
// weight gradients read 0.80-0.84 of the copy ceiling against 0.64-0.76 with them (call 205).
//
// Deterministic: every column of the pooled row is the sum over ranks 0, 1, ... in that order,
// whatever the timing, so a launch gives the same bits every time.
#pragma once

#include "backward_common.cuh"
#include "cluster_sum.cuh"

namespace ladder {
namespace norm {

#if LADDER_CLUSTERS
// The four floats at `local` (16-byte aligned, this block's shared memory) in the block of
// cluster rank `rank`.
__device__ __forceinline__ float4 cluster_load4(const float* local, unsigned rank) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(cluster_address(local, rank))
               : "memory");
  return v;
}
#endif

// sums[i][e]: this thread's sums of columns (i * THREADS + threadIdx.x) * VEC + e, for the chunks
// i with inside[i]. They go into `row` (this block's shared memory, d floats, 16-byte aligned),
// and then block rank k of the cluster writes its share of the pooled row to `out` (d floats,
// 16-byte aligned): the float4 columns [k * n / POOL, (k + 1) * n / POOL) of n = d / 4, each the
// sum of the cluster's rows in rank order. d: a multiple of 4 and of VEC.
// `row` is overwritten: the block must be done with what it held (the stages of its last row;
// no copy may be in flight into it). Every thread of every block of the cluster must reach it,
// and no block reads or writes `row` again before the next call returns.
template <int POOL, int THREADS, int ITEMS, int VEC>
__device__ __forceinline__ void pool_partial_row(const float (&sums)[ITEMS][VEC],
                                                 const bool (&inside)[ITEMS], float* row,
                                                 float* out, int d) {
  static_assert(POOL >= 2 && POOL <= kMaxClusterRanks, "POOL");
#if LADDER_CLUSTERS
  const int tx = static_cast<int>(threadIdx.x);
  __syncthreads();  // every thread of the block is past its last read of the stages
  store_sums_row<THREADS>(sums, inside, row);
  // Release and acquire at cluster scope: every block's row is visible to the cluster.
  cluster_barrier();
  const int n = d / 4;
  const int rank = static_cast<int>(cluster_rank());
  const int first = static_cast<int>(static_cast<long long>(n) * rank / POOL);
  const int last = static_cast<int>(static_cast<long long>(n) * (rank + 1) / POOL);
  for (int c = first + tx; c < last; c += THREADS) {
    float4 total = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (unsigned r = 0; r < POOL; ++r) {
      const float4 v = cluster_load4(row + 4 * c, r);
      total.x += v.x;
      total.y += v.y;
      total.z += v.z;
      total.w += v.w;
    }
    reinterpret_cast<float4*>(out)[c] = total;
  }
  // No block reuses its row, or leaves, while another may still read it.
  cluster_barrier();
#else
  __trap();  // clusters are sm_90's; the planner pools nowhere else
#endif
}

}  // namespace norm
}  // namespace ladder
