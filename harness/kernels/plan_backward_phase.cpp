// schedule=phase of the backward ops (kernels/backward_phase.cuh): rows off the 16-byte grid,
// each block walking only the rows that share one phase, one tile a row in registers under a
// 1024-thread launch bound, the weight-gradient sums and the weight's slots in shared memory.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_backward_readers.h"
#include "harness/kernels/plan_builder.h"
#include "harness/kernels/row_geometry.h"

namespace ladder::kernels::detail {
namespace {

// The kernels' launch bound, and so the registers a thread takes (64), which set how many blocks
// an SM holds.
constexpr int kPhaseMaxThreads = 1024;
constexpr int kPhaseRegisters = 65536 / kPhaseMaxThreads;

// Where auto takes it, and at which ITEMS: 16-bit rows off the 16-byte grid, at least 4096 of
// them, whose strides keep every tensor on one phase, at the widths where the H200 measured it
// (with the next row asked of the L2) faster than the shifted register kernel. The register
// kernel's block changes every 256 columns (a tile at any phase: 762..1017 two chunks a thread in
// 64 threads, 1018..1273 one in 160, 1274..1529 two in 96, ..., 3578..3833 one in 480), so each
// span below is one or more such steps, timed inside them (calls 188-191, reports/h200/
// bench-prefetch-188.txt, bench-prefetch-edges-189.txt, bench-bwd-segments-190.txt,
// bench-bwd-auto-191.txt; bf16, cold, two repeats, phase against regs, in us):
// - rmsnorm_bwd, ITEMS 2, where the register kernel takes one chunk a thread in 224 threads or
//   more: 8192x1537 44.8 against 47.4, 8192x2561 66.4 against 80.0, 8192x2689 67.4 against 83.6,
//   8192x3073 66.1 against 89.9, 8192x3713 77.0 against 93.5. Not at 16384x1025 (66.0 against
//   60.8), 8192x1793 (46.2 against 44.2), 8192x2049 (55.0 against 51.6), 8192x2945 (65.5 against
//   65.1), 8192x3329 (69.0 against 69.1), 8192x3577 (68.8 against 70.6: 2.5%, left out beside
//   3329's tie) or 4096x5125 (65.6 against 65.2).
// - layernorm_bwd, ITEMS 1 to 1785 (16384x1025 66.9 against 69.8, 16384x1153 69.5 against 72.7,
//   8192x1537 49.3 against 54.6), ITEMS 2 beyond (8192x2561 77.9 against 93.4, 8192x2689 79.2
//   against 97.0, 8192x3073 78.4 against 104.5, 8192x3713 91.9 against 108.9). Not at 16384x1281
//   (ITEMS 2: 75.5 against 67.8), 8192x1793 (52.9 against 54.4: 2.8%), 8192x2049 (62.0 against 60.3),
//   8192x2945 (80.5 against 76.6), 8192x3329 or 3577 (82.5 against 80.6, 84.1 against 82.4).
// - add_rmsnorm_bwd, ITEMS 1 (the most it holds), every step from 762 to 3833 but one:
//   16384x769 67.8 against 73.4-74.0, 16384x833 70.4 against 75.3, 16384x897 71.3 against 78.5,
//   8192x1409 57.9 against 63.2, 8192x1537 60.9 against 79.9, 8192x2049 78.8 against 90.2,
//   8192x3073 114.6 against 158.4, 8192x3713 137.2 against 165.1. The step 3322..3577 is left
//   out: faster at its ends (8192x3329 121.8 against 128.9, 8192x3577 126.6 against 133.8) but
//   slower inside it (8192x3457 134.2 against 132.2, call 191, bench-bwd-auto-191.txt). Not
//   beyond 3833 (8192x3969 144.5 against 145.6, 8192x4353 214.2 against 217.3, 4096x5125 128.3
//   against 119.0). Below 762 not timed.
constexpr std::int64_t kBackwardPhaseAutoMinRows = 4096;

struct PhaseSpan {
  std::int64_t first, last;  // widths, inclusive
  int items;
};
constexpr PhaseSpan kRmsnormSpans[] = {{1530, 1785, 2}, {2554, 2809, 2}, {3066, 3321, 2}, {3578, 3833, 2}};
constexpr PhaseSpan kLayernormSpans[] = {
    {1018, 1273, 1}, {1530, 1785, 1}, {2554, 2809, 2}, {3066, 3321, 2}, {3578, 3833, 2}};
constexpr PhaseSpan kAddRmsnormSpans[] = {{762, 3321, 1}, {3578, 3833, 1}};

// ITEMS auto takes for 16-bit rows of d, or 0 where it does not take the phase kernels.
int auto_phase_items(const std::string& op, std::int64_t d) {
  auto find = [d](const auto& spans) {
    for (const PhaseSpan& s : spans)
      if (d >= s.first && d <= s.last) return s.items;
    return 0;
  };
  if (op == "add_rmsnorm_bwd") return find(kAddRmsnormSpans);
  if (op == "layernorm_bwd") return find(kLayernormSpans);
  return find(kRmsnormSpans);
}

}  // namespace

// The most chunks a thread the kernels hold in their 64 registers (ptxas, sm_90): rmsnorm_bwd
// and layernorm_bwd two (rmsnorm_bwd at three spills 68 bytes), add_rmsnorm_bwd one (at two,
// 148 bytes).
int max_phase_items(const std::string& op) { return op == "add_rmsnorm_bwd" ? 1 : 2; }

BackwardPhasePlan read_backward_phase(VariantReader& v, const std::string& op, std::size_t elem,
                                      const Shape& s,
                                      const std::map<std::string, std::int64_t>& strides,
                                      bool weighted, int sums, int forced_items, bool auto_free,
                                      bool bulk, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", backward_schedules(op));
  const std::string items_key = v.get("phase_items", "auto", {"auto", "1", "2"});
  // A small fixed grid, for tests: eight blocks (one a phase of 16-bit rows) walk every row.
  const std::string grid = v.get("phase_grid", "auto", {"auto", "8"});
  // Blocks an SM, for tuning: the resident blocks by default.
  const std::string per_sm_key =
      v.get("phase_blocks_per_sm", "auto", {"auto", "1", "2", "3", "4", "6", "8"});
  // A launch the kernels must refuse, for probes/selftest.json: a grid off a multiple of VEC, a
  // block one warp too narrow for a tile at every phase, or 16 bytes too little shared memory for
  // the weight's slots. Each traps where a silent launch would leave rows or columns unwritten or
  // read the weight past the block's memory.
  const std::string broken =
      v.get("broken_phase_launch", "none", {"none", "grid_off_vec", "narrow_tile", "short_weight"});
  const bool asked = schedule == "phase";
  // auto asks the L2 for the block's next row: no registers held for it, and faster wherever auto
  // takes these kernels (call 188, reports/h200/bench-prefetch-188.txt, bf16, cold, two repeats,
  // none -> the next row: add_rmsnorm_bwd 8192x1537 64.1-64.3 us -> 60.7-61.1, 8192x2049
  // 84.7 -> 78.7-78.9, 8192x3073 124.0-124.3 -> 114.4-114.8; layernorm_bwd 8192x3073 82.7-82.9 ->
  // 78.4, 16384x1025 74.5-74.6 -> 71.7-72.1; rmsnorm_bwd 8192x3073 74.1-74.2 -> 66.0-66.2).
  // Asking for two rows ahead tied or lost to one, three lost to none (the same file).
  const bool prefetch = read_phase_prefetch(v, op, asked, true);
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"phase_items", items_key},
                                   {"phase_grid", grid},
                                   {"phase_blocks_per_sm", per_sm_key},
                                   {"broken_phase_launch", broken}})
    if (!asked && value != "auto" && value != "none")
      fail(op, key + "=" + value + " needs schedule=phase");
  const int auto_items =
      schedule == "auto" && auto_free && forced_items == 0 && !bulk && elem == 2 &&
              s.rows >= kBackwardPhaseAutoMinRows && strides_misaligned(strides, elem) &&
              strides_share_phase(strides, elem)
          ? auto_phase_items(op, s.d)
          : 0;
  if (!asked && auto_items == 0) return {};
  if (asked && !auto_free)
    fail(op, "schedule=phase fixes its own chunk grid and keeps its column sums by its own rule: "
             "drop shift, broken_launch and partial_rows");
  const int items = items_key != "auto" ? std::stoi(items_key)
                    : forced_items != 0 ? forced_items
                    : auto_items != 0   ? auto_items
                                        : max_phase_items(op);
  if (items > max_phase_items(op))
    fail(op, "schedule=phase takes at most " + std::to_string(max_phase_items(op)) +
                 " chunks a thread (phase_items or items), got " + std::to_string(items));
  // One tile covers the row at any phase, in at most the launch bound's threads; a wider row takes
  // the register kernel, as the forward's schedule=phase does.
  const std::int64_t threads = whole_warp_threads(row_chunks(elem, s.d, true), items);
  if (threads > kPhaseMaxThreads) {
    if (broken != "none")
      fail(op, "broken_phase_launch=" + broken + " needs a row schedule=phase takes");
    return {};
  }
  BackwardPhasePlan plan;
  plan.phase = true;
  plan.items = items;
  plan.prefetch = prefetch;
  // The sums' slots (4 bytes a value of a thread's chunks), then the weight's (16 bytes a chunk).
  const std::int64_t values = items * (kChunkBytes / static_cast<std::int64_t>(elem));
  plan.shared_bytes = static_cast<std::uint32_t>(
      weighted ? threads * (sums * values * 4 + items * kChunkBytes) : 0);
  // About as many blocks as are resident, unless phase_blocks_per_sm pins them.
  const std::int64_t per_sm =
      per_sm_key != "auto"
          ? std::stoll(per_sm_key)
          : resident_blocks_per_sm(device, threads, plan.shared_bytes, kPhaseRegisters);
  set_phase_launch(op, elem, s, items, threads, per_sm, device, grid == "8", broken, g);
  if (broken == "short_weight") {
    if (!weighted) fail(op, "broken_phase_launch=short_weight needs a weight");
    plan.shared_bytes -= 16;
  }
  return plan;
}

}  // namespace ladder::kernels::detail
