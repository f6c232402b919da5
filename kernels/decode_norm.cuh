// Decode rows: RMSNorm and fused add + RMSNorm forward for a few rows (token-by-token generation),
// where the time of one launch is latency, not bandwidth. One 16-byte chunk a thread, one row a
// block: the loads, one reduction and the stores, with none of the register kernels' tile loop,
// phase grid or inside copy (sm_90, bf16: 624 instructions against rmsnorm_fwd's 880 at ITEMS 1).
// Measured on the H200 at 1 x 4096, caches flushed: 2.9-3.5 us of kernel time against 3.4-3.9
// for rmsnorm, 3.1-3.7 against 3.9-4.1 for add_rmsnorm (call 104, reports/h200/ncu-decode-ab.txt).
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
#pragma once
#include "add_rmsnorm.cuh"
#include "norm_common.cuh"
#include "stream_row.cuh"

namespace ladder {
namespace norm {

// A decode launch gives each row one block of whole warps with a chunk a thread: a narrower
// block would leave columns unwritten, and several row groups a block are not supported, so
// either traps (a crash the harness reports) rather than returning a partial row.
template <typename T>
__device__ __forceinline__ void trap_unless_one_chunk_a_thread(int d) {
  if (blockDim.y != 1 || (blockDim.x & 31) != 0 ||
      static_cast<long long>(blockDim.x) * Elem<T>::kVec < d)
    __trap();
}

// One chunk of a decode row. `whole` (uniform over the row): every pointer on the 16-byte grid
// and d a whole number of chunks, so each lane's chunk is one 16-byte access or, past the row's
// end, none; the branch keeps that path straight-line. Otherwise element by element.
template <typename T, Load KIND = Load::Plain>
__device__ __forceinline__ uint4 decode_load(const T* row, int c0, int d, bool whole) {
  if (whole) {
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (c0 < d) v = load16<KIND>(reinterpret_cast<const uint4*>(row + c0));
    return v;
  }
  return gather_chunk<T, KIND == Load::ReadOnly>(row, c0, d);
}

template <typename T>
__device__ __forceinline__ void decode_store(T* row, int c0, int d, bool whole,
                                             const float (&v)[Elem<T>::kVec]) {
  if (whole) {
    if (c0 < d) *reinterpret_cast<uint4*>(row + c0) = Elem<T>::pack(v);
    return;
  }
  store_chunk(row, c0, d, false, v);
}

// A decode row's 1 / sqrt(mean(x^2) + eps): the block's sum (row_group_sum's unrolled butterfly),
// then stream_inv_rms's rsqrtf, whose three instructions replace the IEEE division, square root
// and reciprocal on the path every launch waits on (call 261, reports/h100/bench-261.txt).
__device__ __forceinline__ float decode_inv_rms(float sum_sq, ReduceScratch<1>& scratch,
                                                int& parity, int d, float eps, float* rstd,
                                                long long row) {
  float sum[1] = {sum_sq};
  row_group_sum<true>(sum, scratch, parity);
  return stream_inv_rms(sum[0], d, eps, rstd, row);
}

}  // namespace norm

// Same arguments, results and aliasing as rmsnorm_fwd (rmsnorm.cuh).
// Launch: block (TPR, 1, 1), TPR a multiple of 32 with TPR * VEC >= d; grid: rows (fewer blocks
// stride over the rest). Rows whose pointers sit off the 16-byte grid, or with d not a whole
// number of chunks, are read and written element by element: correct, not fast (the planner
// takes this kernel only for rows on the grid).
template <typename T>
__global__ void __launch_bounds__(1024)
    rmsnorm_fwd_decode(T* y, const T* x, const T* w, float* rstd, int rows, int d, int x_stride,
                       int y_stride, float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  norm::trap_unless_one_chunk_a_thread<T>(d);
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const int c0 = static_cast<int>(threadIdx.x) * kVec;
  // d is a whole number of chunks and the weight, if any, starts one; each row then adds its own
  // pointers to decide `whole` (decode_load).
  const bool chunks_whole = (w == nullptr || norm::offset_in_chunk(w) == 0) && d % kVec == 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * x_stride;
    T* yr = y + row * y_stride;
    const bool whole =
        chunks_whole && norm::offset_in_chunk(xr) == 0 && norm::offset_in_chunk(yr) == 0;
    const uint4 xs = norm::decode_load<T>(xr, c0, d, whole);
    uint4 ws = make_uint4(0u, 0u, 0u, 0u);
    if (w != nullptr) ws = norm::decode_load<T, norm::Load::ReadOnly>(w, c0, d, whole);
    float v[kVec];
    E::unpack(xs, v);  // columns past d were loaded as 0: they add nothing
    float sum_sq = 0.f;
#pragma unroll
    for (int e = 0; e < kVec; ++e) sum_sq = fmaf(v[e], v[e], sum_sq);
    const float inv_rms = norm::decode_inv_rms(sum_sq, scratch, parity, d, eps, rstd, row);
    norm::scale_by_rms<T>(v, inv_rms, w != nullptr, ws, w_offset);
    norm::decode_store(yr, c0, d, whole, v);
  }
}

// Same arguments, results and aliasing as add_rmsnorm_fwd (add_rmsnorm.cuh); launch as
// rmsnorm_fwd_decode. h goes out before the reduction, so its stores overlap it; each thread
// has read its chunk of r (which h may alias) by then.
template <typename T, bool ROUND_SUM>
__global__ void __launch_bounds__(1024)
    add_rmsnorm_fwd_decode(T* y, T* h, const T* x, const T* r, const T* w, float* rstd, int rows,
                           int d, int x_stride, int r_stride, int h_stride, int y_stride,
                           float eps, float w_offset) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  norm::trap_unless_one_chunk_a_thread<T>(d);
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const int c0 = static_cast<int>(threadIdx.x) * kVec;
  const bool chunks_whole = (w == nullptr || norm::offset_in_chunk(w) == 0) && d % kVec == 0;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * x_stride;
    const T* rr = r + row * r_stride;
    T* hr = h + row * h_stride;
    T* yr = y + row * y_stride;
    const bool whole = chunks_whole && norm::offset_in_chunk(xr) == 0 &&
                       norm::offset_in_chunk(rr) == 0 && norm::offset_in_chunk(hr) == 0 &&
                       norm::offset_in_chunk(yr) == 0;
    const uint4 xs = norm::decode_load<T>(xr, c0, d, whole);
    const uint4 rs = norm::decode_load<T>(rr, c0, d, whole);
    uint4 ws = make_uint4(0u, 0u, 0u, 0u);
    if (w != nullptr) ws = norm::decode_load<T, norm::Load::ReadOnly>(w, c0, d, whole);
    float s[kVec];
    norm::chunk_sum<T, ROUND_SUM>(xs, rs, s);
    float sum_sq = 0.f;
#pragma unroll
    for (int e = 0; e < kVec; ++e) sum_sq = fmaf(s[e], s[e], sum_sq);
    norm::decode_store(hr, c0, d, whole, s);
    const float inv_rms = norm::decode_inv_rms(sum_sq, scratch, parity, d, eps, rstd, row);
    norm::scale_by_rms<T>(s, inv_rms, w != nullptr, ws, w_offset);
    norm::decode_store(yr, c0, d, whole, s);
  }
}

}  // namespace ladder
