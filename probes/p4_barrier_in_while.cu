// Rung p4: barriers inside a loop whose trip count is known only at run time. One block per row
// walks the row in tiles of blockDim.x columns; each tile is staged through shared memory and
// read back mirrored, so every iteration needs its barriers.
//
// y[r, c] = x[r, c] * w[c]. Every thread computes the same loop bound from d and blockDim.x, so
// all threads reach every barrier the same number of times (a barrier under divergent control
// flow would be undefined behaviour).

// The largest block CUDA allows; sizing the tile for it keeps the kernel correct for any block
// the manifest picks.
constexpr int kMaxBlockThreads = 1024;

extern "C" __global__ void p4_barrier_in_while(const float* x, const float* w, float* y, int d) {
  __shared__ float tile[kMaxBlockThreads];
  const long long row_start = static_cast<long long>(blockIdx.x) * d;
  const int tile_width = blockDim.x;
  const int mirrored_slot = tile_width - 1 - threadIdx.x;

  int tile_start = 0;
  while (tile_start < d) {
    const int column = tile_start + threadIdx.x;
    if (column < d) tile[threadIdx.x] = x[row_start + column];
    // Publish this tile before anyone reads a slot it did not write.
    __syncthreads();

    // In a partial last tile the mirrored slot may lie past d; those slots hold nothing useful
    // and must be neither read into y nor stored.
    const int mirrored_column = tile_start + mirrored_slot;
    if (mirrored_column < d) y[row_start + mirrored_column] = tile[mirrored_slot] * w[mirrored_column];
    // The next iteration overwrites the tile; wait until every thread has read this one.
    __syncthreads();
    tile_start += tile_width;
  }
}
