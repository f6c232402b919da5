// schedule=packed for the forward kernels (kernels/packed_norm.cuh): packed rows taken span by
// span as one flat array on the 16-byte grid, the weight in shared memory as shifted copies.
#include <algorithm>
#include <numeric>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// Chunks a span aims for: about this many threads, each at the op's largest ITEMS.
constexpr std::int64_t kSpanThreads = 256;
constexpr std::int64_t kBlockReserve = 1024;  // the runtime's per-block shared memory (sm_80+)
constexpr int kRegistersPerThread = 64;       // the packed kernels' launch bound of 1024

// Rows a span must be a multiple of for every span to start on the 16-byte grid.
std::int64_t aligned_span_rows(std::size_t elem_size, std::int64_t d) {
  const std::int64_t row_bytes = d * static_cast<std::int64_t>(elem_size);
  return kChunkBytes / std::gcd(row_bytes, std::int64_t{kChunkBytes});
}

std::int64_t align16(std::int64_t bytes) { return (bytes + 15) / 16 * 16; }

// norm::PackedLayout<T, WEIGHTS>::bytes() (kernels/packed_common.cuh), on the host.
std::int64_t packed_shared_bytes(std::size_t elem_size, std::int64_t d, std::int64_t span_rows,
                                 int weights) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  const std::int64_t padded_d = ceil_div(d, vec) * vec;
  const std::int64_t span_chunks = span_rows * d / vec;
  return weights * vec * padded_d * static_cast<std::int64_t>(elem_size) +
         align16(span_chunks * 4) + align16((span_rows + 1) * 4) + align16(2 * span_rows * 4);
}

}  // namespace

// The largest ITEMS each op's packed kernel holds without spilling under its launch bound of
// 1024 threads (sm_90, ptxas -v): the 16-bit chunks unpack to twice the registers of fp32 ones,
// and add_rmsnorm holds x and r.
int packed_max_items(const std::string& op, std::size_t elem_size) {
  if (op == "add_rmsnorm") return elem_size == 2 ? 3 : 4;
  return elem_size == 2 ? 5 : 6;
}

std::vector<std::string> packed_items_values(int max_items) {
  std::vector<std::string> out{"auto"};
  for (int i = 1; i <= max_items; ++i) out.push_back(std::to_string(i));
  return out;
}

PackedPlan read_packed(VariantReader& v, const std::string& op,
                       const std::vector<std::string>& schedules, std::size_t elem_size,
                       int weights, const Shape& s, bool dense, int forced_items,
                       int rows_per_block, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const int max_items = packed_max_items(op, elem_size);
  const std::string items_key = v.get("packed_items", "auto", packed_items_values(max_items));
  const std::string span_key = v.get("span_rows", "auto", {"auto", "4", "8", "16", "32"});
  PackedPlan plan;
  if (schedule != "packed") {
    if (items_key != "auto" || span_key != "auto")
      fail(op, "packed_items and span_rows apply to schedule=packed only");
    return plan;  // auto takes it nowhere yet
  }
  if (rows_per_block != 0) fail(op, "schedule=packed takes no rpb: its block is one span");
  if (forced_items != 0) fail(op, "schedule=packed takes packed_items, not items");
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  // Where it does not apply the register kernel runs, as schedule=staged does where it cannot
  // stage: strided rows, and rows shorter than a chunk (a chunk would touch three rows).
  if (!dense || s.d < vec) return plan;

  const int forced = items_key == "auto" ? 0 : std::stoi(items_key);
  const std::int64_t unit = aligned_span_rows(elem_size, s.d);
  const std::int64_t unit_chunks = unit * s.d / vec;
  std::int64_t span_rows = 0;
  if (span_key == "auto") {
    const std::int64_t target = kSpanThreads * (forced != 0 ? forced : max_items);
    span_rows = unit * std::max<std::int64_t>(1, target / unit_chunks);
  } else {
    span_rows = std::stoll(span_key);
    if (span_rows % unit != 0)
      fail(op, "span_rows=" + span_key + " is not a multiple of " + std::to_string(unit) +
                   ": spans of rows of " + std::to_string(s.d) + " must start on the 16-byte grid");
  }
  const std::int64_t span_chunks = span_rows * s.d / vec;
  // The narrowest block (whole warps, at most 1024 threads) whose threads hold the span at
  // ITEMS within the op's spill-free limit; a span too wide for that runs the register kernel.
  std::int64_t threads = 0;
  int items = 0;
  if (forced != 0) {
    threads = whole_warp_threads(span_chunks, forced);
    items = forced;
  } else {
    for (std::int64_t nt : {256, 512, 1024}) {
      if (ceil_div(span_chunks, nt) <= max_items) {
        threads = nt;
        items = static_cast<int>(ceil_div(span_chunks, nt));
        break;
      }
    }
    // A small span: fewer threads, at the largest ITEMS.
    if (threads != 0 && span_chunks < threads * items)
      threads = std::min(threads, whole_warp_threads(span_chunks, items));
  }
  if (threads == 0 || threads > 1024) return plan;
  const std::int64_t bytes = packed_shared_bytes(elem_size, s.d, span_rows, weights);
  const std::int64_t available = device.shared_per_block_optin - kStaticSharedReserve;
  if (bytes > available) return plan;

  const std::int64_t by_threads = device.max_threads_per_sm / threads;
  const std::int64_t by_registers = 65536 / (threads * kRegistersPerThread);
  const std::int64_t by_shared = (device.shared_per_sm - kBlockReserve) / (bytes + kBlockReserve);
  const std::int64_t per_sm = std::max<std::int64_t>(
      1, std::min({std::int64_t{32}, by_threads, by_registers, by_shared}));
  g.items = items;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(
      1, std::min(ceil_div(s.rows, span_rows), per_sm * device.sm_count));
  plan.packed = true;
  plan.span_rows = static_cast<int>(span_rows);
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  return plan;
}

}  // namespace ladder::kernels::detail
