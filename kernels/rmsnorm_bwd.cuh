// RMSNorm backward, plain and after a fused residual add.
//   s = x (rmsnorm_bwd) or x + r in fp32 (add_rmsnorm_bwd), rstd = 1 / sqrt(mean(s^2) + eps),
//   g = dy * weight, weight = 1, w or (1 + w)
//   ds = rstd * g - s * rstd^3 * sum(g * s) / d   (+ dh for the fused op: h = s is an output too)
//   dw = sum over rows of dy * s * rstd            (the same for plain and Gemma weights)
// rstd is recomputed from s: it rides in the same reduction as sum(g * s), so it costs no extra
// barrier, and callers need not keep it from the forward pass.
// Geometry and ABI: kernels/README.md. dw partials: backward_common.cuh and column_sum.cuh.
#pragma once
#include "backward_common.cuh"

namespace ladder {
namespace norm {

// Pointers of one row of the fused or plain backward. r, dh, dr may be null.
// SHIFTED: the row's edge chunks are read whole where they may be (InputReads).
template <typename T, bool SHIFTED>
struct RmsBwdRow {
  const T* x;
  const T* r;
  const T* dy;
  const T* dh;
  T* dx;
  T* dr;
  InputReads<T, SHIFTED, kBackwardRowLoad<T>, true> reads;
};

// What a thread keeps of one row tile: dy (and dh for the fused op) packed as stored, the input
// s packed (plain: x as stored) or in fp32 (fused: x + r is not a T; fp32 s takes as many
// registers as packed x and r would, and saves an add per use).
template <typename T, int ITEMS, bool FUSED, bool SHIFTED>
struct RmsBwdTile {
  static constexpr int kF = FUSED ? ITEMS : 1;  // arrays only the fused op uses
  uint4 x[ITEMS];
  uint4 r[kF];
  uint4 dy[ITEMS];
  uint4 dh[kF];
  float s[kF][Elem<T>::kVec];

  // Every DRAM load of the tile is issued before any of them is used (see load_tile); widen()
  // is the first use, so a tile loaded a row ahead is widened only when its row comes up.
  __device__ __forceinline__ void load(const RmsBwdRow<T, SHIFTED>& p, int tile,
                                       const RowAccess& a, int d, bool with_dh) {
    p.reads.tile(p.x, tile, a.vec, a.phase, d, x);
    if constexpr (FUSED) p.reads.tile(p.r, tile, a.vec, a.phase, d, r);
    p.reads.tile(p.dy, tile, a.vec, a.phase, d, dy);
    if constexpr (FUSED) {
      if (with_dh && p.dh != nullptr) p.reads.tile(p.dh, tile, a.vec, a.phase, d, dh);
    }
  }
  __device__ __forceinline__ void widen() {
    if constexpr (FUSED) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float rv[Elem<T>::kVec];
        Elem<T>::unpack(x[i], s[i]);
        Elem<T>::unpack(r[i], rv);
#pragma unroll
        for (int e = 0; e < Elem<T>::kVec; ++e) s[i][e] += rv[e];
      }
    }
  }
  __device__ __forceinline__ void input(int i, float (&v)[Elem<T>::kVec]) const {
    if constexpr (FUSED) {
#pragma unroll
      for (int e = 0; e < Elem<T>::kVec; ++e) v[e] = s[i][e];
    } else {
      Elem<T>::unpack(x[i], v);
    }
  }
};

// The next row an EARLY body (below) loads at the top of a row, kept to the row's end; empty in
// every other body, whose machine code then stays as it was measured.
template <typename T, bool SHIFTED, bool EARLY>
struct EarlyNextRow {};
template <typename T, bool SHIFTED>
struct EarlyNextRow<T, SHIFTED, true> {
  RmsBwdRow<T, SHIFTED> p;
  RowAccess access;
  int cols = 0;
};

// The shared body. FUSED: s = x + r (add_rmsnorm_bwd); otherwise s = x. ONE: d fits one tile
// (the row stays in registers); else rows stream. The two are compiled apart: each alone fits
// the registers, but one loop serving both would keep dw live through the streaming path.
// EARLY (one tile, unshifted): more of the rows ahead on their way. With a row ahead in
// registers (rmsnorm_bwd, ITEMS <= 3) the next row's loads go out at the top of the row, before
// its first pass, and the L2 is asked for the row after next; without (add_rmsnorm_bwd's four
// row tensors, ITEMS >= 2) the L2 is asked for the next row before this row's loads. Otherwise
// neither (kernels/README.md says where each is faster: the planner's early).
template <typename T, int ITEMS, bool FUSED, bool ONE, bool SHIFTED, bool EARLY = false>
__device__ __forceinline__ void rms_bwd_rows(int phase, T* dx, T* dr, float* dw_partial,
                                             const T* x, const T* r, const T* w, const T* dy, const T* dh,
                                             int rows, int d, int x_stride, int r_stride,
                                             int dy_stride, int dh_stride, int dx_stride,
                                             int dr_stride, float eps, float w_offset) {
  constexpr int kVec = Elem<T>::kVec;
  __shared__ ReduceScratch<2> scratch;
  int parity = 0;
  const bool want_dw = dw_partial != nullptr;
  // Packed chunks a thread holds per row (x, dy; the fused op adds r and dh): what the register
  // budget below is measured in. The limits are where ptxas starts to spill (sm_90).
  constexpr int kRowChunks = (FUSED ? 4 : 2) * ITEMS;
  // Row pointers of row group threadIdx.y at `base` and their access on the group's chunk grid;
  // returns the columns the group may touch (0 for an inactive group past the last row: it
  // points at row 0, only joins the reductions).
  auto row_at = [&](long long base, RmsBwdRow<T, SHIFTED>& p, RowAccess& a) -> int {
    const long long row = base + threadIdx.y;
    const long long at = row < rows ? row : 0;
    p.x = x + at * x_stride;
    p.r = FUSED ? r + at * r_stride : nullptr;
    p.dy = dy + at * dy_stride;
    p.dh = dh != nullptr ? dh + at * dh_stride : nullptr;
    p.dx = dx + at * dx_stride;
    p.dr = dr != nullptr ? dr + at * dr_stride : nullptr;
    // Null pointers (optional tensors) never veto the vector path.
    const void* ptrs[6] = {p.x, p.r, p.dy, p.dh, p.dx, p.dr};
    a = backward_access<T, SHIFTED>(ptrs, 6, phase);
    // Only SHIFTED rows have edge reads to record; storing the empty ones of unshifted rows too
    // reschedules the unshifted builds' machine code (the SASS they were measured with).
    if constexpr (SHIFTED) p.reads = InputReads<T, SHIFTED, kBackwardRowLoad<T>, true>(row, rows, d);
    return row < rows ? d : 0;
  };
  const RowLoop loop;
  RmsBwdRow<T, SHIFTED> p;
  RowAccess access;
  int cols = row_at(loop.first, p, access);
  const int tiles = tiles_for<T, ITEMS, true>(d, phase);
  const SkewedAccess wa = weight_access<T, SHIFTED>(w, phase);

  const int nt = ONE ? 1 : tiles;
  // One tile: this thread's dw sums; the fused op keeps them in shared memory, where they leave
  // its registers room for four packed row chunks (backward_common.cuh).
  typename ColumnSums<T, ITEMS, 1, FUSED>::type dw_sums;
  if (ONE && want_dw) dw_sums.begin();
  StreamedPartials<T, 1> streamed;  // streaming rows: dw's partial row, in shared memory if given
  if (!ONE && want_dw) streamed.template begin<ITEMS>(nt, phase);
  // A thread owns the same weight chunks in every row: one tile loads them once per block
  // (where registers allow); otherwise each is read before its use, from L1.
  constexpr bool kHoldW = ONE && kRowChunks <= 8;
  uint4 ws[ITEMS];
  if (kHoldW && w != nullptr) load_weight_tile<T, ITEMS, SHIFTED>(w, wa, phase, d, ws);
  auto weight = [&](int t, int i) -> uint4 {
    if (w == nullptr) return make_uint4(0u, 0u, 0u, 0u);  // unused: never read through null
    if constexpr (kHoldW) return ws[i];
    return load_weight_chunk<T, ITEMS, SHIFTED>(w, t, i, wa, phase, d);
  };
  // One tile, where registers allow (two copies of the row; past this ptxas spills): each
  // row's loads are issued one row ahead, so they overlap the previous row's reduction and
  // stores. Rows never overlap in memory, so no store precedes a load of the same row.
  constexpr bool kAhead = ONE && kRowChunks <= 6;
  static_assert(!EARLY || (ONE && !SHIFTED && (kAhead != FUSED)),
                "EARLY: one tile, unshifted; rmsnorm_bwd with a row ahead, add_rmsnorm_bwd without");
  RmsBwdTile<T, ITEMS, FUSED, SHIFTED> tile, next;
  if (kAhead) tile.load(p, 0, access, cols, true);
  for (long long base = loop.first; base < rows; base += loop.step) {
    EarlyNextRow<T, SHIFTED, EARLY && kAhead> early;
    if constexpr (EARLY) {
      if constexpr (kAhead) {  // the next row into registers; past the last row: zeros, no loads
        early.cols = row_at(base + loop.step, early.p, early.access);
        next.load(early.p, 0, early.access, early.cols, true);
      }
      // The L2 is asked for the first row no register holds, before this row's loads: the row
      // after next where the next is loaded above, else (the fused op) the next.
      const long long ahead =
          base + (kAhead ? kBackwardL2AheadRows : 1) * loop.step + threadIdx.y;
      prefetch_row_tile<T, ITEMS>(x, x_stride, ahead, rows, d, phase);
      prefetch_row_tile<T, ITEMS>(dy, dy_stride, ahead, rows, d, phase);
      if constexpr (FUSED) {
        prefetch_row_tile<T, ITEMS>(r, r_stride, ahead, rows, d, phase);
        prefetch_row_tile<T, ITEMS>(dh, dh_stride, ahead, rows, d, phase);
      }
    }
    float sums[2] = {0.f, 0.f};  // sum(s^2), sum(g * s)
    for (int t = 0; t < nt; ++t) {
      // One tile: dh too, so all of the row's loads are in flight at once.
      if (!kAhead) tile.load(p, t, access, cols, ONE);
      tile.widen();
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float sv[kVec], dyv[kVec], g[kVec];
        tile.input(i, sv);
        Elem<T>::unpack(tile.dy[i], dyv);
        weighted<T>(w != nullptr, w_offset, weight(t, i), dyv, g);
        // The edge chunks read whole hold other rows' elements: left out of the sums here, the
        // one place they could reach a result (past the row, dx is not stored and dw not kept).
        p.reads.drop_other_rows(chunk_column<T, ITEMS>(t, i, phase), cols, sv, g);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          sums[0] = fmaf(sv[e], sv[e], sums[0]);
          sums[1] = fmaf(g[e], sv[e], sums[1]);
        }
      }
    }
    RmsBwdRow<T, SHIFTED> np;
    RowAccess naccess;
    int ncols = 0;
    if constexpr (EARLY && kAhead) {
      np = early.p;
      naccess = early.access;
      ncols = early.cols;
    } else if (kAhead) {  // past the last row: zeros, no loads
      ncols = row_at(base + loop.step, np, naccess);
      next.load(np, 0, naccess, ncols, true);
    }
    row_group_sum<true>(sums, scratch, parity);
    const float inv_rms = rsqrtf(mean_of(sums[0], d) + eps);
    const float coef = inv_rms * inv_rms * inv_rms * mean_of(sums[1], d);
    // Streaming rows keep dw in the block's partial row; only one row group exists then.
    float* partial_row = want_dw ? dw_partial + static_cast<long long>(blockIdx.x) * d : nullptr;
    const bool first_row = base == loop.first;
    for (int t = 0; t < nt; ++t) {
      if (!ONE) {
        tile.load(p, t, access, cols, true);  // dh too, before any store of the tile
        tile.widen();
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = chunk_column<T, ITEMS>(t, i, phase);
        float sv[kVec], dyv[kVec], g[kVec], contrib[kVec];
        tile.input(i, sv);
        Elem<T>::unpack(tile.dy[i], dyv);
        weighted<T>(w != nullptr, w_offset, weight(t, i), dyv, g);
        float dhv[kVec];
        if (FUSED && p.dh != nullptr) Elem<T>::unpack(tile.dh[FUSED ? i : 0], dhv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          contrib[e] = dyv[e] * sv[e] * inv_rms;
          g[e] = inv_rms * g[e] - sv[e] * coef;  // g becomes the row gradient
          if (FUSED && p.dh != nullptr) g[e] += dhv[e];
        }
        if (want_dw) {
          if constexpr (ONE) {
            dw_sums.add(0, i, contrib);
          } else if (streamed.slots != nullptr) {
            streamed.add(0, c0, contrib);
          } else {
            accumulate_partial_chunk<T>(partial_row, c0, cols, first_row, contrib);
          }
        }
        // The fused op's four row tensors leave no registers for the unrolled edge store.
        constexpr Edge kEdge = FUSED ? Edge::SkipOutside : Edge::Unrolled;
        store_chunk<T, false, kEdge>(p.dx, c0, cols, access.vec, g);
        if (p.dr != nullptr) store_chunk<T, false, kEdge>(p.dr, c0, cols, access.vec, g);
      }
    }
    if (kAhead) {
      p = np;
      access = naccess;
      cols = ncols;
      tile = next;
    } else {
      cols = row_at(base + loop.step, p, access);
    }
  }
  if (!ONE && streamed.slots != nullptr) streamed.write(0, dw_partial, d);
  if constexpr (ONE) {
    if (want_dw) {
      float dw[ITEMS][kVec];
      dw_sums.read(0, dw);
      write_block_partial<T, ITEMS, SHIFTED>(dw_partial, d, phase, dw);
    }
  }
}

// Picks the one-tile or the streaming body, on the group's chunk grid (SHIFTED:
// backward_common.cuh).
template <typename T, int ITEMS, bool FUSED, bool SHIFTED, bool EARLY = false>
__device__ __forceinline__ void rms_bwd(T* dx, T* dr, float* dw_partial, const T* x, const T* r,
                                        const T* w, const T* dy, const T* dh, int rows, int d,
                                        int x_stride, int r_stride, int dy_stride, int dh_stride,
                                        int dx_stride, int dr_stride, float eps, float w_offset) {
  allow_dependent_launch();
  const bool one = tiles_for<T, ITEMS, true>(d, 0) == 1;
  int phase = 0;
  if constexpr (SHIFTED) {
    const long long f = group_first_row(rows);
    const void* first[6] = {x + f * x_stride, FUSED ? r + f * r_stride : nullptr,
                            dy + f * dy_stride, dh != nullptr ? dh + f * dh_stride : nullptr,
                            dx + f * dx_stride, dr != nullptr ? dr + f * dr_stride : nullptr};
    phase = group_phase<T, ITEMS>(first, 6, d, one);
  }
  if (one) {
    rms_bwd_rows<T, ITEMS, FUSED, true, SHIFTED, EARLY>(phase, dx, dr, dw_partial, x, r, w, dy,
                                                        dh, rows, d, x_stride, r_stride,
                                                        dy_stride, dh_stride, dx_stride,
                                                        dr_stride, eps, w_offset);
  } else {
    rms_bwd_rows<T, ITEMS, FUSED, false, SHIFTED>(phase, dx, dr, dw_partial, x, r, w, dy, dh,
                                                  rows, d, x_stride, r_stride, dy_stride,
                                                  dh_stride, dx_stride, dr_stride, eps, w_offset);
  }
}

}  // namespace norm

// ITEMS: 16-byte chunks per thread (host-chosen; README). Grid: a fixed number of blocks, each
// looping over rows; dw_partial is [gridDim.x, d] fp32 scratch, then column_sum<T> gives dw.
// w: nullable (no weight; pass dw_partial = null too). w_offset: 0 plain, 1 Gemma.
// EARLY: the next row's loads at the top of each row, and the L2 asked for the row after next
// (rms_bwd_rows); only with SHIFTED false and ITEMS <= 3, for any launch.
template <typename T, int ITEMS, bool SHIFTED = false, bool EARLY = false>
__global__ void __launch_bounds__(norm::kBackwardMaxThreads)
    rmsnorm_bwd(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows, int d,
                int x_stride, int dy_stride, int dx_stride, float eps, float w_offset) {
  norm::rms_bwd<T, ITEMS, false, SHIFTED, EARLY>(dx, nullptr, dw_partial, x, nullptr, w, dy,
                                                 nullptr, rows, d, x_stride, 0, dy_stride, 0,
                                                 dx_stride, 0, eps, w_offset);
}

// Backward of h = x + r, y = rmsnorm(h) * weight (convention A: the fp32 sum is normalized).
// dx receives the gradient of x; dr (nullable) the same values for r. dh (nullable) is the
// incoming gradient of h when h is used downstream; it is added to both.
// EARLY: the L2 asked for the next row before each row's loads (rms_bwd_rows); only with
// SHIFTED false and ITEMS >= 2, for any launch.
template <typename T, int ITEMS, bool SHIFTED = false, bool EARLY = false>
__global__ void __launch_bounds__(norm::kBackwardMaxThreads)
    add_rmsnorm_bwd(T* dx, T* dr, float* dw_partial, const T* x, const T* r, const T* w,
                    const T* dy, const T* dh, int rows, int d, int x_stride, int r_stride,
                    int dy_stride, int dh_stride, int dx_stride, int dr_stride, float eps,
                    float w_offset) {
  norm::rms_bwd<T, ITEMS, true, SHIFTED, EARLY>(dx, dr, dw_partial, x, r, w, dy, dh, rows, d,
                                                x_stride, r_stride, dy_stride, dh_stride,
                                                dx_stride, dr_stride, eps, w_offset);
}

}  // namespace ladder
