// schedule=wide for the forward register kernels: eight 16-byte chunks a thread under a launch
// bound of 256 or 512 threads instead of 1024. At 1024 ptxas caps a thread at 64 registers and
// spills past four chunks (two for add_rmsnorm); under the lower bound it keeps eight (sm_90,
// ptxas -v: rmsnorm and layernorm fp32 80 registers, layernorm 16-bit 104, add_rmsnorm 125-128,
// no spills), so a row takes half the threads and each SM holds more of it in flight.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

constexpr int kWideItems = 8;

// The launch bound each op's wide kernel is instantiated with: the one it was measured under.
int wide_bound(const std::string& op) { return op == "add_rmsnorm" ? 512 : 256; }

// Where the H200 measured the wide kernel faster than every other schedule (calls 26 and 27,
// reports/h200/sweep-wide.txt; aligned rows, at least 4096 of them; call 34 confirmed the rule
// between those shapes, reports/h200/bench-wide-between.txt: d = 12288 and, for layernorm, 5120):
// - rmsnorm 16-bit rows the register kernel gives more than 256 threads (d = 8193..16384):
//   bf16 4096x16384 0.855-0.858 of the copy ceiling against 0.80, f16 0.855-0.859 against 0.80.
//   At 8192 it tied (0.86), at 4096 and 1024 it lost (0.86 against 0.89 and 0.91).
// - add_rmsnorm 16-bit rows of more than 512 threads at two chunks (those of 1024 auto staged):
//   bf16 4096x16384 0.906-0.914 against 0.895-0.900, f16 0.904-0.917 against 0.893-0.899.
//   At 8192 it tied, at 4096 and 1024 it lost.
// - layernorm fp32 rows of 256 or 512 threads at four chunks (d = 2049..8192): 16384x4096
//   0.837-0.857 against 0.824-0.826, 8192x8192 0.831-0.835 against 0.778. At 4096x16384
//   (512 threads at eight chunks) it lost: 0.62 against 0.77.
// - add_rmsnorm 16-bit rows the register kernel streams (d = 16385..32768); where one row fills
//   the 512-thread bound (wide_fills_bound) the block is alone on its SM and stages its weight
//   in shared memory (call 98, reports/h200/bench-stage-weight.txt: bf16 512x32768 41.1 us,
//   2048x32768 0.93). Before that, with the weight read in a register batch, calls 60-61
//   (reports/h200/bench-batch.txt): bf16 512x32768 44.1-44.2 us against 48.1-48.4 streamed,
//   2048x32768 147.1-147.4 against 161.7-162.3, f16 147.2-147.6 against 170.0-170.6; at
//   4096x24576, which stages otherwise, 206.5-206.8 against 208.3-209.6 staged.
bool wide_measured_faster(const std::string& op, std::size_t elem_size, std::int64_t chunks,
                          const RowGeometry& g) {
  const bool one_wide_tile = chunks <= std::int64_t{wide_bound(op)} * kWideItems;
  if (!one_wide_tile) return false;
  if (g.streams) return op == "add_rmsnorm" && elem_size == 2;
  if (op == "rmsnorm") return elem_size == 2 && g.items == 4 && g.threads_per_row > 256;
  if (op == "add_rmsnorm") return elem_size == 2 && g.threads_per_row > 512;
  if (op == "layernorm") return elem_size == 4 && g.items == 4 && g.threads_per_row >= 256;
  return false;
}

}  // namespace

const std::vector<std::string> kLayernormSchedules{"auto", "regs", "wide", "warp", "packed", "row", "loop", "bulk", "phase"};
const std::vector<int> kWarpItems{6, 9, 12};

namespace {

constexpr int kWarpBound = 256;

// The end of both schedules under a lower launch bound (wide, warp): the grid for the rows, an
// rpb override, the check that the block keeps within the bound the kernel was built with, and
// the geometry handed back (w's items, threads and rows a block set by the caller).
int finish_bounded(const std::string& op, const std::string& schedule, int bound,
                   std::int64_t chunks, std::int64_t rows, int rows_per_block, RowGeometry w,
                   RowGeometry& g) {
  w.streams = chunks > std::int64_t{w.threads_per_row} * w.items;
  w.blocks = std::max<std::int64_t>(1, ceil_div(rows, w.rows_per_block));
  if (rows_per_block != 0) apply_rows_per_block(op, rows_per_block, rows, w);
  if (w.threads_per_row * w.rows_per_block > bound)
    fail(op, "schedule=" + schedule + ": a block of " +
                 std::to_string(w.threads_per_row * w.rows_per_block) +
                 " threads exceeds its kernel's launch bound of " + std::to_string(bound));
  g = w;
  return bound;
}

std::vector<std::string> warp_item_values() {
  std::vector<std::string> values{"auto"};
  for (int items : kWarpItems) values.push_back(std::to_string(items));
  return values;
}

// schedule=warp: the register kernel with a whole row in one warp at up to 12 chunks a thread,
// eight rows a block, under the launch bound of 256 threads (so ptxas may keep the chunks
// without spilling). A row needs no block barrier: its reduction is the warp's shuffles, and
// the SM holds many rows at once, each with its loads in flight. ITEMS is the smallest of
// kWarpItems that covers the row (warp_items pins one); a wider row streams.
int warp_geometry(VariantReader& v, const std::string& op, std::size_t elem_size, const Shape& s,
                  bool misaligned, int forced_items, int rows_per_block, RowGeometry& g) {
  if (forced_items != 0)
    fail(op, "schedule=warp takes its ITEMS from warp_items; drop items=" +
                 std::to_string(forced_items));
  const std::string pinned = v.get("warp_items", "auto", warp_item_values());
  const std::int64_t chunks = row_chunks(elem_size, s.d, misaligned);
  RowGeometry w = g;
  // The smallest ITEMS whose warp covers the row, else the largest (the row streams).
  w.items = pinned != "auto" ? std::stoi(pinned)
                             : smallest_allowed_at_least(kWarpItems, ceil_div(chunks, kWarp));
  w.threads_per_row = kWarp;
  w.rows_per_block = kWarpBound / kWarp;
  return finish_bounded(op, "warp", kWarpBound, chunks, s.rows, rows_per_block, w, g);
}

// Where the H200 measured schedule=warp faster than the register geometry (call 165,
// reports/h200/bench-warp-165.txt, two repeats, cold): 16-bit rows off the 16-byte grid of 129 to
// 193 chunks, which the register geometry spreads over two or three warps with a block barrier.
// rmsnorm bf16 16384x1025 47.2-47.5 us -> 36.1-36.2, 16384x1537 67.0-67.2 -> 55.0; layernorm
// 74.8-74.9 -> 50.1-50.2 and 104.6 -> 77.9-79.1; add_rmsnorm 81.4-81.6 -> 78.2-78.6 and
// 112.7-112.9 -> 105.7-106.1 (f16 the same). At 257 chunks and more (d = 2049, 2500, 3000) it
// lost everywhere: 96-128 registers leave two 256-thread blocks an SM (24% of warp slots busy).
bool warp_measured_faster(std::size_t elem_size, std::int64_t chunks, bool misaligned,
                          std::int64_t rows, const RowLimits& limits) {
  return elem_size == 2 && misaligned && chunks > 4 * kWarp && chunks <= 193 &&
         rows >= 2 * std::int64_t{limits.sm_count};
}

}  // namespace

int read_wide(VariantReader& v, const std::string& op, const std::vector<std::string>& schedules,
              std::size_t elem_size, const Shape& s, bool misaligned, const RowLimits& limits,
              int forced_items, int rows_per_block, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  if (schedule == "warp")
    return warp_geometry(v, op, elem_size, s, misaligned, forced_items, rows_per_block, g);
  if (v.get("warp_items", "auto", warp_item_values()) != "auto")
    fail(op, "warp_items needs schedule=warp");
  const std::int64_t chunks = row_chunks(elem_size, s.d, misaligned);
  bool wide = schedule == "wide";
  if (wide && forced_items != 0)
    fail(op, "schedule=wide fixes ITEMS at " + std::to_string(kWideItems) + "; drop items=" +
                 std::to_string(forced_items));
  if (schedule == "auto" && forced_items == 0 && rows_per_block == 0 && !misaligned &&
      s.rows >= 2 * std::int64_t{limits.sm_count})
    wide = wide_measured_faster(op, elem_size, chunks, g);
  if (schedule == "auto" && forced_items == 0 && rows_per_block == 0 &&
      warp_measured_faster(elem_size, chunks, misaligned, s.rows, limits) &&
      !(op == "add_rmsnorm" && s.d <= 1024)) {  // there auto's packed kernel keeps its rows
    v.resolve_auto("schedule", "warp");  // every later reader of the schedule steps aside
    return warp_geometry(v, op, elem_size, s, misaligned, forced_items, rows_per_block, g);
  }
  if (!wide) return 0;

  const int bound = wide_bound(op);
  RowGeometry w = g;
  w.items = kWideItems;
  if (chunks <= std::int64_t{kWarp} * kWideItems) {
    // Inside one warp, as the register geometry does: a power of two of threads per row, and
    // several rows a block.
    w.threads_per_row = pow2_at_least(ceil_div(chunks, kWideItems));
    w.rows_per_block = std::max(1, std::min(bound, limits.target_block_threads) / w.threads_per_row);
  } else {
    // Whole warps; a row wider than the bound's tile streams (the kernel reads it twice).
    w.threads_per_row = static_cast<int>(
        std::min<std::int64_t>(bound, whole_warp_threads(chunks, kWideItems)));
    w.rows_per_block = 1;
  }
  return finish_bounded(op, "wide", bound, chunks, s.rows, rows_per_block, w, g);
}

bool wide_fills_bound(const RowGeometry& g, int bound) {
  return bound != 0 && g.rows_per_block == 1 && g.threads_per_row == bound;
}

std::uint32_t staged_weight_bytes(const RowGeometry& g, int bound, std::size_t elem_size,
                                  std::int64_t d, bool has_weight, bool staged) {
  // A row that streams (several tiles) could need more than a block's shared memory: not staged.
  if (!staged || !has_weight || g.streams || !wide_fills_bound(g, bound)) return 0;
  const std::int64_t whole_chunks = d * static_cast<std::int64_t>(elem_size) / kChunkBytes;
  return static_cast<std::uint32_t>(whole_chunks * kChunkBytes);
}

}  // namespace ladder::kernels::detail
