// LayerNorm forward: y = (x - mean) / sqrt(var + eps) * gamma + beta, var the biased variance.
// Geometry and ABI: kernels/README.md. Shared machinery: norm_common.cuh.
//
// Variance: exact two-pass (mean first, then the sum of squared deviations) rather than Welford.
// The row is in registers, so the second pass reads no memory; it costs one more reduction but
// keeps full accuracy when |mean| >> std, where the one-pass E[x^2] - mean^2 cancels.
#pragma once
#include "norm_common.cuh"
#include "row_reads.cuh"

namespace ladder {

// ITEMS: 16-byte chunks per thread per tile (host-chosen from d; see README).
// gamma, beta: nullable (no affine parameters; either may be absent on its own).
// mean, rstd: nullable fp32 per row; rstd = 1 / sqrt(var + eps).
// Aliasing: y may be x (same stride); every element is read before it is written, by one thread.
// MAX_THREADS: the launch bound, as in rmsnorm_fwd (rmsnorm.cuh).
// OFF_GRID: the host passes true when rows may sit off the 16-byte grid (a row stride that is not
// a whole number of chunks, d = 2049). A row's two edge chunks are then read whole
// (norm::load_tile_edges_whole, the other rows' elements left out of the sums) and gamma and beta
// skewed (32-bit words from the two aligned chunks around each chunk, norm::load_chunk_skewed) rather than
// element by element: 7 rows in 8 start off gamma's grid. Correct for any rows; aligned launches
// keep false and the machine code they were measured with.
template <typename T, int ITEMS, int MAX_THREADS = 1024, bool OFF_GRID = false>
__global__ void __launch_bounds__(MAX_THREADS)
    layernorm_fwd(T* y, const T* x, const T* gamma, const T* beta, float* mean, float* rstd,
                  int rows, int d, int x_stride, int y_stride, float eps) {
  using E = norm::Elem<T>;
  constexpr int kVec = E::kVec;
  __shared__ norm::ReduceScratch<1> scratch;
  int parity = 0;
  const norm::RowLoop loop;
  for (long long base = loop.first; base < rows; base += loop.step) {
    const long long row = base + threadIdx.y;
    const bool active = row < rows;
    const T* xr = x + (active ? row : 0) * static_cast<long long>(x_stride);
    T* yr = y + (active ? row : 0) * static_cast<long long>(y_stride);
    const int cols = active ? d : 0;
    const void* ptrs[2] = {xr, yr};
    const norm::RowAccess access = norm::row_access<T>(ptrs, 2);
    const int tiles = norm::tiles_for<T, ITEMS, true>(d, access.phase);
    const norm::InputReads<T, OFF_GRID, norm::Load::Keep> x_reads(row, rows, d);
    const norm::WeightReads<T, OFF_GRID> gamma_reads(gamma, access), beta_reads(beta, access);

    // Packed row (4 registers per chunk); gamma and beta come early where registers allow.
    constexpr bool kEarlyAffine = ITEMS <= 2;
    // The second copy of the last pass (below) where it fits: ITEMS 1-2 already hold gamma and
    // beta, and f32 ITEMS 8 under the 64-register cap spills more with it. Nor in 16-bit
    // OFF_GRID builds: 7 rows in 8 start off gamma's grid, so no thread of theirs takes the copy,
    // and without it the code is 11% shorter and faster (call 90: bf16 16384x2049 0.390 ->
    // 0.398, f16 0.397 -> 0.406); the fp32 build lost without it (4096x5125 0.498 -> 0.486).
    constexpr bool kInsideCopy =
        !kEarlyAffine && (ITEMS <= 4 || MAX_THREADS < 1024) && !(OFF_GRID && sizeof(T) == 2);
    // gamma_reads.vec and beta_reads.vec, computed again here: read from there, ptxas swaps the
    // operands of two predicate ops in the OFF_GRID builds, whose machine code was measured as is.
    const bool gamma_vec = norm::weight_vec_ok(gamma, access);
    const bool beta_vec = norm::weight_vec_ok(beta, access);
    uint4 xs[ITEMS], gs[ITEMS], bs[ITEMS];
    float acc[1] = {0.f};
    for (int t = 0; t < tiles; ++t) {
      x_reads.tile(xr, t, access.vec, access.phase, cols, xs);
      if (kEarlyAffine && tiles == 1) {
        if (gamma != nullptr) gamma_reads.tile(gamma, access, cols, gs);
        if (beta != nullptr) beta_reads.tile(beta, access, cols, bs);
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        float v[kVec];
        E::unpack(xs[i], v);
        x_reads.drop_other_rows(norm::chunk_column<T, ITEMS>(t, i, access.phase), cols, v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[0] += v[e];
      }
    }
    norm::row_group_sum<true>(acc, scratch, parity);
    const float mu = norm::mean_of(acc[0], d);

    acc[0] = 0.f;
    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) x_reads.tile(xr, t, access.vec, access.phase, cols, xs);
      // Columns outside the row hold 0, which is not the mean: edge chunks leave them out
      // explicitly. A thread with no edge chunk skips every column test (one branch a tile).
      // The other threads test each chunk, and only edge chunks each column: in a row much
      // narrower than its tile (d = 2049) a third of the threads own a chunk past the end.
      const bool inside = norm::tile_interior<T, ITEMS>(t, access.vec, access.phase, cols);
      norm::with_inside_copy<true>(inside, [&](bool known_inside) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
          float v[kVec];
          E::unpack(xs[i], v);
          if (known_inside || norm::chunk_inside<T>(c0, cols)) {
#pragma unroll
            for (int e = 0; e < kVec; ++e) acc[0] = fmaf(v[e] - mu, v[e] - mu, acc[0]);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
              const float dev = (c0 + e >= 0 && c0 + e < cols) ? v[e] - mu : 0.f;
              acc[0] = fmaf(dev, dev, acc[0]);
            }
          }
        }
      });
    }
    norm::row_group_sum<true>(acc, scratch, parity);
    const float inv_std = rsqrtf(norm::mean_of(acc[0], d) + eps);
    const norm::Standardize<T> standardize(mu, inv_std);
    if (active && threadIdx.x == 0) {
      if (mean != nullptr) mean[row] = mu;
      if (rstd != nullptr) rstd[row] = inv_std;
    }

    // Threads whose chunks are all inside the row, with gamma and beta on the same 16-byte grid,
    // run a copy of the loop with no per-chunk tests (norm::with_inside_copy), where the multiply
    // by gamma and the add of beta fuse into one fma (behind separate branches they do not). The
    // other copy keeps them apart: fused there, the 16-bit ITEMS 2 builds spill.
    const bool affine_vec = (gamma == nullptr || gamma_vec) && (beta == nullptr || beta_vec);
    for (int t = 0; t < tiles; ++t) {
      if (tiles > 1) x_reads.tile(xr, t, access.vec, access.phase, cols, xs);
      const bool early = kEarlyAffine && tiles == 1;
      const bool inside =
          affine_vec && norm::tile_interior<T, ITEMS>(t, access.vec, access.phase, cols);
      norm::with_inside_copy<kInsideCopy>(inside, [&](bool known_inside) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          const int c0 = norm::chunk_column<T, ITEMS>(t, i, access.phase);
          auto affine_chunk = [&](const T* p, const norm::WeightReads<T, OFF_GRID>& reads,
                                  const uint4& held) -> uint4 {
            return early ? held : reads.chunk(p, c0, cols, known_inside);
          };
          float v[kVec];
          E::unpack(xs[i], v);
          if (known_inside && gamma != nullptr && beta != nullptr) {
            float g[kVec], b[kVec];
            E::unpack(affine_chunk(gamma, gamma_reads, gs[i]), g);
            E::unpack(affine_chunk(beta, beta_reads, bs[i]), b);
#pragma unroll
            for (int e = 0; e < kVec; ++e) v[e] = fmaf(standardize(v[e]), g[e], b[e]);
          } else {
#pragma unroll
            for (int e = 0; e < kVec; ++e) v[e] = standardize(v[e]);
            if (gamma != nullptr) {
              float g[kVec];
              E::unpack(affine_chunk(gamma, gamma_reads, gs[i]), g);
#pragma unroll
              for (int e = 0; e < kVec; ++e) v[e] *= g[e];
            }
            if (beta != nullptr) {
              float b[kVec];
              E::unpack(affine_chunk(beta, beta_reads, bs[i]), b);
#pragma unroll
              for (int e = 0; e < kVec; ++e) v[e] += b[e];
            }
          }
          norm::store_chunk<T, true, norm::edge_for_16bit<T>(norm::Edge::Rolled)>(
              yr, c0, cols, access.vec, v, known_inside);
        }
      });
    }
  }
}

}  // namespace ladder
