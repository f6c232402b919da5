// LayerNorm backward.
//   mean, rstd as the forward pass saved them, or recomputed from x (two-pass, as in the
//   forward) when the caller passes none; xhat = (x - mean) * rstd,
//   g = dy * gamma (gamma = 1 when absent)
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy
// With saved statistics a row takes one reduction (sum(g) and sum(g * (x - mean)) together);
// recomputing them saves callers from keeping them at the cost of a second one first (the mean),
// the later one then carrying sum((x - mean)^2) too.
// Geometry and ABI: kernels/README.md. Partials: backward_common.cuh and column_sum.cuh.
#pragma once
#include "backward_common.cuh"

namespace ladder {

namespace norm {

// The kernel's body on the row group's chunk grid (phase: backward_common.cuh). ONE: d fits one
// tile (the row stays in registers); else rows stream. The two are compiled apart, as in
// rmsnorm_bwd.cuh: one loop serving both keeps the streaming path's registers live in the
// one-tile path, which then has no room to load a row ahead. SAVED: mean and rstd are given
// (both non-null): the reduction carries two sums, not three, and the loop has no squared
// deviations and no column tests.
template <typename T, int ITEMS, bool ONE, bool SAVED, bool SHIFTED>
__device__ __forceinline__ void layernorm_bwd_rows(int phase, T* dx, float* dgamma_partial,
                                                   float* dbeta_partial, const T* x,
                                                   const T* gamma, const T* dy,
                                                   const float* mean, const float* rstd, int rows,
                                                   int d, int x_stride, int dy_stride,
                                                   int dx_stride, float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  // Shifted 16-bit rows read their edge chunks whole (norm_common.cuh); fp32 rows gather them:
  // with the whole reads their four-chunk tiles spill (ptxas: 12 -> 112 bytes).
  constexpr bool kEdgesWhole = SHIFTED && sizeof(T) == 2;
  // One buffer per reduction: consecutive uses of either are separated by the other's barrier.
  __shared__ norm::ReduceScratch<1> scratch_mean;
  constexpr int kSums = SAVED ? 2 : 3;  // sum(g), sum(g * (x - mean)), [sum((x - mean)^2)]
  __shared__ norm::ReduceScratch<kSums> scratch_rest;
  int parity_mean = 0, parity_rest = 0;
  const bool want_partials = dgamma_partial != nullptr && dbeta_partial != nullptr;
  // One tile: this thread's dgamma sums in shared memory (sum 0), and its dbeta sums there too
  // (sum 1) in fp32 or in registers in 16 bits. Why: both in shared memory move twice the row's
  // bytes through it for each row, more than the op moves through DRAM (Nsight Compute, call
  // 176: 1.27 M load wavefronts at bf16 8192x2048 against 0.07 M without affine parameters); with
  // dbeta's in registers (call 177) bf16 4096x8192 took 65.4-65.5 us against 69.0-69.1 and
  // 65536x1024 121.7-121.8 against 124.7-125.5, the rest level; fp32 spilled and lost 4-19%.
  constexpr bool kBetaInRegisters = sizeof(T) == 2;
  const norm::SharedColumnSums<T, ITEMS, kBetaInRegisters ? 1 : 2> column_sums;
  norm::RegisterColumnSums<T, ITEMS, 1> beta_sums;  // only where kBetaInRegisters
  if (ONE && want_partials) {
    column_sums.begin();
    if constexpr (kBetaInRegisters) beta_sums.begin();
  }

  // One tile: every element of x and dy is loaded once, so it need not stay in L1 (Load::Stream).
  // Measured (reports/h200/bench-l1.txt): 16-bit rows on the 16-byte grid gain (65536x1024
  // 0.71 -> 0.73); fp32 rows lose up to 7% and shifted rows 1%, so they keep the backward's row
  // loads (norm::kBackwardRowLoad: kept in fp32, plain in 16 bits).
  constexpr norm::Load kRowLoad =
      ONE && sizeof(T) == 2 && !SHIFTED ? norm::Load::Stream : norm::kBackwardRowLoad<T>;
  // `reads`: how the row's tiles are read (kEdgesWhole: its edge chunks whole where they may be).
  using RowReads = norm::InputReads<T, kEdgesWhole, kRowLoad, true>;
  // Row pointers of row group threadIdx.y at `base` and their access on the group's chunk grid;
  // returns the columns it may touch (0 for an inactive group past the last row: it points at
  // row 0, only joins the reductions).
  auto row_at = [&](long long base, const T*& xr, const T*& dyr, T*& dxr, norm::RowAccess& a,
                    RowReads& reads) -> int {
    const long long row = base + threadIdx.y;
    const long long at = row < rows ? row : 0;
    xr = x + at * x_stride;
    dyr = dy + at * dy_stride;
    dxr = dx + at * dx_stride;
    const void* ptrs[3] = {xr, dyr, dxr};
    a = norm::backward_access<T, SHIFTED>(ptrs, 3, phase);
    reads = RowReads(row, rows, d);
    return row < rows ? d : 0;
  };
  // The saved (mean, rstd) of row group threadIdx.y at `base`; zeros past the last row.
  auto stats_at = [&](long long base) -> float2 {
    const long long row = base + threadIdx.y;
    return SAVED && row < rows ? make_float2(__ldg(mean + row), __ldg(rstd + row))
                               : make_float2(0.f, 0.f);
  };
  const norm::RowLoop loop;
  const T *xr, *dyr;
  T* dxr;
  norm::RowAccess access;
  RowReads reads;
  int cols = row_at(loop.first, xr, dyr, dxr, access, reads);
  float2 stats = stats_at(loop.first);
  const int tiles = ONE ? 1 : norm::tiles_for<T, ITEMS, true>(d, phase);
  // Streaming rows: dgamma's (0) and dbeta's (1) partial rows, in shared memory where given.
  norm::StreamedPartials<T, 2> streamed;
  if (!ONE && want_partials) streamed.template begin<ITEMS>(tiles, phase);
  // A thread owns the same gamma chunks in every row: one tile loads them once per block (where
  // registers allow); otherwise each is read just before its use, from L1.
  constexpr bool hold_gamma = ONE && ITEMS * kVec <= 16;
  const norm::SkewedAccess ga = norm::weight_access<T, SHIFTED>(gamma, phase);
  uint4 gs[ITEMS];
  if (hold_gamma && gamma != nullptr)
    norm::load_weight_tile<T, ITEMS, SHIFTED>(gamma, ga, phase, d, gs);
  // g = dy * gamma (dy without gamma) for item i of tile t.
  auto grad = [&](int t, int i, const uint4& dy_raw, float (&g)[kVec]) {
    E::unpack(dy_raw, g);
    if (gamma == nullptr) return;
    float gm[kVec];
    E::unpack(hold_gamma ? gs[i]
                         : norm::load_weight_chunk<T, ITEMS, SHIFTED>(gamma, t, i, ga, phase, d),
              gm);
#pragma unroll
    for (int e = 0; e < kVec; ++e) g[e] *= gm[e];
  };
  // One tile, where registers allow: each row's x and dy are loaded one row ahead, so the loads
  // overlap the previous row's two reductions and its stores. Rows never overlap in memory.
  // Past 16 values a thread (fp32 at ITEMS 4) ptxas spills.
  constexpr bool ahead = ONE && ITEMS * kVec <= 16;
  // 16-bit rows on the 16-byte grid also ask the L2 for the row after next (prefetch_row_tile).
  constexpr bool kL2Ahead = sizeof(T) == 2 && !SHIFTED;
  // x and dy packed as stored: a 16-bit row takes half the registers of fp32.
  uint4 xs[ITEMS], dys[ITEMS], next_x[ITEMS], next_dy[ITEMS];
  if (ahead) {
    reads.tile(xr, 0, access.vec, phase, cols, xs);
    reads.tile(dyr, 0, access.vec, phase, cols, dys);
  }
  for (long long base = loop.first; base < rows; base += loop.step) {
    const T *nxr = nullptr, *ndyr = nullptr;
    T* ndxr = nullptr;
    norm::RowAccess naccess;
    RowReads nreads;
    int ncols = 0;
    float2 next_stats = make_float2(0.f, 0.f);
    if (ahead) {  // past the last row: zeros, no loads
      ncols = row_at(base + loop.step, nxr, ndyr, ndxr, naccess, nreads);
      nreads.tile(nxr, 0, naccess.vec, phase, ncols, next_x);
      nreads.tile(ndyr, 0, naccess.vec, phase, ncols, next_dy);
      next_stats = stats_at(base + loop.step);
      if constexpr (kL2Ahead) {
        const long long ahead = base + norm::kBackwardL2AheadRows * loop.step + threadIdx.y;
        norm::prefetch_row_tile<T, ITEMS>(x, x_stride, ahead, rows, d, phase);
        norm::prefetch_row_tile<T, ITEMS>(dy, dy_stride, ahead, rows, d, phase);
      }
    }
    float mu = stats.x;
    if constexpr (!SAVED) {  // the mean: a first pass and its own reduction
      float total[1] = {0.f};
      for (int t = 0; t < tiles; ++t) {
        if (!ahead) {  // dy too: all of a tile's loads at once
          reads.tile(xr, t, access.vec, phase, cols, xs);
          if (ONE) reads.tile(dyr, t, access.vec, phase, cols, dys);
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          float xv[kVec];
          E::unpack(xs[i], xv);
          reads.drop_other_rows(norm::chunk_column<T, ITEMS>(t, i, phase), cols, xv);
#pragma unroll
          for (int e = 0; e < kVec; ++e) total[0] += xv[e];
        }
      }
      norm::row_group_sum<true>(total, scratch_mean, parity_mean);
      mu = norm::mean_of(total[0], d);
    }

    // The (second) reduction: sum(g), sum(g * (x - mean)), and with recomputed statistics the
    // squared deviations.
    float rest[kSums];
#pragma unroll
    for (int k = 0; k < kSums; ++k) rest[k] = 0.f;
    for (int t = 0; t < tiles; ++t) {
      if (!ONE || (!ahead && SAVED)) {  // not loaded yet
        reads.tile(xr, t, access.vec, phase, cols, xs);
        reads.tile(dyr, t, access.vec, phase, cols, dys);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, phase);
        float xv[kVec], g[kVec];
        E::unpack(xs[i], xv);
        grad(t, i, dys[i], g);
        reads.drop_other_rows(c0, cols, xv, g);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          // Columns outside the row hold x = 0 and g = 0: they add nothing to the two sums of g,
          // but their 0 is not the mean, so the squared deviations leave them out explicitly.
          const float dev = xv[e] - mu;
          rest[0] += g[e];
          rest[1] = fmaf(g[e], dev, rest[1]);
          if constexpr (!SAVED) {
            const float in_row_dev = ((!SHIFTED || c0 + e >= 0) && c0 + e < cols) ? dev : 0.f;
            rest[kSums - 1] = fmaf(in_row_dev, in_row_dev, rest[kSums - 1]);
          }
        }
      }
    }
    norm::row_group_sum<true>(rest, scratch_rest, parity_rest);
    const float inv_std =
        SAVED ? stats.y : rsqrtf(norm::mean_of(rest[kSums - 1], d) + eps);
    const float mean_g = norm::mean_of(rest[0], d);
    const float mean_gxhat = inv_std * norm::mean_of(rest[1], d);
    // dx = rstd * g - (rstd * mean(g) + xhat * rstd * mean(g * xhat)): two fmas an element with
    // the row's two products taken once, instead of a subtract, an fma and a multiply.
    const float shift_g = inv_std * mean_g;
    const float slope_xhat = inv_std * mean_gxhat;

    float* dgamma_row = !ONE && want_partials
                            ? dgamma_partial + static_cast<long long>(blockIdx.x) * d
                            : nullptr;
    float* dbeta_row = !ONE && want_partials
                           ? dbeta_partial + static_cast<long long>(blockIdx.x) * d
                           : nullptr;
    const bool first_row = base == loop.first;
    for (int t = 0; t < tiles; ++t) {
      if (!ONE) {
        reads.tile(xr, t, access.vec, phase, cols, xs);
        reads.tile(dyr, t, access.vec, phase, cols, dys);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = norm::chunk_column<T, ITEMS>(t, i, phase);
        float xv[kVec], dyv[kVec], g[kVec], xhat[kVec];
        E::unpack(xs[i], xv);
        E::unpack(dys[i], dyv);
        grad(t, i, dys[i], g);
        norm::layernorm_dx(xv, mu, inv_std, slope_xhat, shift_g, g, xhat);  // g becomes dx
        if (want_partials) {
          float gamma_add[kVec];
#pragma unroll
          for (int e = 0; e < kVec; ++e) gamma_add[e] = dyv[e] * xhat[e];
          if constexpr (!ONE) {
            if (streamed.slots != nullptr) {
              streamed.add(0, c0, gamma_add);
              streamed.add(1, c0, dyv);
            } else {
              norm::accumulate_partial_chunk<T>(dgamma_row, c0, cols, first_row, gamma_add);
              norm::accumulate_partial_chunk<T>(dbeta_row, c0, cols, first_row, dyv);
            }
          } else {
            column_sums.add(0, i, gamma_add);
            if constexpr (kBetaInRegisters) {
              beta_sums.add(0, i, dyv);
            } else {
              column_sums.add(1, i, dyv);
            }
          }
        }
        norm::store_chunk<T, false, norm::edge_for_16bit<T>(norm::Edge::SkipOutside)>(
            dxr, c0, cols, access.vec, g);
      }
    }
    if (ahead) {
      xr = nxr;
      dyr = ndyr;
      dxr = ndxr;
      access = naccess;
      reads = nreads;
      cols = ncols;
      stats = next_stats;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        xs[i] = next_x[i];
        dys[i] = next_dy[i];
      }
    } else {
      cols = row_at(base + loop.step, xr, dyr, dxr, access, reads);
      stats = stats_at(base + loop.step);
    }
  }
  if (!ONE && streamed.slots != nullptr) {
    streamed.write(0, dgamma_partial, d);
    streamed.write(1, dbeta_partial, d);
  }
  if constexpr (ONE) {
    if (want_partials) {
      float sums[ITEMS][kVec];
      column_sums.read(0, sums);
      norm::write_block_partial<T, ITEMS, SHIFTED>(dgamma_partial, d, phase, sums);
      if constexpr (kBetaInRegisters) {
        beta_sums.read(0, sums);
      } else {
        column_sums.read(1, sums);
      }
      norm::write_block_partial<T, ITEMS, SHIFTED>(dbeta_partial, d, phase, sums);
    }
  }
}

}  // namespace norm

// ITEMS: 16-byte chunks per thread (host-chosen; README). Grid: a fixed number of blocks, each
// looping over rows. dgamma_partial, dbeta_partial: [gridDim.x, d] fp32 scratch (nullable: no
// affine parameters), reduced by column_sum<T>. gamma: nullable.
// RECOMPUTE = false: mean, rstd are [rows] fp32 as the forward pass wrote them (layernorm_fwd's
// mean and rstd outputs); eps is not used; a launch with either null traps rather than read it.
// RECOMPUTE = true: both are recomputed from x (two-pass, with eps); mean and rstd are not read.
// The two are separate kernels, not one run-time choice: in one kernel the four bodies (one tile
// or streaming, times saved or recomputed) made ptxas spill.
template <typename T, int ITEMS, bool SHIFTED = false, bool RECOMPUTE = false>
__global__ void __launch_bounds__(norm::kBackwardMaxThreads)
    layernorm_bwd(T* dx, float* dgamma_partial, float* dbeta_partial, const T* x, const T* gamma,
                  const T* dy, const float* mean, const float* rstd, int rows, int d,
                  int x_stride, int dy_stride, int dx_stride, float eps) {
  if (!RECOMPUTE && (mean == nullptr || rstd == nullptr)) __trap();
  norm::allow_dependent_launch();
  const bool one = norm::tiles_for<T, ITEMS, true>(d, 0) == 1;
  int phase = 0;
  if constexpr (SHIFTED) {  // backward_common.cuh
    const long long f = norm::group_first_row(rows);
    const void* first[3] = {x + f * x_stride, dy + f * dy_stride, dx + f * dx_stride};
    // The partials need every row group on one tile when d fits one unshifted.
    phase = norm::group_phase<T, ITEMS>(first, 3, d, one);
  }
  if (one) {
    norm::layernorm_bwd_rows<T, ITEMS, true, !RECOMPUTE, SHIFTED>(
        phase, dx, dgamma_partial, dbeta_partial, x, gamma, dy, mean, rstd, rows, d, x_stride,
        dy_stride, dx_stride, eps);
  } else {
    norm::layernorm_bwd_rows<T, ITEMS, false, !RECOMPUTE, SHIFTED>(
        phase, dx, dgamma_partial, dbeta_partial, x, gamma, dy, mean, rstd, rows, d, x_stride,
        dy_stride, dx_stride, eps);
  }
}

}  // namespace ladder
