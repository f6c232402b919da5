// schedule=loop for layernorm, rmsnorm and add_rmsnorm (kernels/layernorm_loop.cuh,
// rmsnorm_loop.cuh, add_rmsnorm_loop.cuh): a block a row that streams the row from global memory
// once per pass, its first reads kept in L2 for the later ones.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/core/dtype.h"
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

const std::vector<std::string> kLoopThreads{"auto", "128", "256", "512", "1024"};
const std::vector<std::string> kLoopPasses{"auto", "2", "3"};

// Where auto takes the streamed LayerNorm, by dtype and chunks a row: THREADS = chunks / 4 (one
// group of four chunks a thread), three passes but for fp32 rows of 4096 chunks. Measured on the
// H200 (call 131, reports/h200/bench-loop-3.txt, cold; bf16 two repeats, fp32 once) against the
// row kernel auto took before: bf16 16384x4096 71.7 us against 73.1-73.2, 8192x8192 73.6-73.8
// against 75.7-76.1; fp32 16384x4096 131.6 against 136.5, 8192x8192 130.9 against 142.5,
// 4096x16384 140.5 (two passes) against 150.0. It tied or lost at bf16 4096x16384 (78.3-78.8
// against 78.3) and 2048x32768 (87.5-88.1 against 86.9-87.5) and fp32 2048x32768 (190.1 against
// 188.4). Rows below kLoopAutoMinRows were not measured, nor f16 or other widths.
struct LoopAuto {
  DType dtype;
  std::int64_t chunks;
  int threads, passes;
};
constexpr LoopAuto kLoopAuto[] = {
    {DType::BF16, 512, 128, 3}, {DType::BF16, 1024, 256, 3}, {DType::F32, 1024, 256, 3},
    {DType::F32, 2048, 512, 3}, {DType::F32, 4096, 512, 2},
};

LoopChoice layernorm_loop_auto(DType dt, const Shape& s, bool misaligned) {
  const std::size_t elem = size_of(dt);
  if (misaligned || s.rows < kLoopAutoMinRows ||
      s.d * static_cast<std::int64_t>(elem) % kChunkBytes != 0)
    return {};
  const std::int64_t chunks = row_chunks(elem, s.d, false);
  for (const LoopAuto& a : kLoopAuto)
    if (a.dtype == dt && a.chunks == chunks) return {a.threads, a.passes};
  return {};
}

int loop_default_threads(std::size_t elem_size, std::int64_t d) {
  // Four chunks a thread in one group: the narrowest power of two that takes the row so, from
  // 128 to 512 threads (wider blocks measured slower at every shape: calls 130-131).
  const std::int64_t chunks = row_chunks(elem_size, d, false);
  return static_cast<int>(std::clamp<std::int64_t>(pow2_at_least(ceil_div(chunks, 4)), 128, 512));
}

LoopPlan read_loop(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem_size,
                   const Shape& s, bool other_schedule, const LoopChoice& auto_choice,
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
  if (op != "layernorm" && passes_key != "auto")
    fail(op, "loop_passes=" + passes_key + " is LayerNorm's (the other streamed kernels read their rows twice)");
  LoopPlan plan;
  const bool auto_takes = auto_choice.threads != 0;
  if (other_schedule || !(schedule == "loop" || (schedule == "auto" && auto_takes))) return plan;
  plan.loop = true;
  plan.threads = threads_key != "auto" ? std::stoi(threads_key)
                 : auto_takes         ? auto_choice.threads
                                      : loop_default_threads(elem_size, s.d);
  plan.passes = op != "layernorm"     ? 2
                : passes_key != "auto" ? std::stoi(passes_key)
                : auto_takes           ? auto_choice.passes
                                       : 3;
  g.items = 4;
  g.threads_per_row = plan.threads;
  g.rows_per_block = 1;
  g.streams = true;
  const std::int64_t rows = std::max<std::int64_t>(1, s.rows);
  if (grid_key == "3")
    g.blocks = std::min<std::int64_t>(rows, 3);
  else if (grid_key == "resident")
    g.blocks = std::min<std::int64_t>(rows, device.sm_count * resident_blocks_per_sm(device, plan.threads, 0));
  else
    g.blocks = rows;
  return plan;
}

}  // namespace ladder::kernels::detail
