#include "harness/kernels/row_geometry.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ladder::kernels {
int smallest_allowed_at_least(const std::vector<int>& allowed, std::int64_t need) {
  for (int items : allowed)
    if (items >= need) return items;
  return allowed.back();
}

namespace {

// Whole warps per row: for each ITEMS, the fewest warps that cover the chunks; keep the
// candidates that waste the fewest threads, then prefer more ITEMS (more loads in flight per
// thread, fewer warps to join) or, when latency matters, fewer ITEMS (shorter serial work).
bool choose_warps_per_row(std::int64_t chunks, const std::vector<int>& allowed, int max_tpr,
                          bool prefer_few_items, RowGeometry& g) {
  struct Candidate { int items, tpr; double use; };
  std::vector<Candidate> fits;
  for (int items : allowed) {
    const std::int64_t tpr = whole_warp_threads(chunks, items);
    if (tpr > max_tpr) continue;
    fits.push_back({items, static_cast<int>(tpr),
                    static_cast<double>(chunks) / static_cast<double>(tpr * items)});
  }
  if (fits.empty()) return false;
  if (prefer_few_items) {
    g.items = fits.front().items;
    g.threads_per_row = fits.front().tpr;
    return true;
  }
  double best = 0;
  for (const auto& c : fits) best = std::max(best, c.use);
  for (const auto& c : fits) {
    if (c.use >= best - 0.03) {  // the last such entry has the most ITEMS
      g.items = c.items;
      g.threads_per_row = c.tpr;
    }
  }
  return true;
}

}  // namespace

std::int64_t row_chunks(std::size_t elem_size, std::int64_t d, bool rows_may_be_misaligned) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  return ceil_div(d + (rows_may_be_misaligned ? vec - 1 : 0), vec);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

int pow2_at_least(std::int64_t v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

std::int64_t whole_warp_threads(std::int64_t chunks, int items) {
  return kWarp * ceil_div(chunks, std::int64_t{kWarp} * items);
}

std::vector<int> allowed_items(std::size_t elem_size, const RowLimits& limits) {
  const int vec = kChunkBytes / static_cast<int>(elem_size);
  const int max_items = std::max(1, limits.max_values_per_thread / vec);
  std::vector<int> out;
  for (int items : {1, 2, 3, 4, 6, 8, 12, 16})
    if (items <= max_items) out.push_back(items);
  return out;
}

RowGeometry choose_row_geometry(std::size_t elem_size, std::int64_t rows, std::int64_t d,
                                bool rows_may_be_misaligned, const RowLimits& limits,
                                int forced_items) {
  if (elem_size != 2 && elem_size != 4)
    throw std::invalid_argument("row geometry: element size must be 2 or 4 bytes, got " +
                                std::to_string(elem_size));
  if (d < 1) throw std::invalid_argument("row geometry: d must be >= 1");
  RowGeometry g;
  g.vec = kChunkBytes / static_cast<int>(elem_size);
  const std::vector<int> allowed = allowed_items(elem_size, limits);
  if (forced_items != 0 &&
      std::find(allowed.begin(), allowed.end(), forced_items) == allowed.end())
    throw std::invalid_argument("row geometry: items=" + std::to_string(forced_items) +
                                " is not an instantiated ITEMS value");
  const std::int64_t chunks = row_chunks(elem_size, d, rows_may_be_misaligned);
  const bool few_rows = rows < 2 * static_cast<std::int64_t>(limits.sm_count);
  std::vector<int> candidates;
  if (forced_items != 0) {
    candidates = {forced_items};
  } else {
    const int spill_free =
        elem_size == 4 ? limits.spill_free_values_fp32 : limits.spill_free_values_16bit;
    for (int items : allowed)
      if (items * g.vec <= spill_free) candidates.push_back(items);
    if (candidates.empty()) candidates.push_back(allowed.front());
    const std::int64_t capacity =
        static_cast<std::int64_t>(limits.max_threads_per_row) * candidates.back();
    if (chunks > capacity && !limits.stream_rather_than_spill) candidates = allowed;
  }
  const int max_items = candidates.back();

  if (few_rows && forced_items == 0 && chunks > kWarp) {
    // Decode-sized work: spread the row over more threads so each does one short step.
    if (!choose_warps_per_row(chunks, candidates, limits.latency_threads_per_row, true, g) &&
        !choose_warps_per_row(chunks, candidates, limits.max_threads_per_row, true, g)) {
      g.items = max_items;
      g.threads_per_row = limits.max_threads_per_row;
    }
  } else if (chunks <= std::int64_t{kWarp} * max_items) {
    // Inside one warp: at least 8 threads per row when the row has 8 chunks, so a warp's access
    // spans whole 128-byte lines; otherwise as few threads as the largest ITEMS allows.
    const std::int64_t floor_threads = std::min<std::int64_t>(8, chunks);
    int tpr = pow2_at_least(std::max(ceil_div(chunks, max_items), floor_threads));
    tpr = std::min(tpr, kWarp);
    g.threads_per_row = tpr;
    g.items = smallest_allowed_at_least(candidates, ceil_div(chunks, tpr));
  } else if (!choose_warps_per_row(chunks, candidates, limits.max_threads_per_row, false, g)) {
    g.items = max_items;
    g.threads_per_row = limits.max_threads_per_row;
  }
  if (forced_items == 0 && limits.preferred_threads_per_row > 0 &&
      g.threads_per_row > limits.preferred_threads_per_row) {
    for (int items : allowed) {
      if (items <= g.items) continue;
      const std::int64_t tpr = whole_warp_threads(chunks, items);
      if (tpr <= limits.preferred_threads_per_row) {
        g.items = items;
        g.threads_per_row = static_cast<int>(tpr);
        break;
      }
    }
  }
  g.streams = chunks > static_cast<std::int64_t>(g.threads_per_row) * g.items;
  const int block_threads =
      elem_size == 2 && !rows_may_be_misaligned && g.threads_per_row == kWarp &&
              limits.one_warp_block_threads_16bit > 0
          ? limits.one_warp_block_threads_16bit
          : limits.target_block_threads;
  g.rows_per_block =
      g.threads_per_row <= kWarp ? std::max(1, block_threads / g.threads_per_row) : 1;
  g.blocks = std::max<std::int64_t>(1, ceil_div(rows, g.rows_per_block));
  return g;
}

}  // namespace ladder::kernels
