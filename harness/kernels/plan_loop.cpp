// schedule=loop for layernorm (kernels/layernorm_loop.cuh): a block a row that streams the row
// from global memory once per pass, its first reads kept in L2 for the later ones.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

const std::vector<std::string> kLoopThreads{"auto", "128", "256", "512", "1024"};
const std::vector<std::string> kLoopPasses{"auto", "2", "3"};

int loop_auto_threads(std::size_t elem_size, std::int64_t d) {
  // A thread holds four chunks at a time: the narrowest block of at most 1024 threads that
  // takes the row in one round of four chunks a thread, at least 256.
  const std::int64_t chunks = ceil_div(d * static_cast<std::int64_t>(elem_size), kChunkBytes);
  const std::int64_t threads = pow2_at_least(ceil_div(chunks, 4));
  return static_cast<int>(std::clamp<std::int64_t>(threads, 256, 1024));
}

LoopPlan read_loop(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem_size,
                   const Shape& s, bool other_schedule, bool auto_takes,
                   const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const std::string threads_key = v.get("loop_threads", "auto", kLoopThreads);
  const std::string passes_key = v.get("loop_passes", "auto", kLoopPasses);
  const std::string grid_key = v.get("loop_grid", "auto", {"auto", "rows", "resident", "3"});
  for (const auto& [key, value] : {std::pair{"loop_threads", threads_key},
                                   std::pair{"loop_passes", passes_key},
                                   std::pair{"loop_grid", grid_key}})
    if (value != "auto" && (other_schedule || schedule != "loop"))
      fail(op, std::string(key) + "=" + value + " needs schedule=loop");
  LoopPlan plan;
  if (other_schedule || !(schedule == "loop" || (schedule == "auto" && auto_takes))) return plan;
  plan.loop = true;
  plan.threads = threads_key == "auto" ? loop_auto_threads(elem_size, s.d) : std::stoi(threads_key);
  plan.passes = passes_key == "auto" ? 3 : std::stoi(passes_key);
  g.items = 4;
  g.threads_per_row = plan.threads;
  g.rows_per_block = 1;
  g.streams = true;
  const std::int64_t rows = std::max<std::int64_t>(1, s.rows);
  if (grid_key == "3")
    g.blocks = std::min<std::int64_t>(rows, 3);
  else if (grid_key == "resident")
    g.blocks = std::min<std::int64_t>(rows, device.sm_count * std::max(1, 2048 / plan.threads));
  else
    g.blocks = rows;
  return plan;
}

}  // namespace ladder::kernels::detail
