// The backward kernels for rows of one phase a block (schedule=phase): rmsnorm_bwd,
// add_rmsnorm_bwd and layernorm_bwd for rows off the 16-byte grid (16-bit d = 2049, odd strides),
// one tile a row held in registers. Math, arguments and results as rmsnorm_bwd.cuh and
// layernorm_bwd.cuh; the row walk as phase_rows.cuh.
//
// Why: the shifted register kernels (SHIFTED) fix a chunk grid per row group, but still work
// out each row's access, edge reads and dropped columns again for every row, and a block holds
// several row groups whose edge warps the barriers wait for. Nsight Compute at bf16 8192x2049
// (call 182): rmsnorm_bwd 45.3 us and 23.7 M warp instructions against 29.7 us and 15.6 M at
// 8192x2048, twice the barrier stalls; layernorm_bwd 54.9 against 30.2 us.
// Here a block walks only rows of one phase (PhaseRows): which of a thread's chunks are whole,
// straddle an end or lie outside the row is decided once a block, and the weight is staged once a
// block into shared memory on that phase's chunk grid. The weight-gradient sums, on columns a
// thread owns in every row, live in shared memory too, and go out once a block as its partial
// row (column_sum.cuh adds them in a fixed order: deterministic, no atomics).
// Why so little in registers: a 1024-thread launch bound (64 registers a thread) lets an SM hold
// twice the warps of the 512-thread one, and the time followed the warps an SM holds. Measured
// on the H200 (calls 184-185, reports/h200/bench-bwd-phase-184.txt, bench-bwd-lean-185.txt, bf16,
// cold, two repeats): a 512-bound build with the sums in registers and each row loaded one row
// ahead took rmsnorm_bwd 8192x2049 94.7, 74.7 and 64.7 us at two, three and four blocks an SM,
// 59.7 at five; this build 54.1 (layernorm_bwd 67.9 against 63.1, add_rmsnorm_bwd 93.0 against
// 83.9), and was faster at every shape timed. Its rows are not loaded ahead: a second copy of the
// row spills at 64 registers. PREFETCH instead asks the L2 for the block's next row while it works
// on the current one, holding no register (call 188, reports/h200/bench-prefetch-188.txt, bf16,
// cold: rmsnorm_bwd 8192x3073 74.1 -> 66.1 us, layernorm_bwd 82.8 -> 78.4, add_rmsnorm_bwd 8192x2049
// 84.7 -> 78.8).
#pragma once
#include "backward_common.cuh"
#include "phase_rows.cuh"

namespace ladder {
namespace norm {

// Writes the block's partial row partial[blockIdx.x][0..d) from this thread's column sums. One
// tile covers the row at the block's phase, so every column is some thread's and the whole row is
// written: zeros from a block that walked no rows.
template <typename T, int ITEMS>
__device__ __forceinline__ void write_phase_partial(const PhaseRows<T, ITEMS>& pr, float* partial,
                                                    int d,
                                                    const float (&acc)[ITEMS][Elem<T>::kVec]) {
  float* out = partial + static_cast<long long>(blockIdx.x) * d;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (!(pr.in_row & (1u << i))) continue;
    const int c0 = pr.column(i);
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) {
      const int col = c0 + e;
      if (col >= 0 && col < d) out[col] = acc[i][e];
    }
  }
}

// The weight's slots need ITEMS chunks a thread of dynamic shared memory, after `before` bytes; a
// launch with less traps rather than let the slots run past the block's memory.
template <int ITEMS>
__device__ __forceinline__ void trap_unless_weight_slots(unsigned before) {
  if (dynamic_shared_bytes() < before + ITEMS * blockDim.x * kChunkBytes) __trap();
}

// What a thread loads of one row: x and dy, and for the fused op r and dh (where given).
template <typename T, int ITEMS, bool FUSED>
struct RmsPhaseTile {
  static constexpr int kF = FUSED ? ITEMS : 1;
  uint4 x[ITEMS], dy[ITEMS], r[kF], dh[kF];
};

// The launch bound of the phase kernels: 64 registers a thread.
constexpr int kPhaseBackwardMaxThreads = 1024;

// The weight's slots follow the SUMS weight-gradient sums (SharedColumnSums) in the block's
// dynamic shared memory: their offset in 16-byte slots, where there are sums.
template <typename T, int ITEMS, int SUMS>
__device__ __forceinline__ unsigned weight_slots_offset(bool sums) {
  return sums ? SUMS * ITEMS * (Elem<T>::kVec / 4) * blockDim.x : 0u;
}

// RMSNorm backward over rows of one phase a block. FUSED: s = x + r (add_rmsnorm_bwd, with dh and
// dr optional); otherwise s = x.
template <typename T, int ITEMS, bool FUSED, bool PREFETCH>
__device__ __forceinline__ void rms_bwd_phase(T* dx, T* dr, float* dw_partial, const T* x,
                                              const T* r, const T* w, const T* dy, const T* dh,
                                              int rows, int d, int x_stride, int r_stride,
                                              int dy_stride, int dh_stride, int dx_stride,
                                              int dr_stride, float eps, float w_offset) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  allow_dependent_launch();
  __shared__ ReduceScratch<2> scratch;
  extern __shared__ uint4 weight_slots[];
  // Absent optional tensors stand in as x: they neither veto the 16-byte path nor set the phase.
  auto rows_of = [&]() {
    if constexpr (FUSED) {
      return PhaseRows<T, ITEMS>(
          {x, dy, dx, r, dh != nullptr ? dh : x, dr != nullptr ? dr : dx},
          {x_stride, dy_stride, dx_stride, r_stride, dh != nullptr ? dh_stride : x_stride,
           dr != nullptr ? dr_stride : dx_stride},
          rows, d);
    } else {
      return PhaseRows<T, ITEMS>({x, dy, dx}, {x_stride, dy_stride, dx_stride}, rows, d);
    }
  };
  const PhaseRows<T, ITEMS> pr = rows_of();
  const bool want_dw = dw_partial != nullptr;
  const SharedColumnSums<T, ITEMS, 1> dw_sums;
  if (want_dw) dw_sums.begin();
  uint4* slots = weight_slots + weight_slots_offset<T, ITEMS, 1>(want_dw);
  if (w != nullptr) trap_unless_weight_slots<ITEMS>((slots - weight_slots) * kChunkBytes);
  stage_phase_weight(pr, w, d, slots);
  using Tile = RmsPhaseTile<T, ITEMS, FUSED>;
  // The current row's tiles, where they are used (load_phase_ahead's row < rows test is the
  // loop's own).
  auto load = [&](long long row, Tile& t) {
    load_phase_ahead(pr, x, x_stride, row, rows, d, t.x);
    load_phase_ahead(pr, dy, dy_stride, row, rows, d, t.dy);
    if constexpr (FUSED) {
      load_phase_ahead(pr, r, r_stride, row, rows, d, t.r);
      if (dh != nullptr) load_phase_ahead(pr, dh, dh_stride, row, rows, d, t.dh);
    }
  };
  // s and g = dy * weight of chunk i.
  auto operands = [&](const Tile& t, int i, float (&s)[kVec], float (&dyv)[kVec],
                      float (&g)[kVec]) {
    E::unpack(t.x[i], s);
    if constexpr (FUSED) {
      float rv[kVec];
      E::unpack(t.r[i], rv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) s[e] += rv[e];
    }
    E::unpack(t.dy[i], dyv);
    weighted<T>(w != nullptr, w_offset, w != nullptr ? phase_weight<T, ITEMS>(slots, i) : uint4{},
                dyv, g);
  };
  // PREFETCH: the block's next row is asked of the L2 (prefetch_phase_row) while this one is
  // worked on; no registers held for it.
  auto prefetch = [&](long long at) {
    prefetch_phase_row(pr, x, x_stride, at, rows);
    prefetch_phase_row(pr, dy, dy_stride, at, rows);
    if constexpr (FUSED) {
      prefetch_phase_row(pr, r, r_stride, at, rows);
      if (dh != nullptr) prefetch_phase_row(pr, dh, dh_stride, at, rows);
    }
  };
  int parity = 0;
  Tile cur;
  for (long long row = pr.first; row < rows; row += pr.step) {
    load(row, cur);
    if constexpr (PREFETCH) prefetch(row + pr.step);
    float sums[2] = {0.f, 0.f};  // sum(s^2), sum(g * s)
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      float s[kVec], dyv[kVec], g[kVec];
      operands(cur, i, s, dyv, g);
      // Edge chunks read whole hold other rows' elements: left out of the sums.
      if (!(pr.inside & (1u << i))) drop_outside(pr.column(i), d, s, g);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        sums[0] = fmaf(s[e], s[e], sums[0]);
        sums[1] = fmaf(g[e], s[e], sums[1]);
      }
    }
    row_group_sum<true>(sums, scratch, parity);
    const float inv_rms = rsqrtf(mean_of(sums[0], d) + eps);
    const float coef = inv_rms * inv_rms * inv_rms * mean_of(sums[1], d);
    T* dxr = dx + row * static_cast<long long>(dx_stride);
    T* drr = FUSED && dr != nullptr ? dr + row * static_cast<long long>(dr_stride) : nullptr;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!(pr.in_row & (1u << i))) continue;
      float s[kVec], dyv[kVec], g[kVec], contrib[kVec];
      operands(cur, i, s, dyv, g);
      float dhv[kVec];
      if (FUSED && dh != nullptr) E::unpack(cur.dh[FUSED ? i : 0], dhv);
      // Columns outside the row add to sums no thread writes out (write_phase_partial).
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        contrib[e] = dyv[e] * s[e] * inv_rms;
        g[e] = inv_rms * g[e] - s[e] * coef;  // g becomes the row gradient
        if (FUSED && dh != nullptr) g[e] += dhv[e];
      }
      if (want_dw) dw_sums.add(0, i, contrib);
      const bool inside = (pr.inside & (1u << i)) != 0;
      // The rolled edge store: the unrolled one's registers spill (ptxas).
      store_chunk<T, false, Edge::Rolled, true>(dxr, pr.column(i), d, pr.vec, g, inside);
      if (drr != nullptr)
        store_chunk<T, false, Edge::Rolled, true>(drr, pr.column(i), d, pr.vec, g, inside);
    }
  }
  if (want_dw) {
    float acc[ITEMS][kVec];
    dw_sums.read(0, acc);
    write_phase_partial(pr, dw_partial, d, acc);
  }
}

// LayerNorm backward over rows of one phase a block. SAVED: the forward pass's mean and rstd (one
// reduction a row); otherwise both recomputed from x (two).
template <typename T, int ITEMS, bool SAVED, bool PREFETCH>
__device__ __forceinline__ void layernorm_bwd_phase_rows(T* dx, float* dgamma_partial,
                                                         float* dbeta_partial, const T* x,
                                                         const T* gamma, const T* dy,
                                                         const float* mean, const float* rstd,
                                                         int rows, int d, int x_stride,
                                                         int dy_stride, int dx_stride, float eps) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  allow_dependent_launch();
  __shared__ ReduceScratch<1> scratch_mean;
  constexpr int kSums = SAVED ? 2 : 3;  // sum(g), sum(g * (x - mean)), [sum((x - mean)^2)]
  __shared__ ReduceScratch<kSums> scratch_rest;
  extern __shared__ uint4 weight_slots[];
  const PhaseRows<T, ITEMS> pr({x, dy, dx}, {x_stride, dy_stride, dx_stride}, rows, d);
  const bool want_partials = dgamma_partial != nullptr && dbeta_partial != nullptr;
  const SharedColumnSums<T, ITEMS, 2> sums;  // dgamma's (0) and dbeta's (1)
  if (want_partials) sums.begin();
  uint4* slots = weight_slots + weight_slots_offset<T, ITEMS, 2>(want_partials);
  if (gamma != nullptr) trap_unless_weight_slots<ITEMS>((slots - weight_slots) * kChunkBytes);
  stage_phase_weight(pr, gamma, d, slots);
  // g = dy * gamma (dy without gamma) of chunk i.
  auto grad = [&](int i, const float (&dyv)[kVec], float (&g)[kVec]) {
    if (gamma == nullptr) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) g[e] = dyv[e];
      return;
    }
    float gm[kVec];
    E::unpack(phase_weight<T, ITEMS>(slots, i), gm);
#pragma unroll
    for (int e = 0; e < kVec; ++e) g[e] = dyv[e] * gm[e];
  };
  auto prefetch = [&](long long at) {
    prefetch_phase_row(pr, x, x_stride, at, rows);
    prefetch_phase_row(pr, dy, dy_stride, at, rows);
  };
  int parity_mean = 0, parity_rest = 0;
  for (long long row = pr.first; row < rows; row += pr.step) {
    uint4 xs[ITEMS], dys[ITEMS];
    const unsigned whole = pr.whole(row, rows);
    load_phase_row(pr, x + row * static_cast<long long>(x_stride), whole, d, xs);
    load_phase_row(pr, dy + row * static_cast<long long>(dy_stride), whole, d, dys);
    if constexpr (PREFETCH) prefetch(row + pr.step);
    const float2 stats = SAVED ? make_float2(__ldg(mean + row), __ldg(rstd + row))
                               : make_float2(0.f, 0.f);
    float mu = stats.x;
    if constexpr (!SAVED) {  // the mean: its own reduction first
      float total[1] = {0.f};
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float xv[kVec];
        E::unpack(xs[i], xv);
        if (!(pr.inside & (1u << i))) drop_outside(pr.column(i), d, xv);
#pragma unroll
        for (int e = 0; e < kVec; ++e) total[0] += xv[e];
      }
      row_group_sum<true>(total, scratch_mean, parity_mean);
      mu = mean_of(total[0], d);
    }
    float rest[kSums];
#pragma unroll
    for (int k = 0; k < kSums; ++k) rest[k] = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = pr.column(i);
      float xv[kVec], dyv[kVec], g[kVec];
      E::unpack(xs[i], xv);
      E::unpack(dys[i], dyv);
      grad(i, dyv, g);
      const bool inside = (pr.inside & (1u << i)) != 0;
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        // Columns outside the row hold 0 or another row's values, not the mean: left out.
        const bool in_row = inside || (c0 + e >= 0 && c0 + e < d);
        const float dev = in_row ? xv[e] - mu : 0.f;
        const float ge = in_row ? g[e] : 0.f;
        rest[0] += ge;
        rest[1] = fmaf(ge, dev, rest[1]);
        if constexpr (!SAVED) rest[kSums - 1] = fmaf(dev, dev, rest[kSums - 1]);
      }
    }
    row_group_sum<true>(rest, scratch_rest, parity_rest);
    const float inv_std = SAVED ? stats.y : rsqrtf(mean_of(rest[kSums - 1], d) + eps);
    // dx = rstd * g - (rstd * mean(g) + xhat * rstd * mean(g * xhat)), as layernorm_bwd.cuh.
    const float shift_g = inv_std * mean_of(rest[0], d);
    const float slope_xhat = inv_std * inv_std * mean_of(rest[1], d);
    T* dxr = dx + row * static_cast<long long>(dx_stride);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!(pr.in_row & (1u << i))) continue;
      float xv[kVec], dyv[kVec], g[kVec], xhat[kVec];
      E::unpack(xs[i], xv);
      E::unpack(dys[i], dyv);
      grad(i, dyv, g);
      layernorm_dx(xv, mu, inv_std, slope_xhat, shift_g, g, xhat);  // g becomes dx
      // Columns outside the row add to sums no thread writes out (write_phase_partial).
      if (want_partials) {
        float gamma_add[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) gamma_add[e] = dyv[e] * xhat[e];
        sums.add(0, i, gamma_add);
        sums.add(1, i, dyv);
      }
      // The rolled edge store: the unrolled one's registers spill (ptxas).
      store_chunk<T, false, Edge::Rolled, true>(dxr, pr.column(i), d, pr.vec, g,
                                                (pr.inside & (1u << i)) != 0);
    }
  }
  if (want_partials) {
    float acc[ITEMS][kVec];
    sums.read(0, acc);
    write_phase_partial(pr, dgamma_partial, d, acc);
    sums.read(1, acc);
    write_phase_partial(pr, dbeta_partial, d, acc);
  }
}

}  // namespace norm

// Launch (all three): block (TPR, 1, 1) with TPR * ITEMS * VEC >= d + VEC - 1 (one tile at any
// phase), a grid that is a multiple of VEC (about as many blocks as are resident: each walks many
// rows), and dynamic shared memory of, with weight gradients, SUMS * ITEMS * TPR * VEC * 4 bytes
// for their sums (SUMS: 1 for dw, 2 for dgamma and dbeta), then, with a weight, ITEMS * TPR * 16
// for its slots. A launch with less traps. PREFETCH: the next row asked of the L2 (above), the
// build auto takes. The weight gradients' partials are [gridDim.x, d]
// fp32, added by column_sum<T>. Arguments and aliasing as rmsnorm_bwd, add_rmsnorm_bwd and
// layernorm_bwd (kernels/README.md).
template <typename T, int ITEMS, bool PREFETCH = false>
__global__ void __launch_bounds__(norm::kPhaseBackwardMaxThreads)
    rmsnorm_bwd_phase(T* dx, float* dw_partial, const T* x, const T* w, const T* dy, int rows,
                      int d, int x_stride, int dy_stride, int dx_stride, float eps,
                      float w_offset) {
  norm::rms_bwd_phase<T, ITEMS, false, PREFETCH>(dx, nullptr, dw_partial, x, nullptr, w, dy,
                                                 nullptr, rows, d, x_stride, 0, dy_stride, 0,
                                                 dx_stride, 0, eps, w_offset);
}

template <typename T, int ITEMS, bool PREFETCH = false>
__global__ void __launch_bounds__(norm::kPhaseBackwardMaxThreads)
    add_rmsnorm_bwd_phase(T* dx, T* dr, float* dw_partial, const T* x, const T* r, const T* w,
                          const T* dy, const T* dh, int rows, int d, int x_stride, int r_stride,
                          int dy_stride, int dh_stride, int dx_stride, int dr_stride, float eps,
                          float w_offset) {
  norm::rms_bwd_phase<T, ITEMS, true, PREFETCH>(dx, dr, dw_partial, x, r, w, dy, dh, rows, d,
                                                x_stride, r_stride, dy_stride, dh_stride,
                                                dx_stride, dr_stride, eps, w_offset);
}

// RECOMPUTE as layernorm_bwd: false takes the forward pass's mean and rstd (a launch with either
// null traps), true recomputes them from x.
template <typename T, int ITEMS, bool RECOMPUTE = false, bool PREFETCH = false>
__global__ void __launch_bounds__(norm::kPhaseBackwardMaxThreads)
    layernorm_bwd_phase(T* dx, float* dgamma_partial, float* dbeta_partial, const T* x,
                        const T* gamma, const T* dy, const float* mean, const float* rstd,
                        int rows, int d, int x_stride, int dy_stride, int dx_stride, float eps) {
  if (!RECOMPUTE && (mean == nullptr || rstd == nullptr)) __trap();
  norm::layernorm_bwd_phase_rows<T, ITEMS, !RECOMPUTE, PREFETCH>(
      dx, dgamma_partial, dbeta_partial, x, gamma, dy, mean, rstd, rows, d, x_stride, dy_stride,
      dx_stride, eps);
}

}  // namespace ladder
