// RMSNorm forward: y = x / sqrt(mean(x^2) + eps) * weight, weight being 1, w, or (1 + w) (Gemma).
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "norm_common.cuh"
#include "row_reads.cuh"
#include "staged_common.cuh"

namespace ladder {

// ITEMS: 16-byte chunks each thread keeps per tile (the host picks it from d; see README).
// w: nullable (no weight); w_offset: 0 for plain weights, 1 for Gemma's (1 + w).
// rstd: nullable; when given, rstd[row] = 1 / sqrt(mean(x^2) + eps) in fp32.
// Aliasing: y may be x (same stride); every element is read before it is written, by one thread.
// MAX_THREADS: the launch bound. 1024 (the default) caps a thread at 64 registers; the planner's
// schedule=wide instantiates 8 chunks a thread under a bound of 256 or 512 threads, so ptxas may
// keep them without spilling (kernels/README.md). A block wider than MAX_THREADS fails to launch.
// STAGE_WEIGHT: the weight is staged in dynamic shared memory once a block (norm::StagedWeight;
// give the launch d / VEC * 16 bytes, else the weight is read from global memory as without it).
// The planner takes it for a wide row that fills its bound of 256 threads, compiled for three
// blocks an SM: 80 registers and a 12-byte spill in 16-bit, against 100 registers and two
// blocks without that bound, which measured slower (bf16 4096x16384: 0.884-0.887 of the copy
// ceiling against 0.823-0.827; 0.870-0.874 for the weight held in registers, call 98).
// OFF_GRID: rows may sit off the 16-byte grid (layernorm_fwd, layernorm.cuh): the row's edge
// chunks are read whole and the weight skewed. Aligned launches keep false.
template <typename T, int ITEMS, int MAX_THREADS = 1024, bool STAGE_WEIGHT = false,
          bool OFF_GRID = false>
__global__ void __launch_bounds__(MAX_THREADS, STAGE_WEIGHT ? 3 : 0)
    rmsnorm_fwd(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_memory[];
  norm::StagedWeight<T> staged_w;
  if constexpr (STAGE_WEIGHT) staged_w.stage(w, d, weight_memory);
  int parity = 0;
  const norm::RowLoop loop;
  for (long long base = loop.first; base < rows; base += loop.step) {
    const long long row = base + threadIdx.y;
    const bool active = row < rows;
    // Inactive groups (past the last row) still join the reductions; they point at row 0 and
    // neither load nor store.
    const T* xr = x + (active ? row : 0) * static_cast<long long>(x_stride);
    T* yr = y + (active ? row : 0) * static_cast<long long>(y_stride);
    const int cols = active ? d : 0;
    const void* ptrs[2] = {xr, yr};
    const norm::RowAccess access = norm::row_access<T>(ptrs, 2);
    const int tiles = norm::tiles_for<T, ITEMS>(d, access.phase);
    const norm::InputReads<T, OFF_GRID> x_reads(row, rows, d);
    const norm::WeightReads<T, OFF_GRID> w_reads(w, access);

    // The row stays packed as stored between the passes (4 registers per chunk whatever T is).
    // With one tile and few chunks the weight is loaded up front too, so after the reduction
    // nothing waits on memory. Otherwise (registers: ptxas spills past these) each weight chunk
    // is read just before its use, from L1.
    constexpr bool kEarlyWeight = ITEMS <= 2;
    const bool w_vec = w_reads.vec;
    uint4 xs[ITEMS];
    uint4 ws[ITEMS];
    float sum[1] = {0.f};
    for (int t = 0; t < tiles; ++t) {
      x_reads.tile(xr, t, access.vec, access.phase, cols, xs);
      if (kEarlyWeight && tiles == 1 && w != nullptr) w_reads.tile(w, access, cols, ws);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float f[kVec];
        E::unpack(xs[i], f);
        x_reads.drop_other_rows(norm::chunk_column<T, ITEMS>(t, i, access.phase), cols, f);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum[0] = fmaf(f[e], f[e], sum[0]);
      }
    }
    const float inv_rms = norm::row_inv_rms(sum[0], scratch, parity, d, eps, rstd, row, active);
    if constexpr (STAGE_WEIGHT) staged_w.wait();

    // Threads whose chunks are all inside the row (and the weight on their grid) run a copy of
    // the loop without per-chunk tests (norm::with_inside_copy). Not in 16-bit OFF_GRID builds,
    // where 7 rows in 8 start off the weight's grid and no thread takes it: without it the code
    // is 16% shorter and faster (call 90: bf16 16384x2049 0.576 -> 0.588, 8192x2049 0.511 ->
    // 0.525); fp32 moved by less than 1%, so it keeps the copy.
    constexpr bool kInsideCopy =
        !kEarlyWeight && (ITEMS <= 4 || MAX_THREADS < 1024) && !(OFF_GRID && sizeof(T) == 2);
    for (int t = 0; t < tiles; ++t) {
      // One tile: the row is still in registers. Several: re-read it (mostly from L2).
      if (tiles > 1) x_reads.tile(xr, t, access.vec, access.phase, cols, xs);
      const bool early = kEarlyWeight && tiles == 1;
      const bool inside = (w == nullptr || w_vec) &&
                          norm::tile_interior<T, ITEMS>(t, access.vec, access.phase, cols);
      norm::with_inside_copy<kInsideCopy>(inside, [&](bool known_inside) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
          float v[kVec];
          E::unpack(xs[i], v);
          if (w != nullptr) {
            float wv[kVec];
            E::unpack(early ? ws[i]
                      : STAGE_WEIGHT && staged_w.holds(c0, d, w_vec, known_inside)
                          ? staged_w.chunk(c0)
                          : w_reads.chunk(w, c0, cols, known_inside),
                      wv);
            norm::scale_by_weight(v, inv_rms, wv, w_offset);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) v[e] *= inv_rms;
          }
          norm::store_chunk<T, false, norm::edge_for_16bit<T>(norm::Edge::Rolled)>(
              yr, c0, cols, access.vec, v, known_inside);
        }
      });
    }
  }
}

// Several rows a thread (schedule=rows2|rows4): same arguments, results and aliasing as
// rmsnorm_fwd. Each row group normalizes ROWS consecutive rows at once: their loads are all in
// flight together, the weight is read once for all of them, and one reduction (one barrier)
// serves them all. Launch: block (TPR, RPB, 1) as rmsnorm_fwd, with one tile covering the row
// (TPR * ITEMS * VEC >= d + phase; a launch that breaks it traps), and a grid of at least
// ceil(rows / (RPB * ROWS)) blocks (or fewer: blocks stride over the rest).
template <typename T, int ITEMS, int ROWS>
__global__ void __launch_bounds__(1024)
    rmsnorm_fwd_rows(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                     int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<ROWS> scratch;
  int parity = 0;
  const long long group_rows = static_cast<long long>(blockDim.y) * ROWS;
  for (long long base = blockIdx.x * group_rows; base < rows; base += gridDim.x * group_rows) {
    const long long first = base + static_cast<long long>(threadIdx.y) * ROWS;
    uint4 xs[ROWS][ITEMS];
    norm::RowAccess access[ROWS];
    float sum[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const long long row = first + r;
      const bool active = row < rows;  // inactive rows point at row 0 and neither load nor store
      const void* ptrs[2] = {x + (active ? row : 0) * static_cast<long long>(x_stride),
                             y + (active ? row : 0) * static_cast<long long>(y_stride)};
      access[r] = norm::row_access<T>(ptrs, 2);
      norm::trap_unless_one_tile<T, ITEMS>(d, access[r].phase);
      norm::load_tile<T, ITEMS>(static_cast<const T*>(ptrs[0]), 0, access[r].vec,
                                access[r].phase, active ? d : 0, xs[r]);
    }
    // One read of the weight, on the first row's chunk grid; a row on another grid (an odd
    // stride) reads its own chunks when it needs them.
    uint4 ws[ITEMS];
    const bool w_vec = norm::weight_vec_ok(w, access[0]);
    if (w != nullptr) norm::load_tile<T, ITEMS, norm::Load::ReadOnly>(w, 0, w_vec, access[0].phase, d, ws);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      sum[r] = 0.f;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float f[kVec];
        E::unpack(xs[r][i], f);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum[r] = fmaf(f[e], f[e], sum[r]);
      }
    }
    norm::row_group_sum(sum, scratch, parity);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const long long row = first + r;
      const bool active = row < rows;
      const int cols = active ? d : 0;
      const float inv_rms = norm::inv_rms_of(sum[r], d, eps, rstd, row, active);
      T* yr = y + (active ? row : 0) * static_cast<long long>(y_stride);
      const bool shared_grid = access[r].phase == access[0].phase;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(0, i, access[r].phase);
        float v[kVec];
        E::unpack(xs[r][i], v);
        const uint4 w_raw =
            w == nullptr || shared_grid
                ? ws[i]
                : norm::load_chunk_packed<T, norm::Load::ReadOnly>(w, c0, d, norm::weight_vec_ok(w, access[r]));
        norm::scale_by_rms<T>(v, inv_rms, w != nullptr, w_raw, w_offset);
        norm::store_chunk(yr, c0, cols, access[r].vec, v);
      }
    }
  }
}

// The staged schedule (staged_common.cuh): same arguments and results as rmsnorm_fwd.
// Launch: block (TPR, 1, 1) with TPR * ITEMS * VEC >= d + phase (one tile covers the row; phase
// as in norm_common.cuh, 0 for 16-byte aligned rows, at most VEC - 1),
// any grid (each block walks rows blockIdx.x, + gridDim.x, ...; best about as many blocks as are
// resident), and STAGES * ITEMS * TPR * 16 bytes of dynamic shared memory. A launch that breaks
// the block or tile condition traps rather than leave columns unwritten.
template <typename T, int ITEMS, int STAGES>
__global__ void __launch_bounds__(1024)
    rmsnorm_fwd_staged(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                       int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  if (blockDim.y != 1) __trap();
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 stage_memory[];
  const norm::StageLayout<ITEMS, 1> layout{stage_memory};
  auto x_row = [&](long long row) { return x + row * static_cast<long long>(x_stride); };
  auto y_row = [&](long long row) { return y + row * static_cast<long long>(y_stride); };
  auto access_of = [&](long long row) {
    const void* ptrs[2] = {x_row(row), y_row(row)};
    return norm::row_access<T>(ptrs, 2);
  };
  auto stage_row_copies = [&](long long row, int st) {
    const T* const src[1] = {x_row(row)};
    norm::stage_row<T, ITEMS, 1>(layout, st, src, access_of(row), d);
  };
  int parity = 0;
  norm::walk_staged_rows<STAGES>(rows, stage_row_copies, [&](long long row, int st) {
    const T* xr = x_row(row);
    T* yr = y_row(row);
    const norm::RowAccess access = access_of(row);
    norm::trap_unless_one_tile<T, ITEMS>(d, access.phase);
    const bool w_vec = norm::weight_vec_ok(w, access);
    float sum[1] = {0.f};
    uint4 ws[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = norm::chunk_column<T, ITEMS>(0, i, access.phase);
      const uint4 raw = norm::staged_chunk<T, ITEMS, 1>(layout, st, 0, i, xr, c0, d, access.vec);
      // Unstaged chunks (the row's ends) go to their slot too: the second pass reads only shared
      // memory, never the row again (y may be x).
      if (!norm::chunk_inside<T>(c0, d, access.vec)) *layout.slot(st, 0, i) = raw;
      float f[kVec];
      E::unpack(raw, f);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum[0] = fmaf(f[e], f[e], sum[0]);
      // The weight's loads are issued before the reduction and land during it.
      if (w != nullptr) ws[i] = norm::load_chunk_packed<T, norm::Load::ReadOnly>(w, c0, d, w_vec);
    }
    const float inv_rms = norm::row_inv_rms(sum[0], scratch, parity, d, eps, rstd, row, true);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = norm::chunk_column<T, ITEMS>(0, i, access.phase);
      if (c0 >= d) continue;
      float v[kVec];
      E::unpack(*layout.slot(st, 0, i), v);
      norm::scale_by_rms<T>(v, inv_rms, w != nullptr, ws[i], w_offset);
      norm::store_chunk(yr, c0, d, access.vec, v);
    }
  });
}

}  // namespace ladder
