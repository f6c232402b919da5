// Rows of one phase a block (schedule=phase): the forward kernels for rows off the 16-byte grid
// (16-bit d = 2049, odd row strides), one tile a row held in registers.
//
// Why: a row of 2049 bf16 elements starts at a different offset within 16 bytes (its phase)
// than the row before it. The register kernels (OFF_GRID) therefore work out, for every row,
// which chunks are whole and which straddle an end, and read the weight skewed (five 32-bit
// loads and four byte permutes a chunk); at one row a block they also set up every block again.
// Nsight Compute at bf16 16384x2049 (call 168): 35.6 M warp instructions against 18.4 M for
// rows of 2048, issue 79% busy, 0.64 of the copy ceiling against 0.83.
// Rows whose strides differ by a whole number of chunks share a phase: with stride s (elements)
// the phase repeats every P = VEC / gcd(s mod VEC, VEC) rows. Here block b walks only rows
// r = b mod P (mod P), so every row it takes has the same phase: the weight is read once a
// block onto that phase's chunk grid (into shared memory, each thread its own slots), and which
// of a thread's chunks are whole, straddle an end or lie outside the row is decided once.
// A row's edge chunks are read whole where that stays inside the tensor (norm::edge_reads), the
// other rows' elements left out. Pointers or strides that do not keep one phase for every
// tensor take the element-wise path (correct for any rows, not fast).
#pragma once
#include "add_rmsnorm.cuh"
#include "norm_common.cuh"
#include "row_reads.cuh"
#include "row_moments.cuh"

namespace ladder {
namespace norm {

// The rows a block walks, and the chunk layout they share.
template <typename T, int ITEMS>
struct PhaseRows {
  static constexpr int kVec = Elem<T>::kVec;
  long long first = 0, step = 1;
  int phase = 0;
  bool vec = false;            // every tensor's rows share the phase: 16-byte accesses
  unsigned in_row = 0;         // bit i: chunk i holds columns of the row
  unsigned inside = 0;         // bit i: chunk i lies wholly inside the row (and vec)
  unsigned head = 0, tail = 0; // bit i: chunk i straddles the row's start / end (and vec)

  // The block's rows and layout for K tensors (`bases`, with their row `strides`; the first
  // sets the phase period P): the rows with index blockIdx.x mod P (mod P), on the chunk grid of
  // the first of them. The grid must be a multiple of VEC (of every possible P), and one tile
  // must cover the row at any phase; a launch that breaks either traps rather than leave rows
  // or columns unwritten.
  template <int K>
  __device__ __forceinline__ PhaseRows(const T* const (&bases)[K], const int (&strides)[K],
                                       int rows, int d) {
    if (gridDim.x % kVec != 0 || blockDim.y != 1) __trap();
    const int s = strides[0] % kVec;
    int period = 1;
    while ((period * s) % kVec != 0) ++period;
    first = blockIdx.x % period;
    step = period;
    const long long classes = gridDim.x / period;
    first += static_cast<long long>(blockIdx.x / period) * period;
    step *= classes;
    trap_unless_one_tile<T, ITEMS>(d, kVec - 1);
    const long long at = first < rows ? first : 0;
    const void* ptrs[K];
    for (int k = 0; k < K; ++k) ptrs[k] = bases[k] + at * strides[k];
    layout(ptrs, strides, K, d);
  }

  // Sets the layout from the block's first row's pointers (`ptrs`, count of them) and the
  // tensors' strides (every stride must keep the phases equal from row to row).
  __device__ __forceinline__ void layout(const void* const* ptrs, const int* strides, int count,
                                         int d) {
    const RowAccess a = row_access<T>(ptrs, count);
    bool same = a.vec;
    for (int k = 1; k < count; ++k) same = same && (strides[k] - strides[0]) % kVec == 0;
    vec = same;
    phase = same ? a.phase : 0;
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = column(i);
      if (c0 < d && c0 + kVec > 0) in_row |= 1u << i;
      if (vec && c0 >= 0 && c0 + kVec <= d) inside |= 1u << i;
      if (vec && d >= kVec && c0 < 0 && c0 + kVec > 0) head |= 1u << i;
      if (vec && d >= kVec && c0 < d && c0 + kVec > d) tail |= 1u << i;
    }
  }

  __device__ __forceinline__ int column(int item) const {
    return (item * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x)) * kVec - phase;
  }

  // The chunks of `row` read with one 16-byte load: the inside ones, and its edge chunks where
  // the 16 bytes stay inside the tensor (rows of at least one chunk: norm::edge_reads).
  __device__ __forceinline__ unsigned whole(long long row, long long rows) const {
    return inside | (row > 0 ? head : 0u) | (row + 1 < rows ? tail : 0u);
  }
};

// Chunk i of a row: one 16-byte load where `whole` has it, gathered where it only overlaps the
// row, zero outside.
template <typename T, int ITEMS>
__device__ __forceinline__ void load_phase_row(const PhaseRows<T, ITEMS>& pr, const T* row,
                                               unsigned whole, int d, uint4 (&raw)[ITEMS]) {
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (whole & (1u << i)) raw[i] = *reinterpret_cast<const uint4*>(row + pr.column(i));
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (whole & (1u << i)) continue;
    raw[i] = (pr.in_row & (1u << i)) ? gather_chunk<T, false>(row, pr.column(i), d)
                                     : make_uint4(0u, 0u, 0u, 0u);
  }
}

// The weight's chunks on the block's chunk grid, into this thread's slots of `slots` (zero
// outside the row): read once a block, skewed where the weight sits off that grid.
template <typename T, int ITEMS>
__device__ __forceinline__ void stage_phase_weight(const PhaseRows<T, ITEMS>& pr, const T* w,
                                                   int d, uint4* slots) {
  if (w == nullptr) return;
  const SkewedAccess a = skewed_access<T>(w, pr.phase);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = pr.column(i);
    slots[i * blockDim.x + threadIdx.x] =
        (pr.in_row & (1u << i)) ? load_chunk_skewed<T, Load::ReadOnly>(w, c0, d, a)
                                : make_uint4(0u, 0u, 0u, 0u);
  }
}

template <typename T, int ITEMS>
__device__ __forceinline__ uint4 phase_weight(const uint4* slots, int item) {
  return slots[item * blockDim.x + threadIdx.x];
}

// Row `row` of a tensor (base, stride) into `raw`, issued a row ahead of its use: the block's next
// row is in flight while the current one is reduced, normalized and stored, so a block keeps two
// rows' loads outstanding instead of one. Past the last row: zeros, no loads. Rows a block walks
// are at least VEC rows apart, so a row loaded ahead never shares a chunk with the row being
// stored (in place, y may be x).
template <typename T, int ITEMS>
__device__ __forceinline__ void load_phase_ahead(const PhaseRows<T, ITEMS>& pr, const T* base,
                                                 int stride, long long row, long long rows,
                                                 int d, uint4 (&raw)[ITEMS]) {
  if (row < rows) {
    load_phase_row(pr, base + row * static_cast<long long>(stride), pr.whole(row, rows), d, raw);
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) raw[i] = make_uint4(0u, 0u, 0u, 0u);
  }
}

// Asks the L2 for the chunks of `row` (a tensor base, stride) that load_phase_row reads with one
// 16-byte load, without waiting for them or holding a register: a block keeps a later row's
// bytes on their way while it works on the current one. Past the last row, or on the
// element-wise path (no whole chunks): nothing. Only whole chunks, so every address is one a
// 16-byte load of the row may read.
template <typename T, int ITEMS>
__device__ __forceinline__ void prefetch_phase_row(const PhaseRows<T, ITEMS>& pr, const T* base,
                                                   int stride, long long row, long long rows) {
  if (row >= rows) return;
  const T* p = base + row * static_cast<long long>(stride);
  const unsigned whole = pr.whole(row, rows);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if (whole & (1u << i)) asm volatile("prefetch.L2 [%0];" ::"l"(p + pr.column(i)));
}

template <int ITEMS>
__device__ __forceinline__ void take_ahead(const uint4 (&next)[ITEMS], uint4 (&cur)[ITEMS]) {
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) cur[i] = next[i];
}

}  // namespace norm

// RMSNorm forward, rows of one phase a block: arguments, results and aliasing as rmsnorm_fwd.
// Launch: block (TPR, 1, 1) with TPR * ITEMS * VEC >= d + VEC - 1 (one tile at any phase), a
// grid that is a multiple of VEC (8 in 16-bit, 4 in fp32; about as many blocks as are resident:
// each walks many rows), and ITEMS * TPR * 16 bytes of dynamic shared memory (the weight).
// PREFETCH (all three): the row after the one loaded is also asked of the L2
// (prefetch_phase_row); faster for fp32 LayerNorm, slower in 16 bits (call 188,
// reports/h200/bench-prefetch-188.txt).
template <typename T, int ITEMS, bool PREFETCH = false>
__global__ void __launch_bounds__(1024)
    rmsnorm_fwd_phase(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                      int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_slots[];
  const norm::PhaseRows<T, ITEMS> pr({x, y}, {x_stride, y_stride}, rows, d);
  norm::stage_phase_weight(pr, w, d, weight_slots);
  int parity = 0;
  uint4 xs[ITEMS];
  // PREFETCH: the row after the one loaded ahead is asked of the L2 (prefetch_phase_row).
  auto prefetch = [&](long long at) { norm::prefetch_phase_row(pr, x, x_stride, at, rows); };
  norm::load_phase_ahead(pr, x, x_stride, pr.first, rows, d, xs);
  for (long long row = pr.first; row < rows; row += pr.step) {
    T* yr = y + row * static_cast<long long>(y_stride);
    uint4 xn[ITEMS];
    norm::load_phase_ahead(pr, x, x_stride, row + pr.step, rows, d, xn);
    if constexpr (PREFETCH) prefetch(row + 2 * pr.step);
    float sum[1] = {0.f};
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      float v[kVec];
      E::unpack(xs[i], v);
      if (!(pr.inside & (1u << i))) norm::drop_outside(pr.column(i), d, v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum[0] = fmaf(v[e], v[e], sum[0]);
    }
    const float inv_rms = norm::row_inv_rms(sum[0], scratch, parity, d, eps, rstd, row, true);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!(pr.in_row & (1u << i))) continue;
      float v[kVec];
      E::unpack(xs[i], v);
      norm::scale_by_rms<T>(v, inv_rms, w != nullptr,
                            w != nullptr ? norm::phase_weight<T, ITEMS>(weight_slots, i) : uint4{},
                            w_offset);
      norm::store_chunk<T, false, norm::edge_for_16bit<T>(norm::Edge::Rolled), true>(
          yr, pr.column(i), d, pr.vec, v, (pr.inside & (1u << i)) != 0);
    }
    norm::take_ahead(xn, xs);
  }
}

// add_rmsnorm forward, rows of one phase a block: arguments, results and aliasing as
// add_rmsnorm_fwd (h may be r, y may be x). Launch as rmsnorm_fwd_phase.
template <typename T, int ITEMS, bool ROUND_SUM, bool PREFETCH = false>
__global__ void __launch_bounds__(1024)
    add_rmsnorm_fwd_phase(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                          int d, int x_stride, int r_stride, int h_stride, int y_stride,
                          float eps, float w_offset) {
  constexpr int kVec = norm::Elem<T>::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_slots[];
  const norm::PhaseRows<T, ITEMS> pr({x, r, h, y}, {x_stride, r_stride, h_stride, y_stride}, rows,
                                      d);
  norm::stage_phase_weight(pr, w, d, weight_slots);
  // Rows loaded one ahead (norm::load_phase_ahead) at up to two chunks a thread. At three, the
  // two tensors' rows ahead spill at the 64-register bound, and the loads ahead measured slower
  // (call 183, bf16 8192x8193: 170.6 -> 196.8 us), where two chunks gained (call 182, bf16
  // 16384x2049: 88.1 -> 82.0).
  constexpr bool kAhead = ITEMS <= 2;
  int parity = 0;
  uint4 xs[ITEMS], rs[ITEMS];
  auto prefetch = [&](long long at) {
    norm::prefetch_phase_row(pr, x, x_stride, at, rows);
    norm::prefetch_phase_row(pr, r, r_stride, at, rows);
  };
  // The row each step loads: the next one with the loads ahead, else the current one.
  const long long lead = kAhead ? pr.step : 0;
  if constexpr (kAhead) {
    norm::load_phase_ahead(pr, x, x_stride, pr.first, rows, d, xs);
    norm::load_phase_ahead(pr, r, r_stride, pr.first, rows, d, rs);
  }
  for (long long row = pr.first; row < rows; row += pr.step) {
    T* hr = h + row * h_stride;
    T* yr = y + row * y_stride;
    uint4 xn[ITEMS], rn[ITEMS];
    if constexpr (kAhead) {
      norm::load_phase_ahead(pr, x, x_stride, row + pr.step, rows, d, xn);
      norm::load_phase_ahead(pr, r, r_stride, row + pr.step, rows, d, rn);
    } else {
      const unsigned whole = pr.whole(row, rows);
      norm::load_phase_row(pr, x + row * x_stride, whole, d, xs);
      norm::load_phase_row(pr, r + row * r_stride, whole, d, rs);
    }
    if constexpr (PREFETCH) prefetch(row + lead + pr.step);
    float sum[1] = {0.f};
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      float sv[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
      if (!(pr.inside & (1u << i))) norm::drop_outside(pr.column(i), d, sv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum[0] = fmaf(sv[e], sv[e], sum[0]);
      // h goes out now, after every load of the row (h may alias r), overlapping the reduction.
      if (pr.in_row & (1u << i))
        norm::store_chunk<T, false, norm::edge_for_16bit<T>(norm::Edge::Rolled), true>(
            hr, pr.column(i), d, pr.vec, sv, (pr.inside & (1u << i)) != 0);
    }
    const float inv_rms = norm::row_inv_rms(sum[0], scratch, parity, d, eps, rstd, row, true);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!(pr.in_row & (1u << i))) continue;
      float sv[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], sv);
      norm::scale_by_rms<T>(sv, inv_rms, w != nullptr,
                            w != nullptr ? norm::phase_weight<T, ITEMS>(weight_slots, i) : uint4{},
                            w_offset);
      norm::store_chunk<T, false, norm::edge_for_16bit<T>(norm::Edge::Rolled), true>(
          yr, pr.column(i), d, pr.vec, sv, (pr.inside & (1u << i)) != 0);
    }
    if constexpr (kAhead) {
      norm::take_ahead(xn, xs);
      norm::take_ahead(rn, rs);
    }
  }
}

// LayerNorm forward, rows of one phase a block: arguments, results and aliasing as layernorm_fwd
// (two-pass variance from the row in registers, each warp's joined once: row_moments.cuh).
// Launch as rmsnorm_fwd_phase, with
// ITEMS * TPR * 16 bytes of dynamic shared memory for each of gamma and beta given (gamma's
// slots first).
template <typename T, int ITEMS, bool PREFETCH = false>
__global__ void __launch_bounds__(1024)
    layernorm_fwd_phase(T* y, const T* x, const T* gamma, const T* beta, float* mean,
                        float* rstd, int rows, int d, int x_stride, int y_stride, float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<4> scratch;
  extern __shared__ uint4 weight_slots[];
  const norm::PhaseRows<T, ITEMS> pr({x, y}, {x_stride, y_stride}, rows, d);
  // The columns of the row this thread's chunks hold, the same in every row of the block.
  int lane_columns = 0;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = pr.column(i);
    lane_columns += max(0, min(c0 + kVec, d) - max(c0, 0));
  }
  const norm::WarpShare share(static_cast<float>(lane_columns), scratch);
  // gamma's slots first, then beta's (beta alone takes the first).
  uint4* gamma_slots = weight_slots;
  uint4* beta_slots = weight_slots + (gamma != nullptr ? ITEMS * blockDim.x : 0);
  norm::stage_phase_weight(pr, gamma, d, gamma_slots);
  norm::stage_phase_weight(pr, beta, d, beta_slots);
  // Rows loaded one ahead (norm::load_phase_ahead), except 16-bit rows of two chunks a thread:
  // there the loads ahead measured slower (call 182, bf16 16384x1025: 44.2 -> 45.3 us), where
  // fp32 and three chunks a thread gained (fp32 16384x2049 123.5 -> 109.3, bf16 16384x3073
  // 88.3 -> 84.1).
  constexpr bool kAhead = sizeof(T) == 4 || ITEMS >= 3;
  int parity = 0;
  uint4 xs[ITEMS];
  auto prefetch = [&](long long at) { norm::prefetch_phase_row(pr, x, x_stride, at, rows); };
  const long long lead = kAhead ? pr.step : 0;  // the row each step loads, from the current
  if constexpr (kAhead) norm::load_phase_ahead(pr, x, x_stride, pr.first, rows, d, xs);
  for (long long row = pr.first; row < rows; row += pr.step) {
    T* yr = y + row * static_cast<long long>(y_stride);
    uint4 xn[ITEMS];
    if constexpr (kAhead) {
      norm::load_phase_ahead(pr, x, x_stride, row + pr.step, rows, d, xn);
    } else {
      norm::load_phase_row(pr, x + row * static_cast<long long>(x_stride), pr.whole(row, rows), d,
                           xs);
    }
    if constexpr (PREFETCH) prefetch(row + lead + pr.step);
    // 16-bit rows are unpacked once, in the first pass, and kept as floats for the other two:
    // unpacked in each pass they measured slower (call 234, reports/h200/bench-ln-phase-234.txt:
    // bf16 16384x2049 54.2 -> 51.2 us, 4096x5125 38.0 -> 35.2; f16 1-3% faster). fp32's unpack is
    // a copy, and keeping the row twice measured 0.4-1% slower there.
    constexpr bool kUnpackOnce = sizeof(T) == 2;
    float kept[kUnpackOnce ? ITEMS : 1][kVec];
    // Chunk i's floats: in 16 bits the kept row itself, else a fresh array to unpack into. A
    // macro, not a lambda: so written, every 16-bit build's machine code is that of the kernel
    // call 234 measured and verified, and every fp32 build's that of the kernel before it (sm_90
    // .text sections compared).
#define LADDER_PHASE_VALUES(i, fresh) (*(kUnpackOnce ? &kept[kUnpackOnce ? (i) : 0] : &(fresh)))
    float acc[1] = {0.f};
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      float fresh[kVec];
      float(&v)[kVec] = LADDER_PHASE_VALUES(i, fresh);
      E::unpack(xs[i], v);
      if (!(pr.inside & (1u << i))) norm::drop_outside(pr.column(i), d, v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[0] += v[e];
    }
    // The deviations below are from the warp's own mean (row_moments.cuh).
    const float mw = norm::warp_mean(share, acc[0], scratch, parity);
    acc[0] = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int c0 = pr.column(i);
      float fresh[kVec];
      float(&v)[kVec] = LADDER_PHASE_VALUES(i, fresh);
      if constexpr (!kUnpackOnce) E::unpack(xs[i], v);
      if (pr.inside & (1u << i)) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] = fmaf(v[e] - mw, v[e] - mw, acc[0]);
      } else {
        // Columns outside the row hold 0 or another row's values, not the mean: left out.
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float dev = (c0 + e >= 0 && c0 + e < d) ? v[e] - mw : 0.f;
          acc[0] = fmaf(dev, dev, acc[0]);
        }
      }
    }
    const norm::RowMoments m = norm::join_warp_moments(mw, acc[0], scratch, parity, d);
    const float mu = m.mean;
    const float inv_std = rsqrtf(norm::mean_of(m.m2, d) + eps);
    const norm::Standardize<T> standardize(mu, inv_std);
    if (threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (!(pr.in_row & (1u << i))) continue;
      float fresh[kVec];
      float(&v)[kVec] = LADDER_PHASE_VALUES(i, fresh);
      if constexpr (!kUnpackOnce) E::unpack(xs[i], v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) v[e] = standardize(v[e]);
      if (gamma != nullptr) {
        float g[kVec];
        E::unpack(norm::phase_weight<T, ITEMS>(gamma_slots, i), g);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] *= g[e];
      }
      if (beta != nullptr) {
        float b[kVec];
        E::unpack(norm::phase_weight<T, ITEMS>(beta_slots, i), b);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[e] += b[e];
      }
      norm::store_chunk<T, true, norm::edge_for_16bit<T>(norm::Edge::Rolled)>(
          yr, pr.column(i), d, pr.vec, v, (pr.inside & (1u << i)) != 0);
    }
    if constexpr (kAhead) norm::take_ahead(xn, xs);
  }
#undef LADDER_PHASE_VALUES
}

}  // namespace ladder
