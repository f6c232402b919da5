// LayerNorm forward that streams its row instead of holding it: a block of THREADS threads a
// row, reading the row from global memory once per pass, its first reads with an L2 policy that
// keeps the row's lines (createpolicy evict_last) so that the later reads hit L2 rather than
// DRAM. A thread holds four chunks at a time, whatever d, so many rows are in flight an SM.
// PASSES 3: the exact two-pass statistics (the sum, then the squared deviations from the mean),
// then the output. PASSES 2: each thread's sums shifted by its own first value K, joined over the
// block by the parallel-variance identity (two block sums, as PASSES 3 has), then the output.
// Shifting by a value of the thread's own data bounds the cancellation of
// sum((x-K)^2) - (sum(x-K))^2 / n: the shift point's own deviation is part of the thread's
// variance, so the relative error stays within about n ulps for the thread's n values.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

// An L2 policy for loads whose lines should outlive other traffic (sm_80 and later).
__device__ __forceinline__ unsigned long long l2_keep_policy() {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// A 16-byte load under that policy. volatile: never merged with the next pass's load.
__device__ __forceinline__ uint4 load16_keep(const uint4* p, unsigned long long policy) {
  uint4 v;
  asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

// The blocks an SM the launch bound asks for: for 16-bit rows 1280 threads' worth (five
// 256-thread rows in flight an SM at 48 registers a thread, no spills: ptxas sm_90), at least one;
// fp32 0, no minimum: its three-pass build spills under a cap of 64, and with a minimum of 1
// ptxas gives it 104 registers.
__host__ __device__ constexpr int loop_min_blocks(int threads, int elem_bytes) {
  return elem_bytes != 2 ? 0 : 1280 / threads > 0 ? 1280 / threads : 1;
}

// Calls f(values, unit) for each of thread threadIdx.x's units of `row` (16-byte chunks when
// `fast`, else single elements: then only values[0] is the row's), four chunks in flight at a
// time. LAST: the row's last read (evict-first loads) rather than one whose lines L2 keeps.
template <typename T, int THREADS, bool LAST, class F>
__device__ __forceinline__ void for_thread_units(const T* row, bool fast, int units,
                                                 unsigned long long keep, F&& f) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  constexpr int kUnroll = 4;
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
    // narrow row (fewer than four units) still has all its loads in flight at once.
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
  } else {
    for (int c = tx; c < units; c += THREADS) {
      float v[kVec] = {};
      v[0] = E::to_float(row[c]);
      f(v, c);
    }
  }
}

}  // namespace norm

// THREADS: the block (one row at a time, 128-1024, a multiple of 32). PASSES: 2 or 3 (above).
// The grid is any number of blocks; block b takes rows b, b + gridDim.x, ...
// gamma, beta: nullable. mean, rstd: nullable fp32 per row. Aliasing: y may be x (same stride):
// a thread reads each of its chunks for the last time before it writes that chunk.
// Rows on the 16-byte grid with d a multiple of the chunk (and gamma and beta on the grid) take
// 16-byte accesses; any other call runs element by element, with the same statistics.
template <typename T, int THREADS, int PASSES>
__global__ void __launch_bounds__(THREADS, norm::loop_min_blocks(THREADS, sizeof(T)))
    layernorm_fwd_loop(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                       int rows, int d, int x_stride, int y_stride, float eps) {
  static_assert(PASSES == 2 || PASSES == 3, "PASSES is 2 or 3");
  static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024, "THREADS");
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  if (blockDim.x != THREADS || blockDim.y != 1) __trap();
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const int tx = static_cast<int>(threadIdx.x);
  const bool fast = d % kVec == 0 && norm::offset_in_chunk(x) == 0 &&
                    norm::offset_in_chunk(y) == 0 && x_stride % kVec == 0 &&
                    y_stride % kVec == 0 && (gamma == nullptr || norm::offset_in_chunk(gamma) == 0) &&
                    (beta == nullptr || norm::offset_in_chunk(beta) == 0);
  // Units a thread walks: 16-byte chunks on the fast path, single elements otherwise.
  const int units = fast ? d / kVec : d;
  const int per_unit = fast ? kVec : 1;
  const float my_count =
      tx < units ? static_cast<float>(((units - 1 - tx) / THREADS + 1) * per_unit) : 0.f;
  const float my_inv_count = my_count > 0.f ? 1.f / my_count : 0.f;
  const unsigned long long keep = norm::l2_keep_policy();

  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * static_cast<long long>(x_stride);
    T* yr = y + row * static_cast<long long>(y_stride);
    float mu, var;
    if constexpr (PASSES == 3) {
      float acc[1] = {0.f};
      norm::for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] += v[e];
      });
      norm::row_group_sum<true>(acc, scratch, parity);
      mu = norm::mean_of(acc[0], d);
      acc[0] = 0.f;
      norm::for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float dev = (fast || e == 0) ? v[e] - mu : 0.f;
          acc[0] = fmaf(dev, dev, acc[0]);
        }
      });
      norm::row_group_sum<true>(acc, scratch, parity);
      var = norm::mean_of(acc[0], d);
    } else {
      // The shift: this thread's first value (its first unit's first element).
      const float shift = tx < units ? E::to_float(xr[tx * per_unit]) : 0.f;
      float s = 0.f, q = 0.f;
      norm::for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float dev = (fast || e == 0) ? v[e] - shift : 0.f;
          s += dev;
          q = fmaf(dev, dev, q);
        }
      });
      // The row's sum, then its squared deviations as the parallel-variance identity has them:
      // the threads' own (q - s^2 / n) plus n (mean_t - mean)^2 each.
      float acc[1] = {fmaf(my_count, shift, s)};
      norm::row_group_sum<true>(acc, scratch, parity);
      mu = norm::mean_of(acc[0], d);
      const float dev_mean = shift + s * my_inv_count - mu;
      acc[0] = my_count > 0.f ? fmaxf(q - s * s * my_inv_count, 0.f) + my_count * dev_mean * dev_mean
                              : 0.f;
      norm::row_group_sum<true>(acc, scratch, parity);
      var = norm::mean_of(acc[0], d);
    }
    const float inv_std = rsqrtf(var + eps);
    if (tx == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }
    norm::for_thread_units<T, THREADS, true>(xr, fast, units, keep, [&](float(&v)[kVec], int c) {
      if (fast) {
        float g[kVec], b[kVec];
        if (gamma != nullptr) E::unpack(__ldg(reinterpret_cast<const uint4*>(gamma) + c), g);
        if (beta != nullptr) E::unpack(__ldg(reinterpret_cast<const uint4*>(beta) + c), b);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          float o = (v[e] - mu) * inv_std;
          if (gamma != nullptr) o *= g[e];
          if (beta != nullptr) o += b[e];
          v[e] = o;
        }
        __stcs(reinterpret_cast<uint4*>(yr) + c, E::pack(v));
      } else {
        float o = (v[0] - mu) * inv_std;
        if (gamma != nullptr) o *= E::to_float(gamma[c]);
        if (beta != nullptr) o += E::to_float(beta[c]);
        yr[c] = E::from_float(o);
      }
    });
  }
}

}  // namespace ladder
