// RMSNorm backward, plain and after a fused residual add, with its input rows copied whole into
// shared memory by the Tensor Memory Accelerator (bulk_copy.cuh), several rows ahead of the one
// being differentiated. The math is rmsnorm_bwd.cuh's:
//   s = x, or x + r in fp32 (fused), rstd = 1 / sqrt(mean(s^2) + eps), g = dy * weight
//   ds = rstd * g - s * rstd^3 * sum(g * s) / d   (+ dh, fused), dw = sum over rows of dy * s * rstd
//
// Why: rmsnorm_bwd and add_rmsnorm_bwd hold their rows in registers, 16 values a thread in at
// most 512 threads; wider rows (16-bit d > 8192) stream, adding each row into the block's
// partial row in global memory and reading the row twice, which LayerNorm's counterpart measured
// at 0.07 of the copy ceiling (call 153). Here, as in layernorm_bwd_bulk.cuh, a block walks rows
// blockIdx.x, + gridDim.x, ... with STAGES rows of every input in shared memory, one thread
// starts each row's copies, and the dw sums of a thread's columns stay in registers. The rows
// are read from their stage in both passes rather than held (four inputs a row leave no
// registers for that), so a stage is refilled once the next row's reduction shows every thread
// is done with it.
// Geometry and ABI: kernels/README.md.
#pragma once
#include "backward_common.cuh"
#include "bulk_copy.cuh"
#include "cluster_pool.cuh"
#include "cluster_sum.cuh"
#include "grid_reduce.cuh"

namespace ladder {
namespace norm {

// The shared body of rmsnorm_bwd_bulk (FUSED false: r, dh, dr null) and add_rmsnorm_bwd_bulk,
// and of their _cluster entries: with CLUSTER > 1 the cluster's blocks split each of its rows'
// columns into CLUSTER equal slices, block rank r taking slice r, and add their row sums through
// each other's shared memory (cluster_sum.cuh), as layernorm_bwd_bulk_cluster does. With POOL > 1
// (and CLUSTER 1) each block takes whole rows, and the cluster's POOL blocks pool their dw sums
// into one partial row (cluster_pool.cuh).
template <typename T, int ITEMS, int THREADS, bool FUSED, int CLUSTER, bool ASYNC_SUMS = true,
          int POOL = 1>
__device__ __forceinline__ void rms_bwd_bulk_rows(T* dx, T* dr, float* dw_partial, const T* x,
                                             const T* r, const T* w, const T* dy, const T* dh,
                                             int rows, int d, int x_stride, int r_stride,
                                             int dy_stride, int dh_stride, int dx_stride,
                                             int dr_stride, float eps, float w_offset) {
  static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "THREADS");
  static_assert(ITEMS >= 1 && ITEMS <= 4, "ITEMS");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER");
  static_assert(POOL == 1 || (CLUSTER == 1 && POOL <= kMaxClusterRanks), "POOL");
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ ReduceScratch<2> scratch;
  __shared__ alignas(8) unsigned long long landed[kMaxBulkStages];
  extern __shared__ uint4 stage_chunks[];
  if (blockDim.x != THREADS || blockDim.y != 1) __trap();
  const ClusterPlace<CLUSTER> place;
  const unsigned rank = place.rank;
  // Pooled (POOL > 1): each block walks its own rows, and the cluster writes one partial row.
  const ClusterPlace<POOL> pool;
  // The launch's partial rows (one a cluster, split or pooled, else one a block), and the rows
  // the element-wise path walks in each cluster's first block.
  const long long part = POOL > 1 ? pool.group : place.group;
  const long long parts = POOL > 1 ? pool.groups : place.groups;
  const unsigned lead = POOL > 1 ? pool.rank : place.rank;
  allow_dependent_launch();
  int parity = 0;
  const int tx = static_cast<int>(threadIdx.x);
  float* dw_row = dw_partial != nullptr ? dw_partial + part * d : nullptr;
  const bool with_dh = FUSED && dh != nullptr;
  // The rows a stage holds: x, [r], dy, [dh].
  const int tensors = FUSED ? (with_dh ? 4 : 3) : 2;
  // This block's slice of every row: columns [col0, col0 + cols).
  const int cols = d / CLUSTER;
  const int col0 = static_cast<int>(rank) * cols;
  const unsigned row_bytes = static_cast<unsigned>(cols) * sizeof(T);
  const int stages = bulk_stages_in_launch(row_bytes, tensors);
  auto on_grid = [&](const void* p, int stride) {
    return p == nullptr || (offset_in_chunk(p) == 0 && stride % kVec == 0);
  };
  const bool bulk = LADDER_BULK_COPY && stages >= 1 && d % (CLUSTER * kVec) == 0 &&
                    on_grid(x, x_stride) &&
                    on_grid(dy, dy_stride) && on_grid(dx, dx_stride) &&
                    (!FUSED || (on_grid(r, r_stride) && on_grid(dh, dh_stride) &&
                                on_grid(dr, dr_stride))) &&
                    on_grid(w, 0);
  if (!bulk) {
    // The element-wise path: the cluster's first block takes whole rows.
    if (lead != 0) return;
    bool first = true;
    for (long long row = part; row < rows; row += parts, first = false)
      rms_bwd_row_elementwise<T, FUSED, THREADS>(
          dx + row * dx_stride, FUSED && dr != nullptr ? dr + row * dr_stride : nullptr, dw_row,
          x + row * x_stride, FUSED ? r + row * r_stride : nullptr, w, dy + row * dy_stride,
          with_dh ? dh + row * dh_stride : nullptr, d, eps, w_offset, first, scratch, parity);
    if (first && dw_row != nullptr) {  // no row: the partial row is still the block's to write
      for (int c = tx; c < d; c += THREADS) dw_row[c] = 0.f;
    }
    return;
  }
#if LADDER_BULK_COPY
  // The cluster's row sums (CLUSTER > 1): the other blocks' totals, stored here by them.
  __shared__ ClusterSlots<2> slots;
  int cluster_sums = 0;
#if LADDER_CLUSTERS
  cluster_slots_begin<CLUSTER, ASYNC_SUMS>(slots);
#endif
  const int chunks = cols / kVec;
  if (static_cast<long long>(THREADS) * ITEMS < chunks) __trap();
  bool inside[ITEMS];
  float dw_sum[ITEMS][kVec];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c = i * THREADS + tx;
    inside[i] = c < chunks;
#pragma unroll
    for (int e = 0; e < kVec; ++e) dw_sum[i][e] = 0.f;
  }
  const uint4* w_chunks = stage_weight<T, ITEMS, THREADS>(
      w == nullptr ? nullptr : w + col0, chunks, stages, tensors * row_bytes, stage_chunks);
  constexpr int kDy = FUSED ? 2 : 1;  // the tensors' places in a stage: x, [r], dy, [dh]
  constexpr int kDh = 3;
  auto slot = [=](int s, int tensor) {
    return stage_chunks + (static_cast<long long>(s) * tensors + tensor) * chunks;
  };
  auto copy_row = [=](int s, long long row, unsigned long long* bar) {
    bulk_copy(slot(s, 0), x + row * x_stride + col0, row_bytes, bar);
    if constexpr (FUSED) bulk_copy(slot(s, 1), r + row * r_stride + col0, row_bytes, bar);
    bulk_copy(slot(s, kDy), dy + row * dy_stride + col0, row_bytes, bar);
    if (with_dh) bulk_copy(slot(s, kDh), dh + row * dh_stride + col0, row_bytes, bar);
  };
  // Rows: a split cluster's, or (pooled or alone) the block's own.
  const auto walk = bulk_row_walk(rows, stages, tensors * row_bytes, landed, copy_row,
                                  POOL > 1 ? blockIdx.x : place.group,
                                  POOL > 1 ? gridDim.x : place.groups);
  walk.for_each_row([&](long long row, int k) {
    const int s = k % stages;
    walk.wait(k);
    // s (the input) and g = dy * weight of chunk i, from the stage.
    auto input = [&](int i, float (&sv)[kVec]) {
      E::unpack(slot(s, 0)[i * THREADS + tx], sv);
      if constexpr (FUSED) {
        float rv[kVec];
        E::unpack(slot(s, 1)[i * THREADS + tx], rv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sv[e] += rv[e];
      }
    };
    auto grad = [&](int i, const float (&dyv)[kVec], float (&g)[kVec]) {
      if (w == nullptr) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) g[e] = dyv[e];
        return;
      }
      float wv[kVec];
      E::unpack(w_chunks[i * THREADS + tx], wv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) g[e] = dyv[e] * (wv[e] + w_offset);
    };
    // Chunk i's input, dy and g, as both passes read them.
    auto chunk_values = [&](int i, float (&sv)[kVec], float (&dyv)[kVec], float (&g)[kVec]) {
      input(i, sv);
      E::unpack(slot(s, kDy)[i * THREADS + tx], dyv);
      grad(i, dyv, g);
    };
    float sums[2] = {0.f, 0.f};  // sum(s^2), sum(g * s)
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float sv[kVec], dyv[kVec], g[kVec];
      chunk_values(i, sv, dyv, g);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        sums[0] = fmaf(sv[e], sv[e], sums[0]);
        sums[1] = fmaf(g[e], sv[e], sums[1]);
      }
    }
    cluster_row_sum<CLUSTER, ASYNC_SUMS, THREADS>(sums, scratch, parity, slots, cluster_sums);
    walk.refill_previous(k);
    const float inv_rms = rsqrtf(mean_of(sums[0], d) + eps);
    const float coef = inv_rms * inv_rms * inv_rms * mean_of(sums[1], d);
    T* dxr = dx + row * static_cast<long long>(dx_stride) + col0;
    T* drr = FUSED && dr != nullptr ? dr + row * static_cast<long long>(dr_stride) + col0 : nullptr;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float sv[kVec], dyv[kVec], g[kVec];
      chunk_values(i, sv, dyv, g);
      float dhv[kVec];
      if (with_dh) E::unpack(slot(s, kDh)[i * THREADS + tx], dhv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        dw_sum[i][e] = fmaf(dyv[e] * sv[e], inv_rms, dw_sum[i][e]);
        g[e] = inv_rms * g[e] - sv[e] * coef;  // g becomes the row gradient
        if (with_dh) g[e] += dhv[e];
      }
      const uint4 packed = E::pack(g);
      __stcs(reinterpret_cast<uint4*>(dxr) + i * THREADS + tx, packed);
      if (FUSED && drr != nullptr) __stcs(reinterpret_cast<uint4*>(drr) + i * THREADS + tx, packed);
    }
  });
  if constexpr (POOL > 1) {
    if (dw_row != nullptr)
      pool_partial_row<POOL, THREADS>(dw_sum, inside, reinterpret_cast<float*>(stage_chunks),
                                      dw_row, d);
  } else if (dw_row != nullptr) {
    store_sums_row<THREADS>(dw_sum, inside, dw_row + col0);
  }
#if LADDER_CLUSTERS
  // No block leaves while another may still store to its slots.
  if constexpr (CLUSTER > 1) cluster_barrier();
#endif
#endif
}

// rms_bwd_bulk_rows, then, where dw is given, the reduce of the partial rows into it by the same
// grid (grid_reduce.cuh: a cooperative launch, grid_sync zeroed once); else column_sum<T> reduces
// them in a launch of its own. Every block reaches the barrier, whichever path it took.
template <typename T, int ITEMS, int THREADS, bool FUSED, int CLUSTER, bool ASYNC_SUMS = true,
          int POOL = 1>
__device__ __forceinline__ void rms_bwd_bulk(T* dx, T* dr, float* dw_partial, const T* x,
                                             const T* r, const T* w, const T* dy, const T* dh,
                                             int rows, int d, int x_stride, int r_stride,
                                             int dy_stride, int dh_stride, int dx_stride,
                                             int dr_stride, float eps, float w_offset, T* dw,
                                             unsigned* grid_sync) {
  rms_bwd_bulk_rows<T, ITEMS, THREADS, FUSED, CLUSTER, ASYNC_SUMS, POOL>(
      dx, dr, dw_partial, x, r, w, dy, dh, rows, d, x_stride, r_stride, dy_stride, dh_stride,
      dx_stride, dr_stride, eps, w_offset);
  if (dw == nullptr || dw_partial == nullptr) return;
  grid_barrier(grid_sync);
  grid_column_reduce(dw, dw_partial, static_cast<int>(gridDim.x) / (CLUSTER * POOL), d, d);
}

}  // namespace norm

// THREADS, ITEMS, the grid, dynamic shared memory (STAGES * 2 * d * sizeof(T) bytes: a row of x
// and one of dy a stage; plus d * sizeof(T) to stage w) and the bulk path's conditions as
// layernorm_bwd_bulk; the arguments and
// results are rmsnorm_bwd's (dw_partial: [gridDim.x, d] fp32, every column written, reduced by
// column_sum<T>; w nullable with dw_partial; w_offset 0 plain, 1 Gemma). Aliasing: dx may be x
// or dy (same stride). dw, grid_sync: null, or dw [d] and a word of zero for a cooperative
// launch that reduces the partial rows itself (grid_reduce.cuh); dw_partial is then its scratch.
template <typename T, int ITEMS, int THREADS>
__global__ void __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    rmsnorm_bwd_bulk(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows,
                     int d, int x_stride, int dy_stride, int dx_stride, float eps,
                     float w_offset, T* dw, unsigned* grid_sync) {
  norm::rms_bwd_bulk<T, ITEMS, THREADS, false, 1>(dx, nullptr, dw_partial, x, nullptr, w, dy,
                                                  nullptr, rows, d, x_stride, 0, dy_stride, 0,
                                                  dx_stride, 0, eps, w_offset, dw, grid_sync);
}

// The same with each row split over a cluster of CLUSTER = 2 blocks (sm_90 and later), as
// layernorm_bwd_bulk_cluster: block rank r of cluster c takes columns [r * d / CLUSTER,
// (r + 1) * d / CLUSTER) of rows c, c + C, ... (C = gridDim.x / CLUSTER clusters) and writes that
// slice of partial row c (dw_partial: [C, d]). The grid must be a whole number of clusters; the
// bulk path also needs d a multiple of CLUSTER chunks, and THREADS * ITEMS * VEC >= d / CLUSTER.
// Dynamic shared memory: as above with d / CLUSTER for d. ASYNC_SUMS: how the cluster's blocks
// exchange their row sums (cluster_sum.cuh): st.async into each other's shared memory (true), or
// a cluster barrier a sum (false).
template <typename T, int ITEMS, int THREADS, int CLUSTER, bool ASYNC_SUMS = true>
__global__ void LADDER_CLUSTER_DIMS(CLUSTER)
    __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    rmsnorm_bwd_bulk_cluster(T* dx, float* dw_partial, const T* x, const T* w, const T* dy,
                             int rows, int d, int x_stride, int dy_stride, int dx_stride,
                             float eps, float w_offset, T* dw, unsigned* grid_sync) {
  norm::rms_bwd_bulk<T, ITEMS, THREADS, false, CLUSTER, ASYNC_SUMS>(
      dx, nullptr, dw_partial, x, nullptr, w, dy, nullptr, rows, d, x_stride, 0, dy_stride, 0,
      dx_stride, 0, eps, w_offset, dw, grid_sync);
}

// The same with the dw sums of a cluster of POOL = 2 blocks (sm_90 and later) pooled into one
// partial row (cluster_pool.cuh): each block takes whole rows b, b + gridDim.x, ... as
// rmsnorm_bwd_bulk, and cluster c writes partial row c (dw_partial: [gridDim.x / POOL, d]). The
// grid must be a whole number of clusters.
template <typename T, int ITEMS, int THREADS, int POOL>
__global__ void LADDER_CLUSTER_DIMS(POOL)
    __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    rmsnorm_bwd_bulk_pooled(T* dx, float* dw_partial, const T* x, const T* w, const T* dy,
                            int rows, int d, int x_stride, int dy_stride, int dx_stride,
                            float eps, float w_offset, T* dw, unsigned* grid_sync) {
  norm::rms_bwd_bulk<T, ITEMS, THREADS, false, 1, true, POOL>(
      dx, nullptr, dw_partial, x, nullptr, w, dy, nullptr, rows, d, x_stride, 0, dy_stride, 0,
      dx_stride, 0, eps, w_offset, dw, grid_sync);
}

// add_rmsnorm_bwd's arguments and results; a stage holds rows of x, r, dy and dh (where given):
// STAGES * (3 or 4) * d * sizeof(T) bytes, plus d * sizeof(T) to stage w. Aliasing: dx and dr may be any of the inputs (same
// stride).
template <typename T, int ITEMS, int THREADS>
__global__ void __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    add_rmsnorm_bwd_bulk(T* dx, T* dr, float* dw_partial, const T* x, const T* r, const T* w,
                         const T* dy, const T* dh, int rows, int d, int x_stride, int r_stride,
                         int dy_stride, int dh_stride, int dx_stride, int dr_stride, float eps,
                         float w_offset, T* dw, unsigned* grid_sync) {
  norm::rms_bwd_bulk<T, ITEMS, THREADS, true, 1>(dx, dr, dw_partial, x, r, w, dy, dh, rows, d,
                                                 x_stride, r_stride, dy_stride, dh_stride,
                                                 dx_stride, dr_stride, eps, w_offset, dw,
                                                 grid_sync);
}

// add_rmsnorm_bwd_bulk with each row split over a cluster, as rmsnorm_bwd_bulk_cluster.
template <typename T, int ITEMS, int THREADS, int CLUSTER, bool ASYNC_SUMS = true>
__global__ void LADDER_CLUSTER_DIMS(CLUSTER)
    __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    add_rmsnorm_bwd_bulk_cluster(T* dx, T* dr, float* dw_partial, const T* x, const T* r,
                                 const T* w, const T* dy, const T* dh, int rows, int d,
                                 int x_stride, int r_stride, int dy_stride, int dh_stride,
                                 int dx_stride, int dr_stride, float eps, float w_offset,
                                 T* dw, unsigned* grid_sync) {
  norm::rms_bwd_bulk<T, ITEMS, THREADS, true, CLUSTER, ASYNC_SUMS>(
      dx, dr, dw_partial, x, r, w, dy, dh, rows, d, x_stride, r_stride, dy_stride, dh_stride,
      dx_stride, dr_stride, eps, w_offset, dw, grid_sync);
}

// add_rmsnorm_bwd_bulk with the dw sums of a cluster pooled, as rmsnorm_bwd_bulk_pooled.
template <typename T, int ITEMS, int THREADS, int POOL>
__global__ void LADDER_CLUSTER_DIMS(POOL)
    __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    add_rmsnorm_bwd_bulk_pooled(T* dx, T* dr, float* dw_partial, const T* x, const T* r,
                                const T* w, const T* dy, const T* dh, int rows, int d,
                                int x_stride, int r_stride, int dy_stride, int dh_stride,
                                int dx_stride, int dr_stride, float eps, float w_offset, T* dw,
                                unsigned* grid_sync) {
  norm::rms_bwd_bulk<T, ITEMS, THREADS, true, 1, true, POOL>(
      dx, dr, dw_partial, x, r, w, dy, dh, rows, d, x_stride, r_stride, dy_stride, dh_stride,
      dx_stride, dr_stride, eps, w_offset, dw, grid_sync);
}

}  // namespace ladder
