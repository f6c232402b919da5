// The row-a-block kernels: schedule=decode for rmsnorm and add_rmsnorm (kernels/decode_norm.cuh),
// one 16-byte chunk a thread, for the few rows of token-by-token generation; schedule=row for the
// three forward ops (kernels/block_row.cuh), four or eight chunks a thread in a block of 64-1024
// threads with the weights staged.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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

// The narrowest row-a-block width at `items` that covers `chunks`, or 0 when none does.
int narrowest_block_row(std::int64_t chunks, int items) {
  for (int w : block_row_widths(items))
    if (std::int64_t{w} * items >= chunks) return w;
  return 0;
}

}  // namespace

std::vector<int> block_row_widths(int items) {
  return items == 4 ? std::vector<int>{128, 256, 512, 1024} : std::vector<int>{64, 128, 256, 512};
}

int block_row_auto_items(const std::string& op, std::size_t elem_size, std::int64_t chunks) {
  return op == "layernorm" && elem_size == 2 && chunks <= kBlockRowItems4MaxChunksLayernorm ? 4 : 8;
}

bool block_row_auto(std::size_t elem_size, const Shape& s, bool misaligned, std::int64_t min_d,
                    std::int64_t max_chunks) {
  if (misaligned || s.d * static_cast<std::int64_t>(elem_size) % kChunkBytes != 0) return false;
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  return s.d >= min_d && chunks >= kBlockRowMinChunks && chunks <= max_chunks;
}

std::uint32_t block_row_shared_bytes(const RowGeometry& g, std::size_t elem_size, std::int64_t d,
                                     int weights, bool staged) {
  return static_cast<std::uint32_t>(weights) *
         staged_weight_bytes(g, g.threads_per_row, elem_size, d, weights > 0, staged);
}

int read_row_grid(VariantReader& v, const std::string& op,
                  const std::vector<std::string>& schedules, bool block_row, bool auto_resident) {
  const std::string grid = v.get("row_grid", "auto", {"auto", "rows", "resident", "3"});
  if (grid != "auto" && v.get("schedule", "auto", schedules) != "row")
    fail(op, "row_grid=" + grid + " needs schedule=row");
  if (!block_row || grid == "rows" || (grid == "auto" && !auto_resident)) return 0;
  return grid == "3" ? 3 : -1;
}

bool layernorm_row_resident(std::size_t elem_size, std::int64_t d) {
  return row_chunks(elem_size, d, false) >= kBlockRowResidentMinChunksLayernorm;
}

void apply_row_grid(int grid, const DeviceLimits& device, std::int64_t rows,
                    std::uint32_t shared_bytes, RowGeometry& g) {
  if (grid == 0) return;
  if (grid > 0) {
    g.blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(rows, grid));  // zero rows: one idle block
    return;
  }
  // The kernels' launch bound: 4096 / (THREADS x ITEMS) blocks an SM (block_row.cuh).
  const std::int64_t by_registers = std::max(1, 4096 / (g.threads_per_row * g.items));
  const std::int64_t per_sm =
      std::min(by_registers, resident_blocks_per_sm(device, g.threads_per_row, shared_bytes));
  g.blocks = std::max<std::int64_t>(1, std::min(rows, per_sm * device.sm_count));
}

bool read_block_row(VariantReader& v, const std::string& op,
                    const std::vector<std::string>& schedules, std::size_t elem_size,
                    const Shape& s, int forced_items, int rows_per_block, bool other_schedule,
                    bool auto_takes, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const std::string width = v.get("row_threads", "auto", kBlockRowWidths);
  const std::string items_key = v.get("row_items", "auto", kBlockRowItemsChoices);
  const bool asked = schedule == "row" || (schedule == "auto" && auto_takes);
  for (const auto& [key, value] : {std::pair{"row_threads", width}, std::pair{"row_items", items_key}})
    if (value != "auto" && (other_schedule || schedule != "row"))
      fail(op, std::string(key) + "=" + value + " needs schedule=row");
  if (other_schedule || !asked) return false;
  if (schedule == "auto" && (forced_items != 0 || rows_per_block != 0)) return false;
  if (forced_items != 0 || rows_per_block != 0)
    fail(op, "schedule=row takes its ITEMS from row_items and one row a block; drop items and rpb");
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  const int items = items_key == "auto" ? block_row_auto_items(op, elem_size, chunks) : std::stoi(items_key);
  const std::vector<int> widths = block_row_widths(items);
  if (width != "auto" && std::find(widths.begin(), widths.end(), std::stoi(width)) == widths.end())
    fail(op, "row_threads=" + width + " is not instantiated at row_items=" + std::to_string(items) +
                 " (64-512 threads at 8, 128-1024 at 4)");
  // The narrowest block that covers the row, or the one asked for; a row wider than that block
  // runs the register kernel.
  const int threads = width != "auto" ? std::stoi(width) : narrowest_block_row(chunks, items);
  if (threads == 0 || chunks > std::int64_t{threads} * items) return false;
  g.items = items;
  g.threads_per_row = threads;
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(1, s.rows);
  return true;
}

}  // namespace ladder::kernels::detail
