// Fused residual add + RMSNorm forward: h = x + r (stored in the io dtype), y = rmsnorm(h) * weight.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "norm_common.cuh"
#include "row_reads.cuh"
#include "staged_common.cuh"

namespace ladder {
namespace norm {

// The sum the kernel normalizes, per element, from the packed chunks of x and r. Convention A
// (ROUND_SUM = false; FlashInfer, FLA): the fp32 sum itself; h stores it rounded. Convention B
// (ROUND_SUM = true; vLLM's CUDA kernel): the sum rounded to the io dtype first, so h and the
// normalized value agree exactly. Recomputing it from the packed inputs costs one add per use and
// keeps 16-bit rows at 8 registers per chunk pair.
template <typename T, bool ROUND_SUM>
__device__ __forceinline__ void chunk_sum(const uint4& x, const uint4& r,
                                          float (&s)[Elem<T>::kVec]) {
  float rv[Elem<T>::kVec];
  Elem<T>::unpack(x, s);
  Elem<T>::unpack(r, rv);
#pragma unroll
  for (int e = 0; e < Elem<T>::kVec; ++e) {
    s[e] += rv[e];
    if (ROUND_SUM) s[e] = Elem<T>::to_float(Elem<T>::from_float(s[e]));
  }
}

}  // namespace norm

// ITEMS: 16-byte chunks per thread per tile (host-chosen from d; see README).
// ROUND_SUM: false = convention A, true = convention B (identical for float).
// w: nullable; w_offset 0 (plain) or 1 (Gemma). rstd: nullable, fp32 per row.
// Aliasing: h may be r and/or y may be x (each with the same stride). Each element of x and r is
// read by exactly one thread before that thread writes the same element of h or y, and no thread
// reads an element another thread writes, so in-place calls are safe.
// MAX_THREADS: the launch bound, as in rmsnorm_fwd (rmsnorm.cuh).
// STAGE_WEIGHT: the weight is staged in dynamic shared memory once a block, as in rmsnorm_fwd
// (norm::StagedWeight). The planner takes it for a wide row that fills its bound, the block
// alone on its SM (16-bit rows of 30721-32768): bf16 512x32768 41.1-41.2 us against 44.6-44.8
// with the weight held in registers (spilling), 2048x32768 0.93 of the copy ceiling against
// 0.87 (call 98).
// OFF_GRID: rows may sit off the 16-byte grid (layernorm_fwd, layernorm.cuh): the rows' edge
// chunks are read whole and the weight skewed. The whole edge chunks hold a few elements of the
// neighbouring rows, which may be another thread's h or y in place; they are read, never used or
// written. Aligned launches keep false.
template <typename T, int ITEMS, bool ROUND_SUM, int MAX_THREADS = 1024, bool STAGE_WEIGHT = false,
          bool OFF_GRID = false>
__global__ void __launch_bounds__(MAX_THREADS)
    add_rmsnorm_fwd(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows, int d,
                    int x_stride, int r_stride, int h_stride, int y_stride, float eps,
                    float w_offset) {
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
    const long long at = active ? row : 0;  // inactive groups only join reductions
    const T* xr = x + at * x_stride;
    const T* rr = r + at * r_stride;
    T* hr = h + at * h_stride;
    T* yr = y + at * y_stride;
    const int cols = active ? d : 0;
    const void* ptrs[4] = {xr, rr, hr, yr};
    const norm::RowAccess access = norm::row_access<T>(ptrs, 4);
    const int tiles = norm::tiles_for<T, ITEMS>(d, access.phase);
    const norm::InputReads<T, OFF_GRID> in_reads(row, rows, d);
    const norm::WeightReads<T, OFF_GRID> w_reads(w, access);
    auto load_inputs = [&](int t, uint4 (&xs_)[ITEMS], uint4 (&rs_)[ITEMS]) {
      in_reads.tile(xr, t, access.vec, access.phase, cols, xs_);
      in_reads.tile(rr, t, access.vec, access.phase, cols, rs_);
    };

    constexpr bool kEarlyWeight = ITEMS <= 2;  // registers: see rmsnorm.cuh
    const bool w_vec = w_reads.vec;
    uint4 xs[ITEMS], rs[ITEMS], ws[ITEMS];
    float sum[1] = {0.f};
    for (int t = 0; t < tiles; ++t) {
      load_inputs(t, xs, rs);
      if (kEarlyWeight && tiles == 1 && w != nullptr) w_reads.tile(w, access, cols, ws);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float sv[kVec];
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
        in_reads.drop_other_rows(norm::chunk_column<T, ITEMS>(t, i, access.phase), cols, sv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum[0] = fmaf(sv[e], sv[e], sum[0]);
        // In registers (one tile), h goes out now so its stores overlap the reduction; they
        // follow every load of the row (h may alias r). When the row streams, h waits for the
        // second pass, which re-reads r.
        if (tiles == 1)
          norm::store_chunk(hr, norm::chunk_column<T, ITEMS>(0, i, access.phase), cols,
                            access.vec, sv);
      }
    }
    const float inv_rms = norm::row_inv_rms(sum[0], scratch, parity, d, eps, rstd, row, active);
    if constexpr (STAGE_WEIGHT) staged_w.wait();

    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) load_inputs(t, xs, rs);
      const bool early = kEarlyWeight && tiles == 1;
      // The wide build (MAX_THREADS below 1024, registers to spare) runs threads whose chunks
      // are all inside the row, weight included, through a copy without per-chunk tests
      // (norm::with_inside_copy). Under the 64-register cap the copy would spill.
      constexpr bool kInsideCopy = MAX_THREADS < 1024;
      const bool inside = (w == nullptr || w_vec) &&
                          norm::tile_interior<T, ITEMS>(t, access.vec, access.phase, cols);
      norm::with_inside_copy<kInsideCopy>(inside, [&](bool known_inside) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
          float sv[kVec];
          norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
          if (tiles > 1) norm::store_chunk(hr, c0, cols, access.vec, sv, known_inside);
          if (w != nullptr) {
            float wv[kVec];
            E::unpack(early ? ws[i]
                      : STAGE_WEIGHT && staged_w.holds(c0, d, w_vec, known_inside)
                          ? staged_w.chunk(c0)
                          : w_reads.chunk(w, c0, cols, known_inside),
                      wv);
            norm::scale_by_weight(sv, inv_rms, wv, w_offset);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) sv[e] *= inv_rms;
          }
          norm::store_chunk(yr, c0, cols, access.vec, sv, known_inside);
        }
      });
    }
  }
}

// The staged schedule (staged_common.cuh): same arguments, results and aliasing as
// add_rmsnorm_fwd. Launch as rmsnorm_fwd_staged, with STAGES * 2 * ITEMS * TPR * 16 bytes of
// dynamic shared memory (x and r are both staged).
template <typename T, int ITEMS, bool ROUND_SUM, int STAGES>
__global__ void __launch_bounds__(1024)
    add_rmsnorm_fwd_staged(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                           int d, int x_stride, int r_stride, int h_stride, int y_stride,
                           float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  if (blockDim.y != 1) __trap();
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 stage_memory[];
  const norm::StageLayout<ITEMS, 2> layout{stage_memory};
  struct Rows {
    const T* x;
    const T* r;
    T* h;
    T* y;
  };
  auto rows_of = [&](long long row) {
    return Rows{x + row * x_stride, r + row * r_stride, h + row * h_stride, y + row * y_stride};
  };
  auto access_of = [&](const Rows& p) {
    const void* ptrs[4] = {p.x, p.r, p.h, p.y};
    return norm::row_access<T>(ptrs, 4);
  };
  auto stage_row_copies = [&](long long row, int st) {
    const Rows p = rows_of(row);
    const T* const src[2] = {p.x, p.r};
    norm::stage_row<T, ITEMS, 2>(layout, st, src, access_of(p), d);
  };
  int parity = 0;
  norm::walk_staged_rows<STAGES>(rows, stage_row_copies, [&](long long row, int st) {
    const Rows p = rows_of(row);
    const norm::RowAccess access = access_of(p);
    norm::trap_unless_one_tile<T, ITEMS>(d, access.phase);
    const bool w_vec = norm::weight_vec_ok(w, access);
    float sum[1] = {0.f};
    uint4 ws[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = norm::chunk_column<T, ITEMS>(0, i, access.phase);
      const uint4 xs = norm::staged_chunk<T, ITEMS, 2>(layout, st, 0, i, p.x, c0, d, access.vec);
      const uint4 rs = norm::staged_chunk<T, ITEMS, 2>(layout, st, 1, i, p.r, c0, d, access.vec);
      // The row's unstaged ends go to their slots too: h (which may be r) is written below, and
      // the second pass must read the inputs as they were.
      if (!norm::chunk_inside<T>(c0, d, access.vec)) {
        *layout.slot(st, 0, i) = xs;
        *layout.slot(st, 1, i) = rs;
      }
      float sv[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs, rs, sv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum[0] = fmaf(sv[e], sv[e], sum[0]);
      norm::store_chunk(p.h, c0, d, access.vec, sv);  // overlaps the reduction
      if (w != nullptr) ws[i] = norm::load_chunk_packed<T, norm::Load::ReadOnly>(w, c0, d, w_vec);
    }
    const float inv_rms = norm::row_inv_rms(sum[0], scratch, parity, d, eps, rstd, row, true);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = norm::chunk_column<T, ITEMS>(0, i, access.phase);
      if (c0 >= d) continue;
      float sv[kVec];
      norm::chunk_sum<T, ROUND_SUM>(*layout.slot(st, 0, i), *layout.slot(st, 1, i), sv);
      norm::scale_by_rms<T>(sv, inv_rms, w != nullptr, ws[i], w_offset);
      norm::store_chunk(p.y, c0, d, access.vec, sv);
    }
  });
}

}  // namespace ladder
