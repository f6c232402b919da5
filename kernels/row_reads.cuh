// How the normalization kernels read rows and weights that sit off the 16-byte grid: a row's two
// edge chunks read whole where they stay inside the tensor (EdgeReads, load_tile_edges_whole,
// drop_outside), the input reads a kernel picks by template flag (InputReads), and weights read on
// a shifted chunk grid as 32-bit words (SkewedAccess, load_skewed, WeightReads). The chunk grid,
// the loads and stores on it and the reductions are in norm_common.cuh.
#pragma once

#include "norm_common.cuh"

namespace ladder {
namespace norm {

// A row's two edge chunks off the 16-byte grid (one chunk of the grid each, partly outside the row),
// read in one aligned 16-byte load where those 16 bytes lie in the tensor: the head chunk's
// bytes before the row belong to the row before it (or its padding) when the row is not the
// tensor's first, the tail chunk's after it to the next row when the row is not the last, for
// rows of at least one chunk (row strides are at least d). Gathering them element by element
// instead combines the elements at the load, which makes the lane wait for them there, and its
// block for it at the row's barrier: the row loaded ahead no longer overlaps the row before it.
// The elements outside the row are another row's: the kernel leaves them out (drop_outside).
struct EdgeReads {
  bool head = false;  // the head chunk may be read whole
  bool tail = false;  // the tail chunk may be read whole
};

__device__ __forceinline__ EdgeReads edge_reads(long long row, long long rows, int d, int vec) {
  EdgeReads e;
  e.head = d >= vec && row > 0 && row < rows;
  e.tail = d >= vec && row + 1 < rows;
  return e;
}

// load_tile (ZERO_FIRST) with the edge chunks read whole where `edge` allows (vec: the row is on
// the group's 16-byte chunk grid).
template <typename T, int ITEMS, Load KIND = Load::Plain>
__device__ __forceinline__ void load_tile_edges_whole(const T* row, int tile, bool vec, int phase,
                                                      int d, const EdgeReads& edge,
                                                      uint4 (&raw)[ITEMS]) {
  constexpr int kVec = Elem<T>::kVec;
  if (tile_interior<T, ITEMS>(tile, vec, phase, d)) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      raw[i] = load16<KIND>(
          reinterpret_cast<const uint4*>(row + chunk_column<T, ITEMS>(tile, i, phase)));
    return;
  }
  // One pass: a chunk is gathered only in a tensor's first or last row (or a row shorter than a
  // chunk), where waiting for it costs one row, not every row.
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) raw[i] = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    if (c0 >= d || c0 + kVec <= 0) continue;
    const bool whole = (c0 >= 0 && c0 + kVec <= d) || (c0 < 0 ? edge.head : edge.tail);
    if (vec && whole) {
      raw[i] = load16<KIND>(reinterpret_cast<const uint4*>(row + c0));
    } else {
      raw[i] = gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
    }
  }
}

// Zeroes v (and g) at the columns of the chunk at c0 outside [0, cols): the other rows' elements
// that load_tile_edges_whole read. A branch a chunk, taken by a row's two edge lanes only.
template <int N>
__device__ __forceinline__ void drop_outside(int c0, int cols, float (&v)[N]) {
  if (c0 >= 0 && c0 + N <= cols) return;
#pragma unroll
  for (int e = 0; e < N; ++e) v[e] = c0 + e >= 0 && c0 + e < cols ? v[e] : 0.f;
}

template <int N>
__device__ __forceinline__ void drop_outside(int c0, int cols, float (&v)[N], float (&g)[N]) {
  if (c0 >= 0 && c0 + N <= cols) return;
#pragma unroll
  for (int e = 0; e < N; ++e) {
    const bool in_row = c0 + e >= 0 && c0 + e < cols;
    v[e] = in_row ? v[e] : 0.f;
    g[e] = in_row ? g[e] : 0.f;
  }
}

// How a kernel reads a row's input tiles. EDGES_WHOLE (the forward kernels' OFF_GRID, the
// backward kernels' SHIFTED): load_tile_edges_whole, which reads the row's two edge chunks whole
// where that stays inside the tensor; drop_other_rows then zeroes what they hold of other rows.
// Otherwise load_tile, with ZERO_FIRST for the backward kernels (see load_tile).
template <typename T, bool EDGES_WHOLE, Load KIND = Load::Plain, bool ZERO_FIRST = false>
struct InputReads {
  EdgeReads edge;
  InputReads() = default;
  __device__ __forceinline__ InputReads(long long row, long long rows, int d) {
    if constexpr (EDGES_WHOLE) edge = edge_reads(row, rows, d, Elem<T>::kVec);
  }
  template <int ITEMS>
  __device__ __forceinline__ void tile(const T* row, int t, bool vec, int phase, int cols,
                                       uint4 (&raw)[ITEMS]) const {
    if constexpr (EDGES_WHOLE) {
      load_tile_edges_whole<T, ITEMS, KIND>(row, t, vec, phase, cols, edge, raw);
    } else {
      load_tile<T, ITEMS, KIND, ZERO_FIRST>(row, t, vec, phase, cols, raw);
    }
  }
  // The elements of the chunk at c0 that came from other rows, zeroed (v, and g alongside).
  template <int N>
  __device__ __forceinline__ void drop_other_rows(int c0, int cols, float (&v)[N]) const {
    if constexpr (EDGES_WHOLE) drop_outside(c0, cols, v);
  }
  template <int N>
  __device__ __forceinline__ void drop_other_rows(int c0, int cols, float (&v)[N],
                                                  float (&g)[N]) const {
    if constexpr (EDGES_WHOLE) drop_outside(c0, cols, v, g);
  }
};

// Skewed reads, for a weight read on a shifted chunk grid (the SHIFTED backward kernels): the
// weight then sits `skew` elements past a 16-byte boundary at every chunk, and each chunk is read
// as 32-bit words from within the two aligned 16-byte chunks that hold it (load_skewed). Kept apart from
// load_tile and load_chunk_packed: folded into them, even a skew of a constant 0 changed ptxas's
// register allocation of the aligned kernels, and they measured 3-8% slower on the H200.
struct SkewedAccess {
  bool vec = false;  // the pointer is element-aligned, so 16-byte loads are possible at all
  int skew = 0;
};

// Access to p[c] for the columns c of a chunk grid shifted by `phase` (c = q*VEC - phase).
template <typename T>
__device__ __forceinline__ SkewedAccess skewed_access(const void* p, int phase) {
  SkewedAccess a;
  const unsigned off = offset_in_chunk(p);
  a.vec = (off % sizeof(T)) == 0;
  const int kVec = Elem<T>::kVec;
  a.skew = a.vec ? ((static_cast<int>(off / sizeof(T)) - phase) % kVec + kVec) % kVec : 0;
  return a;
}

// The 16 bytes that start `bytes` (0 < bytes < 16) into lo:hi. `bytes` is the same for every
// chunk of a row, so the selects below do not diverge.
__device__ __forceinline__ uint4 funnel16(const uint4& lo, const uint4& hi, int bytes) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const int q = bytes >> 2;
  const unsigned shift = (bytes & 3) * 8;
  unsigned a[5];
#pragma unroll
  for (int j = 0; j < 5; ++j)
    a[j] = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
  return make_uint4(__funnelshift_r(a[0], a[1], shift), __funnelshift_r(a[1], a[2], shift),
                    __funnelshift_r(a[2], a[3], shift), __funnelshift_r(a[3], a[4], shift));
}

// True when the two aligned chunks around the chunk at c0 (from c0 - skew) lie inside [0, d):
// load_skewed reads only within them, so it never reads past either end of the tensor.
template <typename T>
__device__ __forceinline__ bool skewed_inside(int c0, int skew, int d) {
  return c0 - skew >= 0 && c0 - skew + 2 * Elem<T>::kVec <= d;
}

// The chunk at row + c0, which sits `skew` (1..VEC-1) elements past a 16-byte boundary, read as
// 32-bit words, every one inside the two aligned chunks around it: fp32 and even 16-bit skews are
// word-aligned (four loads, no shift); odd 16-bit skews take five words from one element before
// and a fixed 16-bit byte_perm. That issues fewer instructions than two aligned 16-byte loads and
// a funnel shift, whose choice of words (a runtime skew) compiles to chains of selects (call 93,
// reports/h200/bench-skew-words.txt), rmsnorm bf16 16384x2049 0.594 -> 0.644, 4096x5125 0.544 ->
// 0.605, layernorm bf16 16384x2049 0.40 -> 0.42, rmsnorm_bwd bf16 8192x2049 0.437 -> 0.452; fp32
// within 1% either way.
template <typename T, Load KIND>
__device__ __forceinline__ uint4 load_skewed(const T* row, int c0, int skew) {
  if (sizeof(T) == 4 || (skew & 1) == 0) {
    const unsigned* p = reinterpret_cast<const unsigned*>(row + c0);
    return make_uint4(load4<KIND>(p), load4<KIND>(p + 1), load4<KIND>(p + 2), load4<KIND>(p + 3));
  }
  const unsigned* p = reinterpret_cast<const unsigned*>(row + c0 - 1);
  const unsigned w0 = load4<KIND>(p), w1 = load4<KIND>(p + 1), w2 = load4<KIND>(p + 2),
                 w3 = load4<KIND>(p + 3), w4 = load4<KIND>(p + 4);
  return make_uint4(__byte_perm(w0, w1, 0x5432), __byte_perm(w1, w2, 0x5432),
                    __byte_perm(w2, w3, 0x5432), __byte_perm(w3, w4, 0x5432));
}

// load_chunk_packed for a tensor with access `a`: skewed where a.skew != 0.
template <typename T, Load KIND = Load::Plain>
__device__ __forceinline__ uint4 load_chunk_skewed(const T* row, int c0, int d,
                                                   const SkewedAccess& a) {
  if (a.skew == 0) return load_chunk_packed<T, KIND>(row, c0, d, a.vec);
  if (a.vec && skewed_inside<T>(c0, a.skew, d)) return load_skewed<T, KIND>(row, c0, a.skew);
  return gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
}

// load_tile for a tensor with access `a`: skewed where a.skew != 0 (every load of the tile issued
// before any is used, as in load_tile; chunks whose second aligned half would fall past an end
// of the tensor are gathered).
template <typename T, int ITEMS, Load KIND = Load::Plain>
__device__ __forceinline__ void load_tile_skewed(const T* row, int tile, const SkewedAccess& a,
                                                 int phase, int d, uint4 (&raw)[ITEMS]) {
  if (a.skew == 0) {
    load_tile<T, ITEMS, KIND>(row, tile, a.vec, phase, d, raw);
    return;
  }
  bool full[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    full[i] = a.vec && skewed_inside<T>(c0, a.skew, d);
    if (full[i]) raw[i] = load_skewed<T, KIND>(row, c0, a.skew);
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (full[i]) continue;
    const int c0 = chunk_column<T, ITEMS>(tile, i, phase);
    raw[i] = (c0 >= d || c0 + Elem<T>::kVec <= 0)
                 ? make_uint4(0u, 0u, 0u, 0u)
                 : gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
  }
}

// How a forward register kernel reads a weight (w, gamma, beta) on a row's chunk grid: 16-byte
// loads where the weight sits on that grid (vec: weight_vec_ok), else gathered element by element,
// or with OFF_GRID read skewed (load_skewed: 32-bit words from the two aligned chunks around it).
template <typename T, bool OFF_GRID>
struct WeightReads {
  bool vec;
  SkewedAccess skew;
  __device__ __forceinline__ WeightReads(const void* w, const RowAccess& a) {
    if constexpr (OFF_GRID) skew = skewed_access<T>(w, a.phase);
    vec = weight_vec_ok(w, a);
  }
  // The whole of a one-tile row's weight, every load issued before any is used.
  template <int ITEMS>
  __device__ __forceinline__ void tile(const T* w, const RowAccess& a, int cols,
                                       uint4 (&raw)[ITEMS]) const {
    if constexpr (OFF_GRID) {
      load_tile_skewed<T, ITEMS, Load::ReadOnly>(w, 0, skew, a.phase, cols, raw);
    } else {
      load_tile<T, ITEMS, Load::ReadOnly>(w, 0, vec, a.phase, cols, raw);
    }
  }
  // The chunk at c0 (known_inside: as in store_chunk, which implies vec).
  __device__ __forceinline__ uint4 chunk(const T* w, int c0, int cols, bool known_inside) const {
    if (OFF_GRID && !known_inside) return load_chunk_skewed<T, Load::ReadOnly>(w, c0, cols, skew);
    return load_chunk_packed<T, Load::ReadOnly>(w, c0, cols, vec, known_inside);
  }
};

}  // namespace norm
}  // namespace ladder
