// Shared pieces of the backward kernels: the per-block weight-gradient partials and the access
// rule that keeps a thread on the same columns for every row.
//
// Weight gradients (dw, dgamma, dbeta) are sums over rows. No atomics: each block of a fixed-size
// grid loops over its rows and keeps the sums for the columns its threads own, then writes one
// partial row partial[blockIdx.x][0..d). column_sum.cuh adds the partial rows in a fixed order.
// The result depends only on rows, d and the launch geometry, so it is bit-for-bit reproducible.
#pragma once
#include "dependent_launch.cuh"
#include "norm_common.cuh"
#include "row_reads.cuh"

namespace ladder {
namespace norm {

// The most threads a backward block may have (the kernels' __launch_bounds__).
constexpr int kBackwardMaxThreads = 512;

// A backward thread must own the same columns in every row, so that its weight-gradient sums can
// stay in registers. Each row group therefore fixes one chunk grid for all its rows: the grid of
// its first row, shifted by that row's phase (see norm_common.cuh), so rows of odd length still
// take 16-byte accesses. The planner makes the grid's row step a whole number of 16-byte steps in
// every tensor, so every later row of the group has the same phase; a row that does not (another
// launcher's geometry) is gathered element by element on the same grid.
// The kernels take this as a template parameter, SHIFTED: with SHIFTED = false every group uses
// the unshifted grid (phase 0, a constant), which costs no registers; misaligned rows are then
// gathered. Tracking a runtime phase costs registers that make some aligned kernels spill, so
// the host picks SHIFTED = true only when the rows are misaligned.
// rows[0] must not be null.
template <typename T>
__device__ __forceinline__ RowAccess grid_access(const void* const* rows, int count,
                                                 int grid_phase) {
  RowAccess a = row_access<T, true>(rows, count);
  a.vec = a.vec && a.phase == grid_phase;
  a.phase = grid_phase;
  return a;
}

// The unshifted grid (SHIFTED = false): the vector path only for rows whose pointers are all
// 16-byte aligned (null pointers, of absent optional tensors, are).
__device__ __forceinline__ RowAccess aligned_access(const void* const* rows, int count) {
  RowAccess a;
  a.vec = true;
  for (int k = 0; k < count; ++k) a.vec = a.vec && offset_in_chunk(rows[k]) == 0;
  a.phase = 0;
  return a;
}

// A row's access on the group's grid: the unshifted rule, or the shifted one at `phase`.
template <typename T, bool SHIFTED>
__device__ __forceinline__ RowAccess backward_access(const void* const* rows, int count,
                                                     int phase) {
  if constexpr (SHIFTED) return grid_access<T>(rows, count, phase);
  return aligned_access(rows, count);
}

// How far ahead the one-tile builds that load the next row into registers ask the L2 for a row
// (layernorm_bwd's 16-bit builds on the 16-byte grid, rmsnorm_bwd's EARLY builds;
// kernels/README.md says which builds ask and why): the row after next, since the next row is
// already on its way into registers; so a block has a second row's bytes in flight without
// holding a register for them.
constexpr int kBackwardL2AheadRows = 2;

// Asks the L2 for the chunks of one row (a tensor base and its stride) that this thread reads
// in the one-tile kernels (tile 0 at `phase`), without waiting or holding a register. Past the
// last row nothing; a chunk straddling an end of the row asks for its part inside the row, so
// every address lies in the row.
template <typename T, int ITEMS>
__device__ __forceinline__ void prefetch_row_tile(const T* base, long long stride, long long row,
                                                  long long rows, int d, int phase) {
  if (base == nullptr || row >= rows) return;
  const T* p = base + row * stride;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(0, i, phase);
    if (c0 < d && c0 + Elem<T>::kVec > 0)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(p + max(c0, 0)));
  }
}

// The phase a row group fixes from its first row's pointers (first_rows). ONE (the row must fit
// one tile): a phase that would push the row into a second tile falls back to 0.
template <typename T, int ITEMS>
__device__ __forceinline__ int group_phase(const void* const* first_rows, int count, int d,
                                           bool one) {
  const RowAccess first = row_access<T, true>(first_rows, count);
  const int phase = first.vec ? first.phase : 0;
  return (one && tiles_for<T, ITEMS, true>(d, phase) != 1) ? 0 : phase;
}

// Access to a weight on the group's chunk grid. On the unshifted grid (SHIFTED = false, and a
// shifted group at phase 0) a weight off the 16-byte grid is gathered rather than read skewed:
// the skewed path's registers slow the aligned kernels down.
template <typename T, bool SHIFTED>
__device__ __forceinline__ SkewedAccess weight_access(const void* w, int phase) {
  SkewedAccess a;
  if constexpr (SHIFTED) a = skewed_access<T>(w, phase);
  if (!SHIFTED || phase == 0) {
    a.vec = offset_in_chunk(w) == 0;
    a.skew = 0;
  }
  return a;
}

// A weight tile / chunk on the group's grid: read skewed only by the SHIFTED kernels, so the
// unshifted ones keep the plain loads' code.
template <typename T, int ITEMS, bool SHIFTED>
__device__ __forceinline__ void load_weight_tile(const T* w, const SkewedAccess& a, int phase,
                                                 int d, uint4 (&raw)[ITEMS]) {
  if constexpr (SHIFTED) {
    load_tile_skewed<T, ITEMS, Load::ReadOnly>(w, 0, a, phase, d, raw);
  } else {
    load_tile<T, ITEMS, Load::ReadOnly>(w, 0, a.vec, 0, d, raw);
  }
}

template <typename T, int ITEMS, bool SHIFTED>
__device__ __forceinline__ uint4 load_weight_chunk(const T* w, int tile, int item,
                                                   const SkewedAccess& a, int phase, int d) {
  const int c0 = chunk_column<T, ITEMS>(tile, item, SHIFTED ? phase : 0);
  if constexpr (SHIFTED) return load_chunk_skewed<T, Load::ReadOnly>(w, c0, d, a);
  return load_chunk_packed<T, Load::ReadOnly>(w, c0, d, a.vec);
}

// g = dy * (w + w_offset), or dy without a weight; w_raw is the packed weight chunk.
template <typename T>
__device__ __forceinline__ void weighted(bool has_w, float w_offset, const uint4& w_raw,
                                         const float (&dy)[Elem<T>::kVec],
                                         float (&g)[Elem<T>::kVec]) {
  if (has_w) {
    float wv[Elem<T>::kVec];
    Elem<T>::unpack(w_raw, wv);
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) g[e] = dy[e] * (wv[e] + w_offset);
  } else {
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) g[e] = dy[e];
  }
}

// LayerNorm's dx of one chunk: xhat = (x - mean) * rstd, and g (dy * gamma on entry) becomes
// dx = rstd * g - (rstd * mean(g) + xhat * rstd * mean(g * xhat)), two fmas an element with the
// row's two products (shift_g = rstd * mean(g), slope_xhat = rstd * mean(g * xhat)) taken once.
template <int N>
__device__ __forceinline__ void layernorm_dx(const float (&xv)[N], float mu, float inv_std,
                                             float slope_xhat, float shift_g, float (&g)[N],
                                             float (&xhat)[N]) {
#pragma unroll
  for (int e = 0; e < N; ++e) {
    xhat[e] = (xv[e] - mu) * inv_std;
    g[e] = fmaf(inv_std, g[e], fmaf(-xhat[e], slope_xhat, -shift_g));
  }
}

// The first row of this thread's row group (row 0 for a group past the last row).
__device__ __forceinline__ long long group_first_row(int rows) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y;
  return row < rows ? row : 0;
}

// Writes partial[blockIdx.x][c] = sum over the block's row groups (in group order) of acc for
// column c. Every thread of the block must call it (it has barriers); it runs once per block,
// after the row loop, and only for rows of one tile (every group covers all d columns).
// Each item passes through shared memory, so that the block stores the partial row's columns in
// order. Stored straight from the chunk layout, a warp's store covers 32 sectors for 32 floats
// (its lanes' columns are a chunk apart), and every block stores at the same moment, after its
// last row. For the shifted groups that was most of the weight gradients' cost: in column order
// rmsnorm_bwd bf16 8192x2049 went from 51.9 to 47.6 us and layernorm_bwd from 60.5 to 51.7
// (call 225). The phase kernels (backward_phase.cuh) store theirs from the chunk layout still:
// read in column order from their shared-memory sums they were 1-2% slower (the same call).
// SHIFTED = false: every group is on the unshifted grid, so the groups' sums meet in shared
// memory item by item. SHIFTED: groups may sit on differently shifted grids, so they are joined
// column by column in the partial row itself, one group after another; the barrier between
// groups also makes one group's stores visible to the next.
template <typename T, int ITEMS, bool SHIFTED>
__device__ __forceinline__ void write_block_partial(float* partial, int d, int phase,
                                                    const float (&acc)[ITEMS][Elem<T>::kVec]) {
  constexpr int kVec = Elem<T>::kVec;
  __shared__ float exchange[kBackwardMaxThreads * kVec];
  float* out = partial + static_cast<long long>(blockIdx.x) * d;
  const int tpr = blockDim.x;
  const int groups = blockDim.y;
  const int threads = tpr * groups;
  const int tid = threadIdx.y * tpr + threadIdx.x;
  if constexpr (!SHIFTED) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      __syncthreads();  // the previous item's reads are done
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        exchange[threadIdx.y * tpr * kVec + threadIdx.x * kVec + e] = acc[i][e];
      __syncthreads();
      // Column of exchange slot j in item i: (i * tpr) * kVec + j, the unshifted chunk grid.
      for (int j = tid; j < tpr * kVec; j += threads) {
        const int col = i * tpr * kVec + j;
        if (col >= d) continue;
        float sum = 0.f;
        for (int g = 0; g < groups; ++g) sum += exchange[g * tpr * kVec + j];
        out[col] = sum;
      }
    }
  } else {
    __shared__ int slab_phase;
    for (int g = 0; g < groups; ++g) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        __syncthreads();  // the previous item's reads, and the previous group's stores, are done
        if (static_cast<int>(threadIdx.y) == g) {
#pragma unroll
          for (int e = 0; e < kVec; ++e) exchange[threadIdx.x * kVec + e] = acc[i][e];
          if (threadIdx.x == 0) slab_phase = phase;
        }
        __syncthreads();
        // Column of exchange slot j: item i's chunk grid, shifted by group g's phase.
        const int first = i * tpr * kVec - slab_phase;
        for (int j = tid; j < tpr * kVec; j += threads) {
          const int col = first + j;
          if (col < 0 || col >= d) continue;
          out[col] = g == 0 ? exchange[j] : out[col] + exchange[j];
        }
      }
    }
  }
}

// The weight-gradient sums of a one-tile thread (ITEMS chunks, SUMS gradients), kept in the
// block's dynamic shared memory rather than in registers. In registers they took 16 (rmsnorm) or
// 32 (layernorm) of a 16-value thread's 128, which left no room to load the next row ahead.
// Each thread owns its slots, so the read-modify-writes need no barrier. Slot layout
// [sum][item][quad][thread] as float4: a warp's 16-byte accesses fall on consecutive addresses,
// so they take the fewest shared-memory wavefronts. A block needs kBytesPerThread a thread.
extern __shared__ float4 column_sums_memory[];

template <typename T, int ITEMS, int SUMS>
struct SharedColumnSums {
  static constexpr int kVec = Elem<T>::kVec;
  static constexpr int kQuads = kVec / 4;  // float4 per chunk: 1 (fp32) or 2 (16-bit)
  static constexpr unsigned kBytesPerThread = SUMS * ITEMS * kQuads * 16u;
  int threads;
  int tid;

  __device__ __forceinline__ SharedColumnSums()
      : threads(static_cast<int>(blockDim.x * blockDim.y)),
        tid(static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x)) {}

  // Zeroes this thread's sums; call it before the first add (only where the sums are used:
  // other launches need no dynamic shared memory). A launch with less dynamic shared memory than
  // the sums need traps, as it would corrupt them.
  __device__ __forceinline__ void begin() const {
    if (dynamic_shared_bytes() < static_cast<unsigned>(threads) * kBytesPerThread) __trap();
#pragma unroll
    for (int k = 0; k < SUMS * ITEMS * kQuads; ++k)
      column_sums_memory[k * threads + tid] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  __device__ __forceinline__ float4& slot(int sum, int item, int quad) const {
    return column_sums_memory[((sum * ITEMS + item) * kQuads + quad) * threads + tid];
  }
  __device__ __forceinline__ void add(int sum, int item, const float (&v)[kVec]) const {
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      float4 a = slot(sum, item, q);
      a.x += v[4 * q];
      a.y += v[4 * q + 1];
      a.z += v[4 * q + 2];
      a.w += v[4 * q + 3];
      slot(sum, item, q) = a;
    }
  }
  // This thread's sums of gradient `sum`, for write_block_partial.
  __device__ __forceinline__ void read(int sum, float (&acc)[ITEMS][kVec]) const {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
      for (int q = 0; q < kQuads; ++q) {
        const float4 a = slot(sum, i, q);
        acc[i][4 * q] = a.x;
        acc[i][4 * q + 1] = a.y;
        acc[i][4 * q + 2] = a.z;
        acc[i][4 * q + 3] = a.w;
      }
  }
};

// The same interface with the sums in registers: the plain rmsnorm_bwd has room for its 16, and
// measured 2-3% faster with them there (call 35) than in shared memory.
template <typename T, int ITEMS, int SUMS>
struct RegisterColumnSums {
  static constexpr int kVec = Elem<T>::kVec;
  float acc[SUMS][ITEMS][kVec];

  __device__ __forceinline__ void begin() {
#pragma unroll
    for (int k = 0; k < SUMS; ++k)
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[k][i][e] = 0.f;
  }
  __device__ __forceinline__ void add(int sum, int item, const float (&v)[kVec]) {
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[sum][item][e] += v[e];
  }
  __device__ __forceinline__ void read(int sum, float (&out)[ITEMS][kVec]) const {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
      for (int e = 0; e < kVec; ++e) out[i][e] = acc[sum][i][e];
  }
};

// ColumnSums<T, ITEMS, SUMS, SHARED>::type: one of the two above.
template <typename T, int ITEMS, int SUMS, bool SHARED>
struct ColumnSums {
  using type = RegisterColumnSums<T, ITEMS, SUMS>;
};
template <typename T, int ITEMS, int SUMS>
struct ColumnSums<T, ITEMS, SUMS, true> {
  using type = SharedColumnSums<T, ITEMS, SUMS>;
};

// The streaming path (a row wider than one tile; one row group per block): the block's partial
// row lives in global memory instead of registers. Only this thread touches these columns of
// this partial row, so the read-modify-write needs no synchronization and stays deterministic.
template <typename T>
__device__ __forceinline__ void accumulate_partial_chunk(float* partial_row, int c0, int d,
                                                         bool first_row,
                                                         const float (&add)[Elem<T>::kVec]) {
#pragma unroll
  for (int e = 0; e < Elem<T>::kVec; ++e) {
    const int c = c0 + e;
    if (c < 0 || c >= d) continue;
    partial_row[c] = first_row ? add[e] : partial_row[c] + add[e];
  }
}

// The streaming path's partial rows kept in the block's dynamic shared memory, where the launch
// gives enough (the planner does up to what a block may take): gradient k's column c at slot
// k * span + c + phase, span being the row's tiles of columns, so that every chunk's slots are
// 16-byte aligned. Each thread adds only to its own chunks' slots, so the row loop needs no
// barrier; write() stores the rows once, in column order, after the loop. Added to chunk by chunk
// in global memory instead (accumulate_partial_chunk: each add a load, an add and a 4-byte store
// that waits on the last row's), the gradients cost rmsnorm_bwd bf16 2048x16385 355 us of its
// 455, and layernorm_bwd 697 of 795 (call 228).
template <typename T, int SUMS>
struct StreamedPartials {
  static constexpr int kVec = Elem<T>::kVec;
  float* slots = nullptr;  // null: too little shared memory; the caller adds in global memory
  int span = 0;
  int phase = 0;

  // Every chunk (t, i) of the thread's tiles is zeroed; call only where the row streams.
  template <int ITEMS>
  __device__ __forceinline__ void begin(int tiles, int phase_) {
    span = tiles * tile_columns<T, ITEMS>();
    phase = phase_;
    if (dynamic_shared_bytes() < static_cast<unsigned>(SUMS * span) * 4u) return;
    slots = reinterpret_cast<float*>(column_sums_memory);
    for (int t = 0; t < tiles; ++t)
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int k = 0; k < SUMS; ++k) {
          float4* chunk = chunk_slots(k, chunk_column<T, ITEMS>(t, i, phase));
#pragma unroll
          for (int q = 0; q < kVec / 4; ++q) chunk[q] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
  }
  __device__ __forceinline__ float4* chunk_slots(int k, int c0) const {
    return reinterpret_cast<float4*>(slots + k * span + c0 + phase);
  }
  __device__ __forceinline__ void add(int k, int c0, const float (&v)[kVec]) const {
    float4* chunk = chunk_slots(k, c0);
#pragma unroll
    for (int q = 0; q < kVec / 4; ++q) {
      float4 a = chunk[q];
      a.x += v[4 * q];
      a.y += v[4 * q + 1];
      a.z += v[4 * q + 2];
      a.w += v[4 * q + 3];
      chunk[q] = a;
    }
  }
  // Stores gradient k's row as partial[blockIdx.x][0..d). Every thread must call it, after the
  // row loop (its barrier separates the adds from the reads of other threads' slots).
  __device__ __forceinline__ void write(int k, float* partial, int d) const {
    __syncthreads();
    float* out = partial + static_cast<long long>(blockIdx.x) * d;
    const int threads = static_cast<int>(blockDim.x * blockDim.y);
    for (int c = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x); c < d; c += threads)
      out[c] = slots[k * span + c + phase];
  }
};

// One row element by element straight from global memory: the path for launches the bulk
// copies cannot serve. dw_row: the block's partial row (null: no weight); `first`: the block's
// first row, which writes it rather than adds. Each column is kept by one thread, in row order.
// The bulk-copy backward kernels' fallback, and the flat kernel's row path (flat_rows.cuh).
// BLOCK: as row_group_sum's.
template <typename T, bool FUSED, int BLOCK = 0, int M>
__device__ __forceinline__ void rms_bwd_row_elementwise(T* dxr, T* drr, float* dw_row,
                                                        const T* xr, const T* rr, const T* w,
                                                        const T* dyr, const T* dhr, int d,
                                                        float eps, float w_offset, bool first,
                                                        ReduceScratch<M>& scratch, int& parity) {
  using E = Elem<T>;
  const int tx = static_cast<int>(threadIdx.x);
  auto input = [&](int c) {
    const float s = E::to_float(xr[c]);
    return FUSED ? s + E::to_float(rr[c]) : s;
  };
  auto grad = [&](int c) {
    const float g = E::to_float(dyr[c]);
    return w != nullptr ? g * (E::to_float(w[c]) + w_offset) : g;
  };
  float sums[2] = {0.f, 0.f};  // sum(s^2), sum(g * s)
  for (int c = tx; c < d; c += static_cast<int>(blockDim.x)) {
    const float s = input(c);
    sums[0] = fmaf(s, s, sums[0]);
    sums[1] = fmaf(grad(c), s, sums[1]);
  }
  row_group_sum<true, BLOCK>(sums, scratch, parity);
  const float inv_rms = rsqrtf(mean_of(sums[0], d) + eps);
  const float coef = inv_rms * inv_rms * inv_rms * mean_of(sums[1], d);
  for (int c = tx; c < d; c += static_cast<int>(blockDim.x)) {
    const float s = input(c);
    const float dy_c = E::to_float(dyr[c]);
    float ds = inv_rms * grad(c) - s * coef;
    if (FUSED && dhr != nullptr) ds += E::to_float(dhr[c]);
    if (dw_row != nullptr) dw_row[c] = (first ? 0.f : dw_row[c]) + dy_c * s * inv_rms;
    dxr[c] = E::from_float(ds);
    if (FUSED && drr != nullptr) drr[c] = E::from_float(ds);
  }
}

// A thread's weight-gradient sums of its chunks i * THREADS + threadIdx.x (those with inside[i])
// into their columns of the fp32 row at `row` (16-byte aligned): the bulk kernels' partial row,
// or the shared row a pooled cluster adds (cluster_pool.cuh).
template <int THREADS, int ITEMS, int VEC>
__device__ __forceinline__ void store_sums_row(const float (&sums)[ITEMS][VEC],
                                               const bool (&inside)[ITEMS], float* row) {
  static_assert(VEC % 4 == 0, "VEC");
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (!inside[i]) continue;
    float4* out = reinterpret_cast<float4*>(row + (i * THREADS + static_cast<int>(threadIdx.x)) * VEC);
#pragma unroll
    for (int q = 0; q < VEC / 4; ++q)
      out[q] = make_float4(sums[i][4 * q], sums[i][4 * q + 1], sums[i][4 * q + 2], sums[i][4 * q + 3]);
  }
}

}  // namespace norm
}  // namespace ladder
