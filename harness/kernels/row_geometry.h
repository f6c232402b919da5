// Launch geometry for the row kernels in kernels/: how many threads share a row, how many 16-byte
// chunks each thread keeps in registers (the ITEMS template parameter), rows per block and grid.
// The same rules are written out in kernels/README.md for callers outside the harness.
#pragma once
#include <cstdint>
#include <vector>

#include "harness/kernels/device_limits.h"

namespace ladder::kernels {

// The kernels' vector access (uint4) and warp width, in every planner's arithmetic.
inline constexpr int kChunkBytes = 16;
inline constexpr int kWarp = 32;

struct RowLimits {
  int max_values_per_thread = 32;  // fp32 registers a thread may spend on row values per tile
  // Fewer values per thread that compile without spills, for 16-bit and for fp32 elements
  // (fp32 needs more address registers per value); larger ITEMS are used only when the row
  // would otherwise not fit one tile (a small spill beats reading the row twice).
  int spill_free_values_16bit = 32;
  int spill_free_values_fp32 = 32;
  // Past the spill-free values, a row that does not fit one tile either takes a larger ITEMS
  // (a small spill) or streams (is read twice). Kernels with several inputs spill too much.
  bool stream_rather_than_spill = false;
  // Rows wider than this many threads take a larger allowed ITEMS when one brings them under it:
  // a 1024-thread block at 64 registers a thread is alone on its SM, with nothing to overlap
  // its reduction (measured: rmsnorm f32 4096x16384, 0.82 of the copy ceiling at 1024 x 4,
  // 0.89 at 512 x 8). 0: no preference.
  int preferred_threads_per_row = 0;
  int max_threads_per_row = 1024;  // the kernels' __launch_bounds__
  int latency_threads_per_row = 512;  // cap when few rows make latency, not bandwidth, the goal
  int target_block_threads = 256;  // block size when several rows share a block
  // 16-bit rows of exactly one warp on the 16-byte grid: this block size instead (0:
  // target_block_threads). A block retires when its slowest row does, so fewer rows a block
  // keep more of the SM busy.
  int one_warp_block_threads_16bit = 0;
  // The device's SMs: decide "few rows" here and size the backward planner's resident grid.
  // Planners set it from the DeviceLimits they plan for (with_device in plan_builder.h).
  int sm_count = DeviceLimits::h200().sm_count;
};

struct RowGeometry {
  int items = 1;              // ITEMS: chunks per thread per tile
  int threads_per_row = 32;   // blockDim.x
  int rows_per_block = 1;     // blockDim.y
  std::int64_t blocks = 1;    // gridDim.x, at least 1 (a zero-row launch returns at once)
  bool streams = false;       // true: the row does not fit one tile and is read twice
  int vec = 4;                // elements per 16-byte chunk
};

// Integer steps every planner uses: ceil(a / b) for a >= 0, b > 0, and the smallest power of two
// >= v (1 for v <= 1).
std::int64_t ceil_div(std::int64_t a, std::int64_t b);
// The smallest of `allowed` (ascending) that is at least `need`, else the largest.
int smallest_allowed_at_least(const std::vector<int>& allowed, std::int64_t need);
int pow2_at_least(std::int64_t v);
// Threads, in whole warps, that cover `chunks` 16-byte chunks at `items` chunks a thread.
std::int64_t whole_warp_threads(std::int64_t chunks, int items);

// The ITEMS values a kernel is instantiated with for an element size; the CI compile check
// builds each of them.
std::vector<int> allowed_items(std::size_t elem_size, const RowLimits& limits = {});

// 16-byte chunks a row of d elements needs; rows_may_be_misaligned adds one spare chunk's worth
// of elements for a row that starts mid-chunk.
std::int64_t row_chunks(std::size_t elem_size, std::int64_t d, bool rows_may_be_misaligned);

// Picks the geometry for `rows` rows of `d` elements of `elem_size` bytes.
// rows_may_be_misaligned: some row stride is not a whole number of chunks, so a row can start
// mid-chunk and needs one spare chunk of capacity to stay in registers.
// forced_items > 0 pins ITEMS (tests and tuning); it must be one of allowed_items().
RowGeometry choose_row_geometry(std::size_t elem_size, std::int64_t rows, std::int64_t d,
                                bool rows_may_be_misaligned, const RowLimits& limits = {},
                                int forced_items = 0);

}  // namespace ladder::kernels
