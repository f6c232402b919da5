// The row-a-block kernels: schedule=decode for rmsnorm and add_rmsnorm (kernels/decode_norm.cuh),
// one 16-byte chunk a thread, for the few rows of token-by-token generation; schedule=row for
// add_rmsnorm (kernels/block_row.cuh), eight chunks a thread in a block of 512 threads with the
// weight staged.
#include <algorithm>
#include <string>

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

namespace {

// The narrowest row-a-block width that covers `chunks`, or 0 when none does.
int narrowest_block_row(std::int64_t chunks) {
  for (const std::string& w : kBlockRowWidths)
    if (w != "auto" && std::int64_t{std::stoi(w)} * kBlockRowItems >= chunks) return std::stoi(w);
  return 0;
}

}  // namespace

bool block_row_auto(std::size_t elem_size, const Shape& s, bool misaligned, std::int64_t min_d,
                    std::int64_t max_chunks) {
  if (misaligned || s.d * static_cast<std::int64_t>(elem_size) % kChunkBytes != 0) return false;
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  return s.d >= min_d && chunks >= kBlockRowMinChunks && chunks <= max_chunks;
}

bool read_block_row(VariantReader& v, const std::string& op,
                    const std::vector<std::string>& schedules, std::size_t elem_size,
                    const Shape& s, int forced_items, int rows_per_block, bool other_schedule,
                    bool auto_takes, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const std::string width = v.get("row_threads", "auto", kBlockRowWidths);
  const bool asked = schedule == "row" || (schedule == "auto" && auto_takes);
  if (width != "auto" && (other_schedule || schedule != "row"))
    fail(op, "row_threads=" + width + " needs schedule=row");
  if (other_schedule || !asked) return false;
  if (schedule == "auto" && (forced_items != 0 || rows_per_block != 0)) return false;
  if (forced_items != 0 || rows_per_block != 0)
    fail(op, "schedule=row fixes its ITEMS (" + std::to_string(kBlockRowItems) +
                            ") and one row a block; drop items and rpb");
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  // The narrowest block that covers the row, or the one asked for; a row wider than that block
  // runs the register kernel.
  const int threads = width != "auto" ? std::stoi(width) : narrowest_block_row(chunks);
  if (threads == 0 || chunks > std::int64_t{threads} * kBlockRowItems) return false;
  g.items = kBlockRowItems;
  g.threads_per_row = threads;
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(1, s.rows);
  return true;
}

}  // namespace ladder::kernels::detail
