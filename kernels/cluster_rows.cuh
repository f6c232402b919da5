// Rows split across a thread-block cluster (sm_90): CLUSTER blocks share each row, every block
// taking one contiguous slice of it, and the slices' sums are joined through distributed shared
// memory. For wide rows (d = 32768): a single 1024-thread block per row is alone on its SM, so
// nothing overlaps its reduction and stores; slices of 256-512 threads let several rows share an
// SM. CLUSTER = 1 is the plain kernel: every helper here is then a no-op.
#pragma once
#include "norm_common.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define LADDER_HAS_CLUSTERS 0
#define LADDER_CLUSTER_DIMS(n)
#else
#include <cooperative_groups.h>
#define LADDER_HAS_CLUSTERS 1
#define LADDER_CLUSTER_DIMS(n) __cluster_dims__(n, 1, 1)
#endif

namespace ladder {
namespace norm {

// This block's slice of every row: columns [begin, begin + cols). Slices are whole 16-byte
// chunks long, so a slice starts at the same phase as its row and keeps the row's chunk grid.
struct RowSlice {
  int begin = 0;
  int cols = 0;  // 0 for blocks past the row's end (tiny d); they still join the sums
  int span = 0;  // the longest slice: what the tile must cover
};

template <typename T, int CLUSTER>
__device__ __forceinline__ RowSlice row_slice(int d) {
  RowSlice s;
  if constexpr (CLUSTER == 1) {
    s.cols = s.span = d;
  } else {
    constexpr int kVec = Elem<T>::kVec;
    s.span = ((d + CLUSTER - 1) / CLUSTER + kVec - 1) / kVec * kVec;
    const int rank = static_cast<int>(blockIdx.x % CLUSTER);  // 1-D clusters tile the grid in x
    s.begin = rank * s.span;
    s.cols = d - s.begin < 0 ? 0 : (d - s.begin < s.span ? d - s.begin : s.span);
  }
  return s;
}

// The row loop of a cluster: the cluster, not the block, owns blockDim.y rows at a time.
__device__ __forceinline__ RowLoop cluster_row_loop(int cluster) {
  RowLoop loop;
  loop.first = static_cast<long long>(blockIdx.x / cluster) * blockDim.y;
  loop.step = static_cast<long long>(gridDim.x / cluster) * blockDim.y;
  return loop;
}

// One slot per row group and value, two sets used alternately: a block can only reach the next
// row's write of a set after every block of the cluster passed the previous row's barrier, and
// with two sets that is after they all finished reading it.
template <int N>
struct ClusterScratch {
  float slot[2][32][N];
};

// Adds the N block totals of this row group (every thread of the group holds them, from
// row_group_sum) over the cluster's blocks, in rank order, so every block gets the same bits.
// Every thread of every block of the cluster must call it.
template <int N, int CLUSTER>
__device__ __forceinline__ void cluster_row_sum(float (&v)[N], ClusterScratch<N>& scratch,
                                                int& parity) {
  if constexpr (CLUSTER > 1) {
#if LADDER_HAS_CLUSTERS
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    float* mine = scratch.slot[parity][threadIdx.y];
    parity ^= 1;
    if (threadIdx.x == 0) {
#pragma unroll
      for (int k = 0; k < N; ++k) mine[k] = v[k];
    }
    cluster.sync();
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = 0.f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) {
      const float* theirs = cluster.map_shared_rank(mine, r);
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] += theirs[k];
    }
#endif
  }
}

// A block's shared memory must outlive every read of it by the cluster: the last barrier.
template <int CLUSTER>
__device__ __forceinline__ void cluster_finish() {
  if constexpr (CLUSTER > 1) {
#if LADDER_HAS_CLUSTERS
    cooperative_groups::this_cluster().sync();
#endif
  }
}

}  // namespace norm
}  // namespace ladder
