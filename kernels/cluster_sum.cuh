// Row sums across the blocks of a thread-block cluster (sm_90 and later), for kernels that split
// each row's columns over the cluster's blocks: every block reduces its own columns, then reads
// the other blocks' totals from their shared memory (distributed shared memory) and adds all of
// them in rank order, so every block of the cluster gets the bit-identical row total.
// Why split a row: a backward block keeps its columns' weight-gradient sums in registers for all
// of its rows, so a row wider than one block's registers hold spills (layernorm_bwd at d = 32768:
// dgamma's and dbeta's fp32 sums alone are all 64 K registers of an SM). Split over two blocks on
// two SMs, each holds half.
// Every function here is sm_90 PTX; LADDER_CLUSTERS says whether the build has them, and
// LADDER_CLUSTER_DIMS gives a kernel its cluster shape there (sm_80 builds, which the planner
// never launches with clusters, compile without it).
#pragma once

#include "norm_common.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define LADDER_CLUSTERS 1
#define LADDER_CLUSTER_DIMS(n) __cluster_dims__(n, 1, 1)
#else
#define LADDER_CLUSTERS 0
#define LADDER_CLUSTER_DIMS(n)
#endif

namespace ladder {
namespace norm {

// A block's totals as the other blocks of its cluster read them: two slots, used in turn, so one
// cluster barrier a sum suffices (a block writes a slot again only two sums later, after every
// block has passed the barrier of the sum between, and so finished reading it).
template <int N>
struct ClusterSlots {
  float v[2][N];
};

#if LADDER_CLUSTERS
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Every thread of every block of the cluster arrives, then waits for all: release and acquire at
// cluster scope, so the shared-memory writes before it are visible to the cluster after it.
__device__ __forceinline__ void cluster_barrier() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The float at `local` (this block's shared memory) in the block of cluster rank `rank`.
__device__ __forceinline__ float cluster_load(const float* local, unsigned rank) {
  unsigned remote;
  float v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote)
               : "r"(shared_address(local)), "r"(rank));
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  return v;
}

// v: this block's totals, the same in every thread (row_group_sum). Afterwards: the cluster's
// totals, added in rank order. Every thread of every block of the cluster must reach it.
template <int CLUSTER, int N, int M>
__device__ __forceinline__ void cluster_sum(float (&v)[N], ClusterSlots<M>& slots, int& parity) {
  static_assert(N <= M, "the slots hold fewer values than the sum");
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) slots.v[parity][k] = v[k];
  }
  cluster_barrier();
  float total[N];
#pragma unroll
  for (int k = 0; k < N; ++k) total[k] = 0.f;
#pragma unroll
  for (int r = 0; r < CLUSTER; ++r) {
#pragma unroll
    for (int k = 0; k < N; ++k) total[k] += cluster_load(&slots.v[parity][k], r);
  }
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = total[k];
  parity ^= 1;
}
#endif

// Where a block stands in a launch of clusters of CLUSTER blocks along x: its rank in its cluster
// and the cluster's index (the rows it takes: group, group + groups, ...). With CLUSTER 1 a block
// is its own cluster. A build without clusters traps on CLUSTER > 1: clusters are sm_90's, and
// the planner launches them nowhere else.
template <int CLUSTER>
struct ClusterPlace {
  unsigned rank = 0;
  long long group = blockIdx.x / CLUSTER;
  long long groups = gridDim.x / CLUSTER;

  __device__ __forceinline__ ClusterPlace() {
    if constexpr (CLUSTER > 1) {
#if LADDER_CLUSTERS
      rank = cluster_rank();
#else
      __trap();
#endif
    }
  }
};

// A row's sums over the block (row_group_sum), then, with CLUSTER > 1, over the cluster.
template <int CLUSTER, int N, int M>
__device__ __forceinline__ void cluster_row_sum(float (&v)[N], ReduceScratch<M>& scratch,
                                                int& parity, ClusterSlots<M>& slots,
                                                int& cluster_parity) {
  row_group_sum<true>(v, scratch, parity);
#if LADDER_CLUSTERS
  if constexpr (CLUSTER > 1) cluster_sum<CLUSTER>(v, slots, cluster_parity);
#endif
}

}  // namespace norm
}  // namespace ladder
