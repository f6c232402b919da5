// schedule=phase of the forward ops (kernels/phase_rows.cuh): rows off the 16-byte grid, each
// block walking only rows of one phase, one tile a row in registers, the weights read once a
// block into shared memory.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

PhasePlan read_phase(VariantReader& v, const std::string& op,
                     const std::vector<std::string>& schedules, std::size_t elem_size,
                     const Shape& s, int forced_items, int weights, bool other_schedule,
                     const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  // A small fixed grid, for tests: eight blocks (one a phase of 16-bit rows) each walk many rows.
  const std::string grid = v.get("phase_grid", "auto", {"auto", "8"});
  if (grid != "auto" && schedule != "phase") fail(op, "phase_grid=" + grid + " needs schedule=phase");
  PhasePlan plan;
  if (other_schedule || schedule != "phase") return plan;
  // One tile covers the row at any phase; rows wider than a tile of 1024 threads at the allowed
  // ITEMS take the register kernel, as schedule=staged does where it cannot apply.
  const std::int64_t chunks = row_chunks(elem_size, s.d, true);
  const int items = forced_items != 0 ? forced_items : g.streams ? 0 : g.items;
  if (items == 0) return plan;
  const std::int64_t threads = whole_warp_threads(chunks, items);
  if (threads > 1024) return plan;
  // The weights' slots must fit a block's shared memory (the device's opt-in maximum less the
  // kernel's static shared memory): LayerNorm fp32 rows of 32765 at ITEMS 8 need 256 KiB.
  const std::int64_t bytes = std::int64_t{std::max(weights, 1)} * items * threads * kChunkBytes;
  if (bytes > device.shared_per_block_optin - kStaticSharedReserve) return plan;
  const int vec = kChunkBytes / static_cast<int>(elem_size);
  plan.phase = true;
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  g.items = items;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  // About as many blocks as are resident (each walks rows blockIdx.x + k * gridDim.x within its
  // phase), counted at the launch bound's 64 registers; a multiple of VEC, so every phase has
  // as many blocks; no more than the rows need.
  const std::int64_t resident =
      resident_blocks_per_sm(device, threads, plan.shared_bytes, 64) * device.sm_count;
  const std::int64_t needed = (s.rows + vec - 1) / vec * vec;
  const std::int64_t blocks = grid == "8" ? 8 : std::min(std::max<std::int64_t>(vec, resident / vec * vec), needed);
  g.blocks = std::max<std::int64_t>(vec, blocks);
  return plan;
}

}  // namespace ladder::kernels::detail
