// Wide rows, one a block: fused residual add + RMSNorm forward for 16-bit rows of up to
// THREADS x ITEMS chunks (bf16 and f16 rows of 32768 at 512 x 8), where a block is alone on its
// SM and nothing overlaps its issue time, so every instruction of a row adds to the time.
// The block width is a template parameter, so chunk i of a thread sits a constant
// i * THREADS * 16 bytes past its first one (an immediate offset, no address arithmetic); which
// chunks fall inside the row is fixed per thread before the first row; the sum h = x + r stays
// in fp32 registers between the passes (16-bit x and r packed take as many); and the weight's
// cases (none, plain, Gemma) are separate copies of the last pass, chosen once a row.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "add_rmsnorm.cuh"
#include "norm_common.cuh"
#include "staged_common.cuh"

namespace ladder {
namespace norm {

// The weight's three cases, each a copy of the last pass without per-chunk tests.
enum class RowWeight { None, Plain, Gemma };

template <typename T, RowWeight WEIGHT>
__device__ __forceinline__ void scale_row_chunk(float (&v)[Elem<T>::kVec], float inv_rms,
                                                const uint4& w_raw, float w_offset) {
  if constexpr (WEIGHT == RowWeight::None) {
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e) v[e] *= inv_rms;
  } else {
    float wv[Elem<T>::kVec];
    Elem<T>::unpack(w_raw, wv);
#pragma unroll
    for (int e = 0; e < Elem<T>::kVec; ++e)
      v[e] = v[e] * inv_rms * (WEIGHT == RowWeight::Gemma ? wv[e] + w_offset : wv[e]);
  }
}

// The last pass of a row on the fast path: y = s * inv_rms * weight, chunk i of the thread at
// yp[i * THREADS], its staged weight chunk at wp[i * THREADS].
template <typename T, int ITEMS, int THREADS, RowWeight WEIGHT>
__device__ __forceinline__ void scale_and_store_row(float (&s)[ITEMS][Elem<T>::kVec],
                                                    const bool (&inside)[ITEMS], float inv_rms,
                                                    const uint4* wp, uint4* yp, float w_offset) {
  if constexpr (WEIGHT != RowWeight::None) cp_async_wait<0>();
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (!inside[i]) continue;
    uint4 w_raw = make_uint4(0u, 0u, 0u, 0u);
    if constexpr (WEIGHT != RowWeight::None) w_raw = wp[i * THREADS];
    scale_row_chunk<T, WEIGHT>(s[i], inv_rms, w_raw, w_offset);
    yp[i * THREADS] = Elem<T>::pack(s[i]);
  }
}

}  // namespace norm

// Same arguments, results and aliasing as add_rmsnorm_fwd (add_rmsnorm.cuh).
// Launch: block (THREADS, 1, 1) with THREADS * ITEMS * VEC >= d (else it traps: columns would
// go unwritten); grid: rows (fewer blocks stride over the rest); dynamic shared memory of
// d / VEC * 16 bytes stages the weight. The fast path needs every pointer and stride on
// the 16-byte grid, d a whole number of chunks and the weight staged (or absent); any other
// launch runs element by element: correct, not fast (the planner never asks for it).
// The launch bound caps registers at 128 (512 / THREADS blocks an SM), which holds the fp32 sums.
template <typename T, int ITEMS, bool ROUND_SUM, int THREADS>
__global__ void __launch_bounds__(THREADS, 512 / THREADS)
    add_rmsnorm_fwd_row(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                        int d, int x_stride, int r_stride, int h_stride, int y_stride, float eps,
                        float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  if (blockDim.x != THREADS || blockDim.y != 1 ||
      static_cast<long long>(THREADS) * ITEMS * kVec < d)
    __trap();
  __shared__ norm::ReduceScratch<1> scratch;
  extern __shared__ uint4 weight_memory[];
  const int tx = static_cast<int>(threadIdx.x);
  // Whether this thread's chunk i is inside the row: the same for every row.
  bool inside[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) inside[i] = (i * THREADS + tx) * kVec < d;

  auto on_grid = [](const void* p, int stride) {
    return norm::offset_in_chunk(p) == 0 && stride % kVec == 0;
  };
  const bool staged = w != nullptr && norm::offset_in_chunk(w) == 0 &&
                      norm::dynamic_shared_bytes() >=
                          static_cast<unsigned>(d / kVec) * norm::kChunkBytes;
  const bool fast = d % kVec == 0 && on_grid(x, x_stride) && on_grid(r, r_stride) &&
                    on_grid(h, h_stride) && on_grid(y, y_stride) && (w == nullptr || staged);
  if (fast && w != nullptr) {
    // Each thread copies the weight chunks it reads later, so no barrier is needed.
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (inside[i])
        norm::cp_async16(weight_memory + i * THREADS + tx, w + (i * THREADS + tx) * kVec);
    norm::cp_async_commit();
  }
  const norm::RowWeight weight = w == nullptr    ? norm::RowWeight::None
                                 : w_offset == 0.f ? norm::RowWeight::Plain
                                                   : norm::RowWeight::Gemma;
  int parity = 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    float s[ITEMS][kVec];
    float sum_sq = 0.f;
    if (fast) {
      const uint4* xp = reinterpret_cast<const uint4*>(x + row * x_stride) + tx;
      const uint4* rp = reinterpret_cast<const uint4*>(r + row * r_stride) + tx;
      uint4* hp = reinterpret_cast<uint4*>(h + row * h_stride) + tx;
      uint4 xs[ITEMS], rs[ITEMS];
      // Every load before the first store: h may alias r.
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        xs[i] = inside[i] ? xp[i * THREADS] : make_uint4(0u, 0u, 0u, 0u);
        rs[i] = inside[i] ? rp[i * THREADS] : make_uint4(0u, 0u, 0u, 0u);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        norm::chunk_sum<T, ROUND_SUM>(xs[i], rs[i], s[i]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) sum_sq = fmaf(s[i][e], s[i][e], sum_sq);
        if (inside[i]) hp[i * THREADS] = E::pack(s[i]);
      }
    } else {
      const T* xr = x + row * x_stride;
      const T* rr = r + row * r_stride;
      T* hr = h + row * h_stride;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = (i * THREADS + tx) * kVec;
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const bool in = c0 + e < d;
          s[i][e] = in ? E::to_float(xr[c0 + e]) + E::to_float(rr[c0 + e]) : 0.f;
          if (ROUND_SUM) s[i][e] = E::to_float(E::from_float(s[i][e]));
          sum_sq = fmaf(s[i][e], s[i][e], sum_sq);
        }
      }
      // All of the thread's reads first (h may alias r), then its stores.
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = (i * THREADS + tx) * kVec;
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          if (c0 + e < d) hr[c0 + e] = E::from_float(s[i][e]);
      }
    }
    const float inv_rms = norm::row_inv_rms(sum_sq, scratch, parity, d, eps, rstd, row, true);

    if (fast) {
      uint4* yp = reinterpret_cast<uint4*>(y + row * y_stride) + tx;
      const uint4* wp = weight_memory + tx;
      using norm::RowWeight;
      if (weight == RowWeight::None)
        norm::scale_and_store_row<T, ITEMS, THREADS, RowWeight::None>(s, inside, inv_rms, wp, yp, 0.f);
      else if (weight == RowWeight::Plain)
        norm::scale_and_store_row<T, ITEMS, THREADS, RowWeight::Plain>(s, inside, inv_rms, wp, yp, 0.f);
      else
        norm::scale_and_store_row<T, ITEMS, THREADS, RowWeight::Gemma>(s, inside, inv_rms, wp, yp,
                                                                         w_offset);
    } else {
      T* yr = y + row * y_stride;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int c0 = (i * THREADS + tx) * kVec;
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          if (c0 + e >= d) continue;
          float v = s[i][e] * inv_rms;
          if (w != nullptr) v *= E::to_float(w[c0 + e]) + w_offset;
          yr[c0 + e] = E::from_float(v);
        }
      }
    }
  }
}

}  // namespace ladder
