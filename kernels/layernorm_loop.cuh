// LayerNorm forward that streams its row instead of holding it: a block of THREADS threads a
// row, reading the row from global memory once per pass, its first reads with an L2 policy that
// keeps the row's lines (createpolicy evict_last) so that the later reads hit L2 rather than
// DRAM. A thread holds at most four chunks at a time, whatever d, so many rows are in flight an SM.
// PASSES 3: the exact two-pass statistics (the sum, then the squared deviations from the mean),
// then the output. PASSES 2: each thread's sums shifted by its own first value K, joined over the
// block by the parallel-variance identity (two block sums, as PASSES 3 has), then the output.
// Shifting by a value of the thread's own data bounds the cancellation of
// sum((x-K)^2) - (sum(x-K))^2 / n: the shift point's own deviation is part of the thread's
// variance, so the relative error stays within about n ulps for the thread's n values.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh, stream_row.cuh.
#pragma once
#include "norm_common.cuh"
#include "held_row.cuh"
#include "stream_row.cuh"

namespace ladder {
namespace norm {

// The launches one body of the row loop serves. Any: every launch, the 16-byte path taken or not
// at run time (fp32 builds). 16-bit builds give each kind of launch a body of its own, so that a
// launch's registers are its own kind's: Elements (off the 16-byte path), Vec (16-byte, gamma and
// beta each tested) and VecAffine (16-byte with both). The 16-byte bodies then fit 40 registers
// (three 512-thread rows an SM) where one body for all needed 48-64; VecAffine without spills,
// Vec reloading 1/d and a loop counter from L1 once a row (8 bytes; f16 16) since call 258.
enum class LoopLaunch { Any, Elements, Vec, VecAffine };

// Thread slots an SM the 16-bit launch bound asks for (loop_min_blocks), and the chunks a thread
// has in flight in the output pass: 16-bit builds one (beside its gamma and beta chunks), fp32
// four. Measured on the H200 (call 149, reports/h200/bench-loop-occupancy.txt, cold, bf16):
// 4096x16384 (512 threads, three passes) 73.1-73.2 us against 82.0-82.1 at 1280 slots and four
// chunks, 8192x8192 70.3-71.0 against 73.3-73.4, 16384x4096 70.0-70.4 against 71.0-71.4.
constexpr int kLayernormLoopResident16 = 1536;
constexpr int kLayernormLoopOutputUnroll16 = 1, kLayernormLoopOutputUnroll32 = 4;

template <typename T, int THREADS, int PASSES, LoopLaunch KIND>
__device__ __forceinline__ void layernorm_loop_rows(T* y, const T* x, const T* gamma, const T* beta,
                                                    float* mean, float* rstd, int rows, int d,
                                                    int x_stride, int y_stride, float eps,
                                                    bool vec_path, ReduceScratch<1>& scratch) {
  using E = Elem<T>;
  constexpr int kVec = E::kVec;
  constexpr int kOut = sizeof(T) == 2 ? kLayernormLoopOutputUnroll16 : kLayernormLoopOutputUnroll32;
  const bool fast = KIND == LoopLaunch::Any ? vec_path : KIND != LoopLaunch::Elements;
  // Whether the 16-byte output reads and applies a weight: known for VecAffine, else tested.
  auto has = [](const T* weight) { return KIND == LoopLaunch::VecAffine || weight != nullptr; };
  const int tx = static_cast<int>(threadIdx.x);
  // Units a thread walks: 16-byte chunks on the fast path, single elements otherwise.
  const int units = fast ? d / kVec : d;
  const int per_unit = fast ? kVec : 1;
  const float my_count =
      tx < units ? static_cast<float>(((units - 1 - tx) / THREADS + 1) * per_unit) : 0.f;
  const float my_inv_count = my_count > 0.f ? 1.f / my_count : 0.f;
  const unsigned long long keep = keep_policy();
  // The row's two block sums (sets 0 and 1 of the scratch). 16-bit builds take stream_block_sum;
  // fp32 builds keep row_group_sum, with which ptxas gives their bodies 40 registers (three
  // 512-thread rows an SM) where stream_block_sum's took 48-62 (two rows), measured 1.5% slower
  // on an H100 at 4096x16384 (call 257, reports/h100/bench-stream-257.txt).
  auto block_sum = [&](float v, int set) {
    if constexpr (sizeof(T) == 2) {
      return stream_block_sum<THREADS>(v, scratch, set);
    } else {
      float sum[1] = {v};
      row_group_sum<true, THREADS>(sum, scratch, set);
      return sum[0];
    }
  };

  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * static_cast<long long>(x_stride);
    T* yr = y + row * static_cast<long long>(y_stride);
    float mu, var;
    if constexpr (PASSES == 3) {
      float acc[1] = {0.f};
      for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] += v[e];
      });
      acc[0] = block_sum(acc[0], 0);
      mu = mean_of(acc[0], d);
      acc[0] = 0.f;
      for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float dev = (fast || e == 0) ? v[e] - mu : 0.f;
          acc[0] = fmaf(dev, dev, acc[0]);
        }
      });
      acc[0] = block_sum(acc[0], 1);
      var = mean_of(acc[0], d);
    } else {
      // The shift: this thread's first value (its first unit's first element).
      const float shift = tx < units ? E::to_float(xr[tx * per_unit]) : 0.f;
      float s = 0.f, q = 0.f;
      for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
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
      acc[0] = block_sum(acc[0], 0);
      mu = mean_of(acc[0], d);
      const float dev_mean = shift + s * my_inv_count - mu;
      acc[0] = my_count > 0.f ? fmaxf(q - s * s * my_inv_count, 0.f) + my_count * dev_mean * dev_mean
                              : 0.f;
      acc[0] = block_sum(acc[0], 1);
      var = mean_of(acc[0], d);
    }
    const float inv_std = rsqrtf(var + eps);
    const norm::Standardize<T> standardize(mu, inv_std);
    if (tx == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }
    for_thread_units<T, THREADS, true, kOut>(xr, fast, units, keep, [&](float(&v)[kVec], int c) {
      if (fast) {
        float g[kVec], b[kVec];
        if (has(gamma)) E::unpack(__ldg(reinterpret_cast<const uint4*>(gamma) + c), g);
        if (has(beta)) E::unpack(__ldg(reinterpret_cast<const uint4*>(beta) + c), b);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          float o = standardize(v[e]);
          if (has(gamma)) o *= g[e];
          if (has(beta)) o += b[e];
          v[e] = o;
        }
        __stcs(reinterpret_cast<uint4*>(yr) + c, E::pack(v));
      } else {
        float o = standardize(v[0]);
        if (gamma != nullptr) o *= E::to_float(gamma[c]);
        if (beta != nullptr) o += E::to_float(beta[c]);
        yr[c] = E::from_float(o);
      }
    });
  }
}

}  // namespace norm

// THREADS: the block (one row at a time, 64-1024, a multiple of 32). PASSES: 2 or 3 (above).
// HOLD: 0 streams every row; 1-8 holds the row in registers (held_row.cuh, PASSES 3's exact
// statistics over the held chunks) wherever it is at most HOLD chunks a thread on the 16-byte
// path, and streams it otherwise.
// The grid is any number of blocks; block b takes rows b, b + gridDim.x, ...
// gamma, beta: nullable. mean, rstd: nullable fp32 per row. Aliasing: y may be x (same stride):
// a thread reads each of its chunks for the last time before it writes that chunk.
// Rows on the 16-byte grid with d a multiple of the chunk (and gamma and beta on the grid) take
// 16-byte accesses; any other call runs element by element, with the same statistics.
template <typename T, int THREADS, int PASSES, int HOLD = 0>
__global__ void __launch_bounds__(THREADS, norm::loop_min_blocks(THREADS, sizeof(T),
                                                                 norm::held_resident(HOLD, norm::kLayernormLoopResident16)))
    layernorm_fwd_loop(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                       int rows, int d, int x_stride, int y_stride, float eps) {
  static_assert(PASSES == 2 || PASSES == 3, "PASSES is 2 or 3");
  using norm::LoopLaunch;
  norm::expect_stream_block<THREADS>();
  __shared__ norm::ReduceScratch<1> scratch;
  const bool fast = norm::stream_vec_ok(x, x_stride, y, y_stride, d, gamma, beta);
  if constexpr (HOLD > 0) {
    static_assert(PASSES == 3, "held rows take the exact statistics: PASSES 3");
    if (norm::row_fits_held<HOLD, THREADS>(fast, d / norm::Elem<T>::kVec)) {
      if (gamma != nullptr && beta != nullptr)
        norm::layernorm_held_rows<T, THREADS, HOLD, true>(y, x, gamma, beta, mean, rstd, rows, d, x_stride,
                                                          y_stride, eps, scratch);
      else
        norm::layernorm_held_rows<T, THREADS, HOLD, false>(y, x, gamma, beta, mean, rstd, rows, d, x_stride,
                                                           y_stride, eps, scratch);
      return;
    }
  }
  if constexpr (sizeof(T) == 2) {
    if (fast && gamma != nullptr && beta != nullptr)
      norm::layernorm_loop_rows<T, THREADS, PASSES, LoopLaunch::VecAffine>(
          y, x, gamma, beta, mean, rstd, rows, d, x_stride, y_stride, eps, true, scratch);
    else if (fast)
      norm::layernorm_loop_rows<T, THREADS, PASSES, LoopLaunch::Vec>(
          y, x, gamma, beta, mean, rstd, rows, d, x_stride, y_stride, eps, true, scratch);
    else
      norm::layernorm_loop_rows<T, THREADS, PASSES, LoopLaunch::Elements>(
          y, x, gamma, beta, mean, rstd, rows, d, x_stride, y_stride, eps, false, scratch);
  } else {
    norm::layernorm_loop_rows<T, THREADS, PASSES, LoopLaunch::Any>(y, x, gamma, beta, mean, rstd,
                                                                    rows, d, x_stride, y_stride, eps,
                                                                    fast, scratch);
  }
}

}  // namespace ladder
