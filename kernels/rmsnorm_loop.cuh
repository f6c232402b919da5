// RMSNorm forward that streams its row instead of holding it: a block of THREADS threads a row,
// reading the row twice (the sum of squares, then the output), the first read under an L2 policy
// that keeps the row's lines so that the second hits L2 rather than DRAM. A thread holds four
// chunks at a time, whatever d, so many rows are in flight an SM.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh, stream_row.cuh.
#pragma once
#include "norm_common.cuh"
#include "held_row.cuh"
#include "stream_row.cuh"

namespace ladder {

// THREADS: the block (one row at a time, a multiple of 32 from 64 to 1024). The grid is any
// number of blocks; block b takes rows b, b + gridDim.x, ...
// HOLD: 0 streams every row; 1-8 holds the row in registers (held_row.cuh) wherever it is at
// most HOLD chunks a thread on the 16-byte path, and streams it otherwise.
// Arguments, results and aliasing as rmsnorm_fwd (rmsnorm.cuh): w nullable, w_offset 0 (plain)
// or 1 (Gemma), rstd nullable; y may be x (same stride): a thread reads each of its chunks for
// the last time before it writes that chunk.
// Rows on the 16-byte grid with d a multiple of the chunk (and w on the grid) take 16-byte
// accesses; any other call runs element by element, with the same results.
template <typename T, int THREADS, int HOLD = 0>
__global__ void __launch_bounds__(THREADS, norm::loop_min_blocks(THREADS, sizeof(T), norm::held_resident(HOLD, 1536)))
    rmsnorm_fwd_loop(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                     int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  norm::expect_stream_block<THREADS>();
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const bool fast = norm::stream_vec_ok(x, x_stride, y, y_stride, d, w, static_cast<const T*>(nullptr));
  if constexpr (HOLD > 0) {
    if (norm::row_fits_held<HOLD, THREADS>(fast, d / kVec)) {
      norm::rmsnorm_held_rows<T, THREADS, HOLD>(y, x, w, rstd, rows, d, x_stride, y_stride, eps, w_offset,
                                                scratch);
      return;
    }
  }
  const int units = fast ? d / kVec : d;  // 16-byte chunks, or single elements
  const unsigned long long keep = norm::keep_policy();

  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * static_cast<long long>(x_stride);
    T* yr = y + row * static_cast<long long>(y_stride);
    float sum_sq[1] = {0.f};
    norm::for_thread_units<T, THREADS, false>(xr, fast, units, keep, [&](const float(&v)[kVec], int) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum_sq[0] = fmaf(v[e], v[e], sum_sq[0]);
    });
    sum_sq[0] = norm::stream_block_sum<THREADS>(sum_sq[0], scratch, parity);
    parity ^= 1;
    const float inv_rms = norm::stream_inv_rms(sum_sq[0], d, eps, rstd, row);
    norm::for_thread_units<T, THREADS, true>(xr, fast, units, keep, [&](float(&v)[kVec], int c) {
      norm::store_rms_unit(yr, c, fast, v, inv_rms, w, w_offset);
    });
  }
}

}  // namespace ladder
