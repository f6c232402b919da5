// When the forward kernels cache their weights per block, and how many rows a block then takes.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

constexpr int kChunkBytes = 16;
constexpr int kSmCount = 132;               // H200; sizes the grid, never correctness
constexpr int kResidentThreadsPerSm = 2048;  // the forward kernels run at most 64 registers
constexpr std::int64_t kCacheBytesPerSm = 200 * 1024;  // of the H200's 228 KiB
constexpr std::int64_t kMaxBlockSharedBytes = 227 * 1024;  // opt-in dynamic limit, sm_80 and sm_90
// A block's grid-stride loop takes this many rows per group by default: the weights are read
// from L2 once per that many rows instead of once per row.
constexpr int kDefaultRowsPerGroup = 4;

int resident_blocks(const RowGeometry& g) {
  const int threads = g.threads_per_row * g.rows_per_block;
  return std::max(1, std::min(32, kResidentThreadsPerSm / threads));
}

}  // namespace

std::int64_t cached_weight_bytes(int slots, std::size_t elem_size, std::int64_t d) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  return slots * ((d + vec - 1) / vec + 2) * kChunkBytes;
}

WeightCachePlan read_weight_cache(VariantReader& v, const std::string& op, int slots,
                                  std::size_t elem_size, std::int64_t rows, std::int64_t d,
                                  const RowGeometry& g) {
  const std::string mode = v.get("wcache", "auto", {"auto", "0", "1", "starved"});
  const std::string seq = v.get("seq", "auto", {"auto", "1", "2", "4", "8", "16", "32"});
  WeightCachePlan plan;
  const std::int64_t bytes = cached_weight_bytes(std::max(slots, 1), elem_size, d);
  const std::int64_t groups =
      std::max<std::int64_t>(1, (rows + g.rows_per_block - 1) / g.rows_per_block);
  if (mode != "0" && mode != "auto" && slots == 0)
    fail(op, "variant wcache=" + mode + " needs a weight to cache");
  if (mode == "1") {
    plan.cached = bytes <= kMaxBlockSharedBytes;  // 1: wherever the copies fit a block
  } else if (mode == "starved") {
    plan.cached = true;  // the CACHED kernel without its shared memory: it must read global memory
  } else if (mode == "auto") {
    // Worth it when a block has several rows to reuse the copy on, and the copies of every
    // resident block fit beside each other (the cache must not cost occupancy).
    plan.cached = slots > 0 && groups >= 4LL * kSmCount &&
                  bytes * resident_blocks(g) <= kCacheBytesPerSm;
  }
  if (!plan.cached) {
    // seq with wcache=1 on rows too wide to cache is moot, not an error.
    if (mode == "0" && seq != "auto" && seq != "1")
      fail(op, "variant seq=" + seq + " needs the weight cache (wcache=0 was asked for)");
    return plan;
  }
  plan.shared_bytes = mode == "starved" ? 0 : static_cast<std::uint32_t>(bytes);
  plan.rows_per_group = seq == "auto" ? kDefaultRowsPerGroup : std::stoi(seq);
  return plan;
}

void apply_weight_cache(const WeightCachePlan& plan, std::int64_t rows, RowGeometry& g) {
  const std::int64_t per_block = static_cast<std::int64_t>(g.rows_per_block) * plan.rows_per_group;
  g.blocks = std::max<std::int64_t>(1, (rows + per_block - 1) / per_block);
}

}  // namespace ladder::kernels::detail
