// schedule=packed for the forward kernels (kernels/packed_norm.cuh): contiguous tensors copied
// span by span into shared memory with 16-byte copies, rows normalized there.
#include <algorithm>
#include <numeric>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// Spans of at least this many bytes per staged tensor, so each block keeps a few 16-byte copies
// a thread in flight.
constexpr std::int64_t kMinSpanBytes = 16 * 1024;
constexpr std::int64_t kBlockReserve = 1024;  // the runtime's per-block shared memory (sm_80+)
constexpr int kTargetBlockThreads = 256;
constexpr int kRegistersPerThread = 64;  // the packed kernels' launch bound of 1024 caps them

// Rows a span must be a multiple of for every span to start on the 16-byte grid.
std::int64_t aligned_span_rows(std::size_t elem_size, std::int64_t d) {
  const std::int64_t row_bytes = d * static_cast<std::int64_t>(elem_size);
  return kChunkBytes / std::gcd(row_bytes, std::int64_t{kChunkBytes});
}

}  // namespace

// x and r both held make add_rmsnorm spill at 16-bit ITEMS 4 and fp32 ITEMS 4 (sm_90, ptxas -v).
int packed_max_items(const std::string& op, std::size_t elem_size) {
  if (op == "add_rmsnorm") return elem_size == 2 ? 3 : 2;
  return 4;
}

PackedPlan read_packed(VariantReader& v, const std::string& op,
                       const std::vector<std::string>& schedules, std::size_t elem_size,
                       int tensors, const Shape& s, bool dense, int forced_items,
                       int rows_per_block, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const std::string span_key = v.get("span_rows", "auto", {"auto", "8", "16", "32", "64"});
  PackedPlan plan;
  // auto takes it nowhere yet. Where it does not apply (strided rows, a row wider than one
  // 1024-thread tile, a span over a block's shared memory) the register kernel runs, as
  // schedule=staged does where it cannot stage.
  if (schedule != "packed" || !dense) return plan;

  const std::int64_t chunks = ceil_div(s.d, kChunkBytes / static_cast<std::int64_t>(elem_size));
  const int max_items = packed_max_items(op, elem_size);
  std::vector<int> candidates;
  for (int items : allowed_items(elem_size))
    if (items <= max_items) candidates.push_back(items);
  if (forced_items != 0) {
    if (forced_items > max_items)
      fail(op, "schedule=packed holds at most " + std::to_string(max_items) +
                   " chunks a thread here; items=" + std::to_string(forced_items) + " spills");
    candidates = {forced_items};
  }
  // One tile covers the row: the fewest idle chunk slots, then the most chunks a thread.
  int best_items = 0;
  std::int64_t best_threads = 0;
  for (int items : candidates) {
    std::int64_t threads = ceil_div(chunks, items);
    threads = threads <= kWarp ? pow2_at_least(threads) : whole_warp_threads(chunks, items);
    if (threads > 1024) continue;
    const std::int64_t idle = threads * items - chunks;
    if (best_items == 0 || idle < best_threads * best_items - chunks ||
        (idle == best_threads * best_items - chunks && items > best_items)) {
      best_items = items;
      best_threads = threads;
    }
  }
  if (best_items == 0) return plan;

  const int rpb = rows_per_block != 0
                      ? rows_per_block
                      : std::max<int>(1, kTargetBlockThreads / static_cast<int>(best_threads));
  if (best_threads * rpb > 1024)
    fail(op, "variant rpb=" + std::to_string(rpb) + " makes a block of " +
                 std::to_string(best_threads * rpb) + " threads; the most is 1024");
  const std::int64_t unit = std::lcm(aligned_span_rows(elem_size, s.d), std::int64_t{rpb});
  std::int64_t span_rows = unit;
  const std::int64_t row_bytes = s.d * static_cast<std::int64_t>(elem_size);
  if (span_key == "auto") {
    while (span_rows * row_bytes < kMinSpanBytes) span_rows += unit;
  } else {
    span_rows = std::stoll(span_key);
    if (span_rows % unit != 0)
      fail(op, "span_rows=" + span_key + " is not a multiple of " + std::to_string(unit) +
                   " (16-byte-aligned spans of rows of " + std::to_string(s.d) + ", and " +
                   std::to_string(rpb) + " row groups a block)");
  }
  const std::int64_t bytes = span_rows * row_bytes * tensors;
  const std::int64_t available = device.shared_per_block_optin - kStaticSharedReserve;
  if (bytes > available) return plan;

  const std::int64_t block_threads = best_threads * rpb;
  const std::int64_t by_threads = device.max_threads_per_sm / block_threads;
  const std::int64_t by_registers = 65536 / (block_threads * kRegistersPerThread);
  const std::int64_t by_shared = (device.shared_per_sm - kBlockReserve) / (bytes + kBlockReserve);
  const std::int64_t per_sm = std::max<std::int64_t>(
      1, std::min({std::int64_t{32}, by_threads, by_registers, by_shared}));
  g.items = best_items;
  g.threads_per_row = static_cast<int>(best_threads);
  g.rows_per_block = rpb;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(
      1, std::min(ceil_div(s.rows, span_rows), per_sm * device.sm_count));
  plan.packed = true;
  plan.span_rows = static_cast<int>(span_rows);
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  return plan;
}

}  // namespace ladder::kernels::detail
