// Row sums across the blocks of a thread-block cluster (sm_90 and later), for kernels that split
// each row's columns over the cluster's blocks: every block reduces its own columns, stores its
// totals into the other blocks' shared memory (distributed shared memory), and adds all of them
// in rank order, so every block of the cluster gets the bit-identical row total.
// Why split a row: a backward block keeps its columns' weight-gradient sums in registers for all
// of its rows, so a row wider than one block's registers hold spills (layernorm_bwd at d = 32768:
// dgamma's and dbeta's fp32 sums alone are all 64 K registers of an SM). Split over two blocks on
// two SMs, each holds half.
// Every function here is sm_90 PTX; LADDER_CLUSTERS says whether the build has them, and
// LADDER_CLUSTER_DIMS gives a kernel its cluster shape there (sm_80 builds, which the planner
// never launches with clusters, compile without it).
#pragma once

#include "bulk_copy.cuh"
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

// The totals exchanged by the blocks of a cluster, in one of two forms (ASYNC):
// - async: each block's first thread stores its totals straight into the other blocks' slots
//   with st.async, which completes a transaction on the receiver's mbarrier; the receiver's
//   threads wait on their own mbarrier alone. A set is written again two sums later: by then the
//   receiver has passed the barrier of the sum between (row_group_sum: the block's, or a warp
//   barrier for a one-warp block), which all of its threads reach after reading the set, and the
//   sender has received its totals of that sum.
// - barrier: each block's first thread writes its totals into its own slot, and after one
//   cluster barrier every thread reads every block's slot. Its arrive has release semantics, so
//   each thread waits there for its own earlier global stores (the previous row's dx).
// Measured on the H200 (call 214, reports/h200/bench-cluster-async-214.txt, two rounds, cold),
// async against barrier: rmsnorm_bwd bf16 1024x32768 74.1-74.5 us against 81.6-82.0,
// add_rmsnorm_bwd 112.8-114.2 against 129.2-130.8 (fp32 1024x16384 104.9-105.0 against
// 117.0-117.3), layernorm_bwd bf16 84.3-84.5 against 87.7-88.3 (f16 83.8-84.4 against 92.1-92.3);
// Nsight Compute's membar stalls of rmsnorm_bwd's kernel fell from 37 k cycles a warp to 2.5 k,
// and its duration from 72.5 to 61.9 us (calls 213-214). Only at layernorm_bwd fp32 1024x16384
// do the machines disagree: async reads 73.7-75.2 us on each, the barrier 70.4-70.7 on some
// (call 214) and 77.3-79.1 on others (calls 215-216, whose Nsight Compute put 37 k cycles a
// warp of membar stalls on it). The planner's auto takes async.
// Two sets, used in turn in either form.
constexpr int kMaxClusterRanks = 4;

template <int M>
struct ClusterSlots {
  float v[2][kMaxClusterRanks][M];
  alignas(8) unsigned long long landed[2];
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

// The address in the block of cluster rank `rank` of `local` (this block's shared memory).
__device__ __forceinline__ unsigned cluster_address(const void* local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote)
               : "r"(shared_address(local)), "r"(rank));
  return remote;
}

// The float at `local` (this block's shared memory) in the block of cluster rank `rank`.
__device__ __forceinline__ float cluster_load(const float* local, unsigned rank) {
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(cluster_address(local, rank))
               : "memory");
  return v;
}

// Stores v at `remote` (a cluster address) and completes 4 bytes of a transaction on the
// receiver's mbarrier at `remote_bar`.
__device__ __forceinline__ void cluster_store_async(unsigned remote, float v, unsigned remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               ::"r"(remote), "r"(__float_as_uint(v)), "r"(remote_bar) : "memory");
}

// v becomes the sum over the ranks r of the cluster of total(r, k), added in rank order.
template <int CLUSTER, int N, typename Total>
__device__ __forceinline__ void add_in_rank_order(float (&v)[N], Total&& total) {
  float sum[N];
#pragma unroll
  for (int k = 0; k < N; ++k) sum[k] = 0.f;
#pragma unroll
  for (unsigned r = 0; r < CLUSTER; ++r) {
#pragma unroll
    for (int k = 0; k < N; ++k) sum[k] += total(r, k);
  }
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = sum[k];
}

// Before the first cluster_sum of the async form: the mbarriers initialized, and every block's
// visible to the others (the cluster barrier) before any block stores to them. Every thread of
// every block of the cluster must reach it.
template <int CLUSTER, bool ASYNC, int M>
__device__ __forceinline__ void cluster_slots_begin(ClusterSlots<M>& slots) {
  if constexpr (CLUSTER > 1 && ASYNC) {
    if (threadIdx.x == 0) {
      for (int p = 0; p < 2; ++p)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&slots.landed[p]))
                     : "memory");
      bulk_barrier_init_fence();
    }
    cluster_barrier();
  }
}

// v: this block's totals, the same in every thread (row_group_sum). Afterwards: the cluster's
// totals, added in rank order, so every block gets the same bits. `count`: the sums so far (0
// before the first). Every thread of every block of the cluster must reach it.
template <int CLUSTER, bool ASYNC, int N, int M>
__device__ __forceinline__ void cluster_sum(float (&v)[N], ClusterSlots<M>& slots, int& count) {
  static_assert(N <= M, "the slots hold fewer values than the sum");
  static_assert(CLUSTER <= kMaxClusterRanks, "more ranks than the slots hold");
  const int set = count & 1;
  const unsigned parity = static_cast<unsigned>(count >> 1) & 1u;
  ++count;
  if constexpr (!ASYNC) {
    if (threadIdx.x == 0) {
#pragma unroll
      for (int k = 0; k < N; ++k) slots.v[set][0][k] = v[k];
    }
    cluster_barrier();
    add_in_rank_order<CLUSTER>(
        v, [&](unsigned r, int k) { return cluster_load(&slots.v[set][0][k], r); });
    return;
  }
  const unsigned rank = cluster_rank();
  if (threadIdx.x == 0) {
    bulk_arrive_expect(&slots.landed[set], (CLUSTER - 1) * N * 4);
#pragma unroll
    for (unsigned r = 0; r < CLUSTER; ++r) {
      if (r == rank) continue;
      const unsigned bar = cluster_address(&slots.landed[set], r);
#pragma unroll
      for (int k = 0; k < N; ++k)
        cluster_store_async(cluster_address(&slots.v[set][rank][k], r), v[k], bar);
    }
  }
  bulk_wait<true>(&slots.landed[set], parity);
  add_in_rank_order<CLUSTER>(
      v, [&](unsigned r, int k) { return r == rank ? v[k] : slots.v[set][r][k]; });
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

// A row's sums over the block (row_group_sum), then, with CLUSTER > 1, over the cluster
// (cluster_slots_begin first). BLOCK: as row_group_sum's.
template <int CLUSTER, bool ASYNC, int BLOCK, int N, int M>
__device__ __forceinline__ void cluster_row_sum(float (&v)[N], ReduceScratch<M>& scratch,
                                                int& parity, ClusterSlots<M>& slots,
                                                int& cluster_sums) {
  row_group_sum<true, BLOCK>(v, scratch, parity);
#if LADDER_CLUSTERS
  if constexpr (CLUSTER > 1) cluster_sum<CLUSTER, ASYNC>(v, slots, cluster_sums);
#endif
}

}  // namespace norm
}  // namespace ladder
