// Streaming a row from global memory once per pass, for the kernels that hold at most four
// chunks a thread whatever d is (layernorm_loop.cuh, rmsnorm_loop.cuh, add_rmsnorm_loop.cuh):
// the launch bound and the walk over a thread's chunks, the first reads under the L2 keep policy
// (keep_policy and load16_keep, global_loads.cuh) so that the next pass finds the row's lines.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

// The blocks an SM a 16-bit build's launch bound asks for: resident_threads / THREADS, at least
// one. Each kernel passes the thread slots its registers fit without spills (ptxas sm_90), the
// most that measured fastest on the H200: LayerNorm 1280 (48 registers: five 256-thread rows in
// flight an SM), add_rmsnorm 1024 (64: at 48 its four chunk pairs spill 8-24 bytes), RMSNorm
// 1536 (40-42: three 512-thread rows an SM; at 2048 and 32 registers its f16 builds spill and
// measured slower, call 137). fp32 0, no minimum: its three-pass LayerNorm spills under a cap of
// 64, and with a minimum of 1 ptxas gives it 104 registers.
__host__ __device__ constexpr int loop_min_blocks(int threads, int elem_bytes, int resident_threads) {
  return elem_bytes != 2 ? 0 : resident_threads / threads > 0 ? resident_threads / threads : 1;
}

// A streamed kernel's block: THREADS x 1, as instantiated; any other launch traps (a crash the
// harness reports) rather than leaving columns unwritten.
template <int THREADS>
__device__ __forceinline__ void expect_stream_block() {
  static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024, "THREADS");
  if (blockDim.x != THREADS || blockDim.y != 1) __trap();
}

// A streamed kernel's row sum over its block (THREADS x 1, as expect_stream_block checks): the
// same sum as row_group_sum<true>'s, bit for bit, with the block's shape a constant. Why:
// row_group_sum serves any group width, so each row it tested the width before every butterfly
// step, rebuilt the group's slot address from threadIdx.y, and ran all five steps over the
// warps' partials. Here the first butterfly takes five unconditional steps and the second only
// log2 of the warps: each lane reads slot lane mod kSpan (kSpan, the warps rounded up to a power
// of two, zero past the last warp), so every aligned span of lanes holds the partials and the
// steps below kSpan add the pairs row_group_sum added (its steps at or above kSpan added zeros).
// set: which of the scratch's two sets of slots (0 or 1); consecutive sums of a block must
// alternate, so that no slot is written while a slower warp still reads it. LayerNorm's two sums a
// row take sets 0 and 1 as constants; RMSNorm's one sum a row alternates with the row.
template <int THREADS>
__device__ __forceinline__ float stream_block_sum(float v, ReduceScratch<1>& scratch, int set) {
  constexpr int kWarps = THREADS / 32;
  constexpr int kSpan = kWarps <= 1 ? 1 : kWarps <= 2 ? 2 : kWarps <= 4 ? 4 : kWarps <= 8 ? 8
                        : kWarps <= 16 ? 16 : 32;
  static_assert(THREADS % 32 == 0 && kWarps >= 2 && kWarps <= 32, "a streamed block is 2-32 warps");
  float s[1] = {v};
  warp_sum(s);
  float(*slots)[1] = scratch.partial[set];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (lane == 0) slots[threadIdx.x >> 5][0] = s[0];
  __syncthreads();
  // The lane read again, rather than kept: a register held through the row would push the
  // 40-register bodies (layernorm_loop.cuh) into spills.
  unsigned lane_now;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane_now));
  const int slot = static_cast<int>(lane_now) & (kSpan - 1);
  float total = slot < kWarps ? slots[slot][0] : 0.f;
#pragma unroll
  for (int offset = kSpan / 2; offset > 0; offset >>= 1)
    total += __shfl_xor_sync(kFullMask, total, offset);
  return total;
}

// RMSNorm's 1 / sqrt(mean(x^2) + eps) for a streamed row (inv_rms_of's, stored the same way), as
// rsqrtf of the mean taken by mean_of's product with 1 / d: three instructions a row where the
// IEEE division, square root and reciprocal took about thirty-five, each thread, each row. The
// result differs from inv_rms_of's by an ulp or two of fp32 (LayerNorm's rstd is taken so too).
// The held rows (held_row.cuh) keep inv_rms_of: with this form ptxas spilled their 4- and
// 8-chunk builds (24-72 bytes a thread) at their register bounds.
__device__ __forceinline__ float stream_inv_rms(float row_sum_sq, int d, float eps, float* rstd,
                                                long long row) {
  const float inv_rms = rsqrtf(mean_of(row_sum_sq, d) + eps);
  if (rstd != nullptr && threadIdx.x == 0) rstd[row] = inv_rms;
  return inv_rms;
}

// Calls f(values, unit) for each of thread threadIdx.x's units of `row` (16-byte chunks when
// `fast`, else single elements: then only values[0] is the row's), UNROLL chunks (1-4) in flight
// at a time. LAST: the row's last read (evict-first loads) rather than one whose lines L2 keeps.
template <typename T, int THREADS, bool LAST, int UNROLL = 4, class F>
__device__ __forceinline__ void for_thread_units(const T* row, bool fast, int units,
                                                 unsigned long long keep, F&& f) {
  static_assert(UNROLL >= 1 && UNROLL <= 4, "UNROLL");
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  constexpr int kUnroll = UNROLL;
  const int tx = static_cast<int>(threadIdx.x);
  if (fast) {
    const uint4* p = reinterpret_cast<const uint4*>(row);
    int c = tx;
    for (; c + (kUnroll - 1) * THREADS < units; c += kUnroll * THREADS) {
      uint4 u[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        u[k] = LAST ? __ldcs(p + c + k * THREADS) : load16_keep(p + c + k * THREADS, keep);
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        float v[kVec];
        E::unpack(u[k], v);
        f(v, c + k * THREADS);
      }
    }
    // The last, partial group: its loads guarded and issued together, so that a thread of a
    // narrow row (fewer than UNROLL units) still has all its loads in flight at once. With one
    // chunk at a time the loop above took every unit.
    if constexpr (kUnroll > 1) {
      if (c < units) {
        uint4 u[kUnroll - 1];
#pragma unroll
        for (int k = 0; k < kUnroll - 1; ++k) {
          const int unit = c + k * THREADS;
          u[k] = unit >= units ? make_uint4(0u, 0u, 0u, 0u)
                 : LAST        ? __ldcs(p + unit)
                               : load16_keep(p + unit, keep);
        }
#pragma unroll
        for (int k = 0; k < kUnroll - 1; ++k) {
          if (c + k * THREADS >= units) break;
          float v[kVec];
          E::unpack(u[k], v);
          f(v, c + k * THREADS);
        }
      }
    }
  } else {
    for (int c = tx; c < units; c += THREADS) {
      float v[kVec] = {};
      v[0] = E::to_float(row[c]);
      f(v, c);
    }
  }
}

// The same walk over two rows at once (add_rmsnorm's x and r): f(a_chunk, b_chunk, unit) with
// each unit packed as stored; off the 16-byte path a unit is one element, in the low bits of its
// uint4 (Elem::unpack then gives it as values[0], the rest 0).
template <typename T, int THREADS, bool LAST, class F>
__device__ __forceinline__ void for_thread_unit_pairs(const T* a, const T* b, bool fast, int units,
                                                      unsigned long long keep, F&& f) {
  using E = Elem<T>;
  constexpr int kUnroll = 4;
  const int tx = static_cast<int>(threadIdx.x);
  auto load = [&](const uint4* p) { return LAST ? __ldcs(p) : load16_keep(p, keep); };
  if (fast) {
    const uint4* pa = reinterpret_cast<const uint4*>(a);
    const uint4* pb = reinterpret_cast<const uint4*>(b);
    int c = tx;
    for (; c + (kUnroll - 1) * THREADS < units; c += kUnroll * THREADS) {
      uint4 ua[kUnroll], ub[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        ua[k] = load(pa + c + k * THREADS);
        ub[k] = load(pb + c + k * THREADS);
      }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) f(ua[k], ub[k], c + k * THREADS);
    }
    if (c < units) {  // the last, partial group, its loads issued together
      uint4 ua[kUnroll - 1], ub[kUnroll - 1];
#pragma unroll
      for (int k = 0; k < kUnroll - 1; ++k) {
        const int unit = c + k * THREADS;
        const bool in = unit < units;
        ua[k] = in ? load(pa + unit) : make_uint4(0u, 0u, 0u, 0u);
        ub[k] = in ? load(pb + unit) : make_uint4(0u, 0u, 0u, 0u);
      }
#pragma unroll
      for (int k = 0; k < kUnroll - 1; ++k) {
        if (c + k * THREADS >= units) break;
        f(ua[k], ub[k], c + k * THREADS);
      }
    }
  } else {
    for (int c = tx; c < units; c += THREADS)
      f(make_uint4(E::bits(a[c]), 0u, 0u, 0u), make_uint4(E::bits(b[c]), 0u, 0u, 0u), c);
  }
}

// RMSNorm's output for one unit of a row: y = v * inv_rms * (w + w_offset), or v * inv_rms
// without a weight (w null), stored evict-first on the 16-byte path; off it one element (only
// values[0] is the row's).
template <typename T>
__device__ __forceinline__ void store_rms_unit(T* yr, int c, bool fast, float (&v)[Elem<T>::kVec],
                                               float inv_rms, const T* w, float w_offset) {
  using E = Elem<T>;
  if (fast) {
    if (w != nullptr) {
      float wv[E::kVec];
      E::unpack(__ldg(reinterpret_cast<const uint4*>(w) + c), wv);
      scale_by_weight(v, inv_rms, wv, w_offset);
    } else {
#pragma unroll
      for (int e = 0; e < E::kVec; ++e) v[e] *= inv_rms;
    }
    __stcs(reinterpret_cast<uint4*>(yr) + c, E::pack(v));
  } else {
    float o = v[0] * inv_rms;
    if (w != nullptr) o = v[0] * inv_rms * (E::to_float(w[c]) + w_offset);
    yr[c] = E::from_float(o);
  }
}

// Whether a streamed launch takes the 16-byte path: x and y and their strides on the 16-byte
// grid, d a whole number of chunks, and each weight given (w0, w1: nullable) 16-byte aligned.
template <typename T>
__device__ __forceinline__ bool stream_vec_ok(const T* x, int x_stride, const T* y, int y_stride,
                                              int d, const T* w0, const T* w1) {
  constexpr int kVec = Elem<T>::kVec;
  return d % kVec == 0 && offset_in_chunk(x) == 0 && offset_in_chunk(y) == 0 &&
         x_stride % kVec == 0 && y_stride % kVec == 0 &&
         (w0 == nullptr || offset_in_chunk(w0) == 0) && (w1 == nullptr || offset_in_chunk(w1) == 0);
}

}  // namespace norm

}  // namespace ladder
