// LayerNorm backward with its rows of x and dy copied whole into shared memory by the Tensor
// Memory Accelerator (bulk_copy.cuh), several rows ahead of the one being differentiated.
// The math is layernorm_bwd's (layernorm_bwd.cuh):
//   xhat = (x - mean) * rstd, g = dy * gamma (gamma = 1 when absent)
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy
//
// Why: layernorm_bwd holds a row and the next one in registers. At 16-bit d = 8192 that is one
// 512-thread block of 121-128 registers an SM, with one row in flight beside the one being
// worked on (0.67 of the copy ceiling at 4096x8192, call 151). Here a block walks rows
// blockIdx.x, + gridDim.x, ... with STAGES rows of x and dy in shared memory: one thread starts
// each row's two copies with two instructions, and the copies of the rows ahead land while the
// block works. A thread owns the same columns in every row, so its dgamma and dbeta sums stay in
// registers until the block writes its partial rows (backward_common.cuh's scheme: no atomics,
// reduced in a fixed order by column_sum.cuh).
// Geometry and ABI: kernels/README.md.
#pragma once
#include "backward_common.cuh"
#include "bulk_copy.cuh"
#include "cluster_pool.cuh"
#include "cluster_sum.cuh"
#include "grid_reduce.cuh"

namespace ladder {

namespace norm {
// The block's statistics of one row (mean and rstd): saved (the forward pass's), or recomputed
// from x by the two-pass rule with eps when either pointer is null.
struct RowStats {
  float mean = 0.f;
  float rstd = 0.f;
};

// One row of the backward, element by element straight from global memory: the path for
// launches the bulk copies cannot serve (pointers or strides off the 16-byte grid, d not a whole
// number of chunks, too little shared memory, or a device before sm_90). Correct and slow.
// dgamma_row, dbeta_row: the block's partial rows (null: none); `first`: the block's first row,
// which writes them rather than adds to them. Every column's sums are kept by one thread, in row
// order. Aliasing: each element of dx is written by the thread that last read x and dy there,
// after the row's reductions.
template <typename T, int THREADS>
__device__ __forceinline__ void layernorm_bwd_row_elementwise(
    T* dxr, float* dgamma_row, float* dbeta_row, const T* xr, const T* gamma, const T* dyr,
    const float* mean, const float* rstd, long long row, int d, float eps, bool first,
    ReduceScratch<3>& scratch, int& parity) {
  using E = Elem<T>;
  const int tx = static_cast<int>(threadIdx.x);
  RowStats st;
  if (mean != nullptr && rstd != nullptr) {
    st.mean = mean[row];
    st.rstd = rstd[row];
  } else {
    float s[2] = {0.f, 0.f};
    for (int c = tx; c < d; c += THREADS) s[0] += E::to_float(xr[c]);
    row_group_sum<true, THREADS>(s, scratch, parity);
    st.mean = mean_of(s[0], d);
    s[0] = 0.f;
    for (int c = tx; c < d; c += THREADS) {
      const float dev = E::to_float(xr[c]) - st.mean;
      s[0] = fmaf(dev, dev, s[0]);
    }
    row_group_sum<true, THREADS>(s, scratch, parity);
    st.rstd = rsqrtf(mean_of(s[0], d) + eps);
  }
  auto grad = [&](int c) {
    const float g = E::to_float(dyr[c]);
    return gamma != nullptr ? g * E::to_float(gamma[c]) : g;
  };
  float s[2] = {0.f, 0.f};  // sum(g), sum(g * xhat)
  for (int c = tx; c < d; c += THREADS) {
    const float g = grad(c);
    s[0] += g;
    s[1] = fmaf(g, (E::to_float(xr[c]) - st.mean) * st.rstd, s[1]);
  }
  row_group_sum<true, THREADS>(s, scratch, parity);
  const float mean_g = mean_of(s[0], d);
  const float mean_gxhat = mean_of(s[1], d);
  for (int c = tx; c < d; c += THREADS) {
    const float dy_c = E::to_float(dyr[c]);
    const float xhat = (E::to_float(xr[c]) - st.mean) * st.rstd;
    const float g = grad(c);
    dxr[c] = E::from_float(st.rstd * (g - mean_g - xhat * mean_gxhat));
    if (dgamma_row != nullptr) {
      dgamma_row[c] = (first ? 0.f : dgamma_row[c]) + dy_c * xhat;
      dbeta_row[c] = (first ? 0.f : dbeta_row[c]) + dy_c;
    }
  }
}

// Whether the bulk path may serve a launch: every row tensor and gamma on the 16-byte grid, with
// strides and d whole numbers of chunks.
template <typename T>
__device__ __forceinline__ bool backward_bulk_ok(const T* x, int x_stride, const T* dy,
                                                 int dy_stride, const T* dx, int dx_stride, int d,
                                                 const T* gamma) {
  constexpr int kVec = Elem<T>::kVec;
  return d % kVec == 0 && x_stride % kVec == 0 && dy_stride % kVec == 0 &&
         dx_stride % kVec == 0 && offset_in_chunk(x) == 0 && offset_in_chunk(dy) == 0 &&
         offset_in_chunk(dx) == 0 && (gamma == nullptr || offset_in_chunk(gamma) == 0);
}

// The body of layernorm_bwd_bulk (CLUSTER 1) and layernorm_bwd_bulk_cluster: with CLUSTER > 1
// the cluster's blocks split each of its rows' columns into CLUSTER equal slices, block rank r
// taking slice r, and add their row sums through each other's shared memory (cluster_sum.cuh).
// With POOL > 1 (and CLUSTER 1) each block takes whole rows, and the cluster's POOL blocks pool
// their dgamma and dbeta sums into one partial row each (cluster_pool.cuh).
template <typename T, int ITEMS, int THREADS, int CLUSTER, bool ASYNC_SUMS = true, int POOL = 1>
__device__ __forceinline__ void layernorm_bwd_bulk_rows(
    T* dx, float* dgamma_partial, float* dbeta_partial, const T* x, const T* gamma, const T* dy,
    const float* mean, const float* rstd, int rows, int d, int x_stride, int dy_stride,
    int dx_stride, float eps) {
  static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "THREADS");
  static_assert(ITEMS >= 1 && ITEMS <= 4, "ITEMS");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER");
  static_assert(POOL == 1 || (CLUSTER == 1 && POOL <= norm::kMaxClusterRanks), "POOL");
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<3> scratch;  // for every reduction: 1, 2 or 3 values
  __shared__ alignas(8) unsigned long long landed[norm::kMaxBulkStages];
  extern __shared__ uint4 stage_chunks[];
  if (blockDim.x != THREADS || blockDim.y != 1) __trap();
  const norm::ClusterPlace<CLUSTER> place;
  const unsigned rank = place.rank;
  // Pooled (POOL > 1): each block walks its own rows, and the cluster writes one partial row.
  const norm::ClusterPlace<POOL> pool;
  // The launch's partial rows (one a cluster, split or pooled, else one a block), and the rows
  // the element-wise path walks in each cluster's first block.
  const long long part = POOL > 1 ? pool.group : place.group;
  const long long parts = POOL > 1 ? pool.groups : place.groups;
  const unsigned lead = POOL > 1 ? pool.rank : place.rank;
  norm::allow_dependent_launch();
  int parity = 0;
  const int tx = static_cast<int>(threadIdx.x);
  const bool saved = mean != nullptr && rstd != nullptr;
  const bool partials = dgamma_partial != nullptr && dbeta_partial != nullptr;
  float* dgamma_row = partials ? dgamma_partial + part * d : nullptr;
  float* dbeta_row = partials ? dbeta_partial + part * d : nullptr;
  // This block's slice of every row: columns [col0, col0 + cols).
  const int cols = d / CLUSTER;
  const int col0 = static_cast<int>(rank) * cols;
  const unsigned row_bytes = static_cast<unsigned>(cols) * sizeof(T);
  const int stages = norm::bulk_stages_in_launch(row_bytes, 2);
  const bool bulk = LADDER_BULK_COPY && stages >= 1 && d % (CLUSTER * kVec) == 0 &&
                    norm::backward_bulk_ok(x, x_stride, dy, dy_stride, dx, dx_stride, d, gamma);
  if (!bulk) {
    // The element-wise path: the cluster's first block takes whole rows.
    if (lead != 0) return;
    bool first = true;
    for (long long row = part; row < rows; row += parts, first = false)
      norm::layernorm_bwd_row_elementwise<T, THREADS>(
          dx + row * dx_stride, dgamma_row, dbeta_row, x + row * x_stride, gamma,
          dy + row * dy_stride, mean, rstd, row, d, eps, first, scratch, parity);
    if (first && partials) {  // no row: the partial rows are still the block's to write
      for (int c = tx; c < d; c += THREADS) dgamma_row[c] = dbeta_row[c] = 0.f;
    }
    return;
  }
#if LADDER_BULK_COPY
  // The cluster's row sums (CLUSTER > 1): the other blocks' totals, stored here by them.
  __shared__ norm::ClusterSlots<3> slots;
  int cluster_sums = 0;
#if LADDER_CLUSTERS
  norm::cluster_slots_begin<CLUSTER, ASYNC_SUMS>(slots);
#endif
  const int chunks = cols / kVec;
  if (static_cast<long long>(THREADS) * ITEMS < chunks) __trap();
  bool inside[ITEMS];
  float dgamma_sum[ITEMS][kVec], dbeta_sum[ITEMS][kVec];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c = i * THREADS + tx;
    inside[i] = c < chunks;
#pragma unroll
    for (int e = 0; e < kVec; ++e) dgamma_sum[i][e] = dbeta_sum[i][e] = 0.f;
  }
  const uint4* gamma_chunks = norm::stage_weight<T, ITEMS, THREADS>(
      gamma == nullptr ? nullptr : gamma + col0, chunks, stages, 2 * row_bytes, stage_chunks);
  // Stage s holds the slice of a row of x (chunks [0, chunks)) and then its slice of dy.
  auto stage_of = [=](int s) { return stage_chunks + static_cast<long long>(s) * 2 * chunks; };
  auto copy_row = [=](int s, long long row, unsigned long long* bar) {
    norm::bulk_copy(stage_of(s), x + row * x_stride + col0, row_bytes, bar);
    norm::bulk_copy(stage_of(s) + chunks, dy + row * dy_stride + col0, row_bytes, bar);
  };
  // Rows: a split cluster's, or (pooled or alone) the block's own.
  const auto walk = norm::bulk_row_walk(rows, stages, 2 * row_bytes, landed, copy_row,
                                        POOL > 1 ? blockIdx.x : place.group,
                                        POOL > 1 ? gridDim.x : place.groups);
  walk.for_each_row([&](long long row, int k) {
    const int s = k % stages;
    // The saved statistics' loads are issued before the wait, which hides them.
    norm::RowStats st;
    if (saved) {
      st.mean = __ldg(mean + row);
      st.rstd = __ldg(rstd + row);
    }
    walk.wait(k);
    // The rows are read from their stage in every pass rather than held: a thread's dgamma and
    // dbeta sums take 32 of its 64 registers at ITEMS 2 x 1024 threads, and holding the rows and
    // gamma as well spilled 144 bytes (ptxas sm_90; 0.41 of the copy ceiling at bf16 2048x16384
    // against 0.52 without, call 156).
    auto x_chunk = [&](int i, float (&v)[kVec]) { E::unpack(stage_of(s)[i * THREADS + tx], v); };
    auto dy_chunk = [&](int i, float (&v)[kVec]) {
      E::unpack(stage_of(s)[chunks + i * THREADS + tx], v);
    };
    if (!saved) {  // the mean first: the two-pass rule, whose second pass joins the one below
      float sum_x[1] = {0.f};
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (!inside[i]) continue;
        float v[kVec];
        x_chunk(i, v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum_x[0] += v[e];
      }
      norm::cluster_row_sum<CLUSTER, ASYNC_SUMS, THREADS>(sum_x, scratch, parity, slots,
                                                          cluster_sums);
      st.mean = norm::mean_of(sum_x[0], d);
    }
    // g = dy * gamma for chunk i.
    auto grad = [&](int i, const float (&dyv)[kVec], float (&g)[kVec]) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) g[e] = dyv[e];
      if (gamma == nullptr) return;
      float gm[kVec];
      E::unpack(gamma_chunks[i * THREADS + tx], gm);
#pragma unroll
      for (int e = 0; e < kVec; ++e) g[e] *= gm[e];
    };
    // Chunk i's x, dy and g, as both passes read them.
    auto chunk_values = [&](int i, float (&v)[kVec], float (&dyv)[kVec], float (&g)[kVec]) {
      x_chunk(i, v);
      dy_chunk(i, dyv);
      grad(i, dyv, g);
    };
    // sum((x - mean)^2) (recomputed statistics only), sum(g), sum(g * (x - mean))
    float acc[3] = {0.f, 0.f, 0.f};
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float v[kVec], dyv[kVec], g[kVec];
      chunk_values(i, v, dyv, g);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float dev = v[e] - st.mean;
        if (!saved) acc[0] = fmaf(dev, dev, acc[0]);
        acc[1] += g[e];
        acc[2] = fmaf(g[e], dev, acc[2]);
      }
    }
    norm::cluster_row_sum<CLUSTER, ASYNC_SUMS, THREADS>(acc, scratch, parity, slots, cluster_sums);
    walk.refill_previous(k);
    if (!saved) st.rstd = rsqrtf(norm::mean_of(acc[0], d) + eps);
    // dx = rstd * g - (rstd * mean(g) + xhat * rstd * mean(g * xhat)), as layernorm_bwd.
    const float shift_g = st.rstd * norm::mean_of(acc[1], d);
    const float slope_xhat = st.rstd * st.rstd * norm::mean_of(acc[2], d);
    T* dxr = dx + row * static_cast<long long>(dx_stride) + col0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float v[kVec], dyv[kVec], g[kVec];
      chunk_values(i, v, dyv, g);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float xhat = (v[e] - st.mean) * st.rstd;
        dgamma_sum[i][e] = fmaf(dyv[e], xhat, dgamma_sum[i][e]);
        dbeta_sum[i][e] += dyv[e];
        g[e] = fmaf(st.rstd, g[e], fmaf(-xhat, slope_xhat, -shift_g));
      }
      __stcs(reinterpret_cast<uint4*>(dxr) + i * THREADS + tx, E::pack(g));
    }
  });
  if constexpr (POOL > 1) {
    // One gradient at a time through the same shared row (d floats fit in one stage).
    if (partials) {
      float* row = reinterpret_cast<float*>(stage_chunks);
      norm::pool_partial_row<POOL, THREADS>(dgamma_sum, inside, row, dgamma_row, d);
      norm::pool_partial_row<POOL, THREADS>(dbeta_sum, inside, row, dbeta_row, d);
    }
  } else if (partials) {
    // dgamma's and dbeta's stores interleaved, as measured: two norm::store_sums_row calls, one
    // a gradient, compile to other machine code.
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!inside[i]) continue;
      float4* dg = reinterpret_cast<float4*>(dgamma_row + col0 + (i * THREADS + tx) * kVec);
      float4* db = reinterpret_cast<float4*>(dbeta_row + col0 + (i * THREADS + tx) * kVec);
#pragma unroll
      for (int q = 0; q < kVec / 4; ++q) {
        dg[q] = make_float4(dgamma_sum[i][4 * q], dgamma_sum[i][4 * q + 1],
                            dgamma_sum[i][4 * q + 2], dgamma_sum[i][4 * q + 3]);
        db[q] = make_float4(dbeta_sum[i][4 * q], dbeta_sum[i][4 * q + 1], dbeta_sum[i][4 * q + 2],
                            dbeta_sum[i][4 * q + 3]);
      }
    }
  }
#if LADDER_CLUSTERS
  // No block leaves while another may still store to its slots.
  if constexpr (CLUSTER > 1) norm::cluster_barrier();
#endif
#endif
}

// layernorm_bwd_bulk_rows, then, where dgamma and dbeta are given, the reduce of both partial
// rows by the same grid after one barrier (grid_reduce.cuh: a cooperative launch, grid_sync
// zeroed once); else column_sum_pair<T> reduces them in a launch of its own.
template <typename T, int ITEMS, int THREADS, int CLUSTER, bool ASYNC_SUMS = true, int POOL = 1>
__device__ __forceinline__ void layernorm_bwd_bulk_body(
    T* dx, float* dgamma_partial, float* dbeta_partial, const T* x, const T* gamma, const T* dy,
    const float* mean, const float* rstd, int rows, int d, int x_stride, int dy_stride,
    int dx_stride, float eps, T* dgamma, T* dbeta, unsigned* grid_sync) {
  layernorm_bwd_bulk_rows<T, ITEMS, THREADS, CLUSTER, ASYNC_SUMS, POOL>(
      dx, dgamma_partial, dbeta_partial, x, gamma, dy, mean, rstd, rows, d, x_stride, dy_stride,
      dx_stride, eps);
  if (dgamma == nullptr || dbeta == nullptr || dgamma_partial == nullptr ||
      dbeta_partial == nullptr)
    return;
  norm::grid_barrier(grid_sync);
  const int parts = static_cast<int>(gridDim.x) / (CLUSTER * POOL);
  norm::grid_column_reduce(dgamma, dgamma_partial, parts, d, d);
  norm::grid_column_reduce(dbeta, dbeta_partial, parts, d, d);
}

}  // namespace norm

// THREADS: the block, one row at a time (32-1024, a multiple of 32); thread tx owns chunks
// tx + i * THREADS, i < ITEMS, so THREADS * ITEMS * VEC >= d on the bulk path (else it traps).
// Dynamic shared memory: STAGES * 2 * d * sizeof(T) bytes (a row of x and one of dy a stage),
// STAGES = 1..8 (the launch's size picks it), plus d * sizeof(T) where gamma is to be staged
// after the stages (norm::stage_weight; without that room it is read from global memory). The grid is any number of blocks; block b takes rows
// b, b + gridDim.x, ... and writes partial row b of dgamma_partial and dbeta_partial ([gridDim.x,
// d] fp32, nullable together: no affine parameters), every column, zeros where it took no row;
// column_sum_pair<T> reduces them, or, where dgamma, dbeta and grid_sync are given (a cooperative
// launch, grid_sync a word of zero that it gives back as zero), the kernel itself after a grid-wide barrier
// (grid_reduce.cuh). gamma: nullable. mean, rstd: [rows] fp32 as the forward pass
// wrote them; with either null both are recomputed from x (two-pass, with eps), else eps is not
// used. Aliasing: dx may be x or dy (same stride): a row's copies have landed before any of its
// outputs is written, and a copy in flight is always of a row ahead.
// The launch bound: one chunk a thread keeps a thread at 64 registers (ptxas, sm_90: none
// spilled), so that blocks narrower than 1024 threads share an SM; more chunks take what one
// block an SM allows.
template <typename T, int ITEMS, int THREADS>
__global__ void __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    layernorm_bwd_bulk(T* dx, float* dgamma_partial, float* dbeta_partial, const T* x,
                       const T* gamma, const T* dy, const float* mean, const float* rstd, int rows,
                       int d, int x_stride, int dy_stride, int dx_stride, float eps, T* dgamma,
                       T* dbeta, unsigned* grid_sync) {
  norm::layernorm_bwd_bulk_body<T, ITEMS, THREADS, 1>(dx, dgamma_partial, dbeta_partial, x, gamma,
                                                      dy, mean, rstd, rows, d, x_stride,
                                                      dy_stride, dx_stride, eps, dgamma, dbeta,
                                                      grid_sync);
}

// The same with each row split over a cluster of CLUSTER = 2 blocks (sm_90 and later): block
// rank r of cluster c takes columns [r * d / CLUSTER, (r + 1) * d / CLUSTER) of rows c, c + C, ...
// (C = gridDim.x / CLUSTER clusters) and writes that slice of partial row c, so the partial rows
// are C, not gridDim.x. The grid must be a whole number of clusters (the launch fails otherwise);
// the bulk path also needs d a multiple of CLUSTER chunks, and THREADS * ITEMS * VEC >= d / CLUSTER.
// Dynamic shared memory: as above with d / CLUSTER for d. ASYNC_SUMS: how the cluster's blocks
// exchange their row sums (cluster_sum.cuh): st.async into each other's shared memory (true), or
// a cluster barrier a sum (false).
template <typename T, int ITEMS, int THREADS, int CLUSTER, bool ASYNC_SUMS = true>
__global__ void LADDER_CLUSTER_DIMS(CLUSTER)
    __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    layernorm_bwd_bulk_cluster(T* dx, float* dgamma_partial, float* dbeta_partial, const T* x,
                               const T* gamma, const T* dy, const float* mean, const float* rstd,
                               int rows, int d, int x_stride, int dy_stride, int dx_stride,
                               float eps, T* dgamma, T* dbeta, unsigned* grid_sync) {
  norm::layernorm_bwd_bulk_body<T, ITEMS, THREADS, CLUSTER, ASYNC_SUMS>(
      dx, dgamma_partial, dbeta_partial, x, gamma, dy, mean, rstd, rows, d, x_stride, dy_stride,
      dx_stride, eps, dgamma, dbeta, grid_sync);
}

// The same with the dgamma and dbeta sums of a cluster of POOL = 2 blocks (sm_90 and later)
// pooled into one partial row each (cluster_pool.cuh): each block takes whole rows b,
// b + gridDim.x, ... as layernorm_bwd_bulk, and cluster c writes partial row c of both
// ([gridDim.x / POOL, d]). The grid must be a whole number of clusters.
template <typename T, int ITEMS, int THREADS, int POOL>
__global__ void LADDER_CLUSTER_DIMS(POOL)
    __launch_bounds__(THREADS, ITEMS == 1 ? 1024 / THREADS : 1)
    layernorm_bwd_bulk_pooled(T* dx, float* dgamma_partial, float* dbeta_partial, const T* x,
                              const T* gamma, const T* dy, const float* mean, const float* rstd,
                              int rows, int d, int x_stride, int dy_stride, int dx_stride,
                              float eps, T* dgamma, T* dbeta, unsigned* grid_sync) {
  norm::layernorm_bwd_bulk_body<T, ITEMS, THREADS, 1, true, POOL>(
      dx, dgamma_partial, dbeta_partial, x, gamma, dy, mean, rstd, rows, d, x_stride, dy_stride,
      dx_stride, eps, dgamma, dbeta, grid_sync);
}

}  // namespace ladder
