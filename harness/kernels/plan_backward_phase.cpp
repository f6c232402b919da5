// schedule=phase of the backward ops (kernels/backward_phase.cuh): rows off the 16-byte grid,
// each block walking only the rows that share one phase, one tile a row in registers, the weight
// staged once a block in shared memory, the weight-gradient sums in registers.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_builder.h"
#include "harness/kernels/row_geometry.h"

namespace ladder::kernels::detail {
namespace {

// The most chunks a thread the kernels take without spilling (ptxas, sm_90, at the launch
// bound's 128 registers): rmsnorm_bwd three (ITEMS 4: 264 bytes), add_rmsnorm_bwd two (ITEMS 3:
// 64 bytes) and layernorm_bwd two (ITEMS 3, its dgamma and dbeta sums: 296 bytes).
int max_phase_items(const std::string& op) { return op == "rmsnorm_bwd" ? 3 : 2; }

// ITEMS auto takes: the most the op holds without spilling, so that a block is as narrow as its
// row allows.
int auto_phase_items(const std::string& op) { return max_phase_items(op); }

// Where auto takes it: 16-bit rows off the 16-byte grid, at least 4096 of them, whose strides keep
// every tensor on one phase, with no other schedule's key asked for.
constexpr std::int64_t kBackwardPhaseAutoMinRows = 4096;

// Registers a thread of the kernels' builds takes (ptxas, sm_90): the launch bound's 128 at two
// or more chunks a thread, which sets how many blocks an SM holds.
constexpr int kPhaseRegisters = 128;

}  // namespace

BackwardPhasePlan read_backward_phase(VariantReader& v, const std::string& op, std::size_t elem,
                                      const Shape& s,
                                      const std::map<std::string, std::int64_t>& strides,
                                      bool weighted, int forced_items, bool auto_free, bool bulk,
                                      const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", {"auto", "regs", "bulk", "phase"});
  const std::string items_key = v.get("phase_items", "auto", {"auto", "1", "2", "3"});
  // A small fixed grid, for tests: eight blocks (one a phase of 16-bit rows) walk every row.
  const std::string grid = v.get("phase_grid", "auto", {"auto", "8"});
  // Blocks an SM, for tuning: the resident blocks by default.
  const std::string per_sm_key = v.get("phase_blocks_per_sm", "auto", {"auto", "1", "2", "3", "4", "6"});
  // A launch the kernels must refuse, for probes/selftest.json: a grid off a multiple of VEC, a
  // block one warp too narrow for a tile at every phase, or 16 bytes too little shared memory for
  // the weight's slots. Each traps where a silent launch would leave rows or columns unwritten or
  // read the weight past the block's memory.
  const std::string broken =
      v.get("broken_phase_launch", "none", {"none", "grid_off_vec", "narrow_tile", "short_weight"});
  const bool asked = schedule == "phase";
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"phase_items", items_key},
                                   {"phase_grid", grid},
                                   {"phase_blocks_per_sm", per_sm_key},
                                   {"broken_phase_launch", broken}})
    if (!asked && value != "auto" && value != "none")
      fail(op, key + "=" + value + " needs schedule=phase");
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem);
  const bool taken_by_auto = schedule == "auto" && auto_free && !bulk && elem == 2 &&
                             s.rows >= kBackwardPhaseAutoMinRows &&
                             strides_misaligned(strides, elem) && strides_share_phase(strides, elem);
  if (!asked && !taken_by_auto) return {};
  if (asked && !auto_free)
    fail(op, "schedule=phase fixes its own chunk grid and keeps no column sums in shared memory: "
             "drop shift and broken_launch");
  const int items = items_key != "auto" ? std::stoi(items_key)
                    : forced_items != 0 ? forced_items
                                        : auto_phase_items(op);
  if (items > max_phase_items(op))
    fail(op, "schedule=phase takes at most " + std::to_string(max_phase_items(op)) +
                 " chunks a thread (phase_items or items), got " + std::to_string(items));
  // One tile covers the row at any phase, in at most the kernels' 512 threads; a wider row takes
  // the register kernel, as the forward's schedule=phase does.
  const std::int64_t threads = whole_warp_threads(row_chunks(elem, s.d, true), items);
  if (threads > 512) {
    if (broken != "none")
      fail(op, "broken_phase_launch=" + broken + " needs a row schedule=phase takes");
    return {};
  }
  BackwardPhasePlan plan;
  plan.phase = true;
  plan.items = items;
  plan.shared_bytes = weighted ? static_cast<std::uint32_t>(items * threads * kChunkBytes) : 0u;
  g.items = items;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  // About as many blocks as are resident, each walking rows blockIdx.x + k * gridDim.x within
  // its phase; a multiple of VEC, so every phase has as many blocks; no more than the rows need.
  const std::int64_t per_sm =
      per_sm_key != "auto"
          ? std::stoll(per_sm_key)
          : resident_blocks_per_sm(device, threads, plan.shared_bytes, kPhaseRegisters);
  const std::int64_t blocks = grid == "8" ? 8
                                          : std::min(per_sm * device.sm_count / vec * vec,
                                                     (s.rows + vec - 1) / vec * vec);
  g.blocks = std::max(vec, blocks);
  if (broken == "grid_off_vec") g.blocks += 1;
  if (broken == "narrow_tile") narrow_by_one_warp(op, "broken_phase_launch", g);
  if (broken == "short_weight") {
    if (plan.shared_bytes == 0) fail(op, "broken_phase_launch=short_weight needs a weight");
    plan.shared_bytes -= 16;
  }
  return plan;
}

}  // namespace ladder::kernels::detail
