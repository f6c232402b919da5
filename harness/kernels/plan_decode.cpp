// schedule=decode for rmsnorm and add_rmsnorm: the decode kernels (kernels/decode_norm.cuh), one
// 16-byte chunk a thread and one row a block, for the few rows of token-by-token generation.
#include <algorithm>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

bool read_decode(VariantReader& v, const std::vector<std::string>& schedules,
                 std::size_t elem_size, const Shape& s, bool misaligned, const RowLimits& limits,
                 int forced_items, int rows_per_block, bool other_schedule, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  if (other_schedule) return false;
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  const std::int64_t threads = whole_warp_threads(chunks, 1);
  bool wanted = schedule == "decode";
  // auto: few rows (the register planner's latency regime) on the 16-byte grid that the
  // register kernel would give whole warps at one chunk a thread, exactly the decode block.
  if (schedule == "auto")
    wanted = forced_items == 0 && rows_per_block == 0 && !misaligned &&
             s.rows < 2 * std::int64_t{limits.sm_count} && g.items == 1 && !g.streams &&
             g.rows_per_block == 1 && g.threads_per_row == threads;
  // Rows wider than 1024 chunks take the register kernel, as schedule=staged does where it
  // cannot apply.
  if (!wanted || threads > limits.max_threads_per_row) return false;
  g.items = 1;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(1, s.rows);
  return true;
}

}  // namespace ladder::kernels::detail
