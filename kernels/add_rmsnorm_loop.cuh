// Fused residual add + RMSNorm forward that streams its rows instead of holding them: a block of
// THREADS threads a row, reading x and r twice (the sum of squares of x + r, then h and y), the
// first reads under an L2 policy that keeps their lines so that the second hit L2 rather than
// DRAM. h is written in the second pass, after the last read of r, so h may alias r. A thread
// holds four chunk pairs at a time, whatever d, so many rows are in flight an SM.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh, stream_row.cuh,
// add_rmsnorm.cuh (the sum's two conventions).
#pragma once
#include "add_rmsnorm.cuh"
#include "norm_common.cuh"
#include "stream_row.cuh"

namespace ladder {

// THREADS: the block (one row at a time, a multiple of 32 from 64 to 1024). The grid is any
// number of blocks; block b takes rows b, b + gridDim.x, ...
// Arguments, results and aliasing as add_rmsnorm_fwd (add_rmsnorm.cuh): ROUND_SUM picks the
// convention, w nullable, w_offset 0 or 1 (Gemma), rstd nullable; h may be r and y may be x
// (each with the same stride): a thread reads each of its chunks of x and r for the last time
// before it writes that chunk of h and y.
// Rows on the 16-byte grid with d a multiple of the chunk (and w on the grid) take 16-byte
// accesses; any other call runs element by element, with the same results.
template <typename T, int THREADS, bool ROUND_SUM>
__global__ void __launch_bounds__(THREADS, norm::loop_min_blocks(THREADS, sizeof(T), 1024))
    add_rmsnorm_fwd_loop(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                         int d, int x_stride, int r_stride, int h_stride, int y_stride, float eps,
                         float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  norm::expect_stream_block<THREADS>();
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const bool fast = norm::stream_vec_ok(x, x_stride, y, y_stride, d, w, static_cast<const T*>(nullptr)) &&
                    norm::stream_vec_ok(r, r_stride, h, h_stride, d, static_cast<const T*>(nullptr),
                                        static_cast<const T*>(nullptr));
  const int units = fast ? d / kVec : d;  // 16-byte chunks, or single elements
  const unsigned long long keep = norm::keep_policy();

  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * static_cast<long long>(x_stride);
    const T* rr = r + row * static_cast<long long>(r_stride);
    T* hr = h + row * static_cast<long long>(h_stride);
    T* yr = y + row * static_cast<long long>(y_stride);
    float sum_sq[1] = {0.f};
    norm::for_thread_unit_pairs<T, THREADS, false>(xr, rr, fast, units, keep,
                                                   [&](const uint4& xs, const uint4& rs, int) {
      float s[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs, rs, s);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum_sq[0] = fmaf(s[e], s[e], sum_sq[0]);
    });
    sum_sq[0] = norm::stream_block_sum<THREADS>(sum_sq[0], scratch, parity);
    parity ^= 1;
    const float inv_rms = norm::stream_inv_rms(sum_sq[0], d, eps, rstd, row);
    norm::for_thread_unit_pairs<T, THREADS, true>(xr, rr, fast, units, keep,
                                                  [&](const uint4& xs, const uint4& rs, int c) {
      float s[kVec];
      norm::chunk_sum<T, ROUND_SUM>(xs, rs, s);
      if (fast)
        __stcs(reinterpret_cast<uint4*>(hr) + c, E::pack(s));
      else
        hr[c] = E::from_float(s[0]);
      norm::store_rms_unit(yr, c, fast, s, inv_rms, w, w_offset);
    });
  }
}

}  // namespace ladder
