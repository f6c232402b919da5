// schedule=phase of the backward ops (kernels/backward_phase.cuh): rows off the 16-byte grid,
// each block walking only the rows that share one phase, one tile a row in registers, the weight
// staged once a block in shared memory, the weight-gradient sums in registers.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_builder.h"
#include "harness/kernels/row_geometry.h"

namespace ladder::kernels::detail {
namespace {

// The most chunks a thread the kernels take without spilling (ptxas, sm_90). Under the 512-thread
// bound (128 registers): rmsnorm_bwd three (ITEMS 4: 264 bytes), add_rmsnorm_bwd two (ITEMS 3:
// 64 bytes) and layernorm_bwd two (ITEMS 3, its dgamma and dbeta sums: 296 bytes). Under the
// 1024-thread bound (64 registers, the sums in shared memory): rmsnorm_bwd two (ITEMS 3: 68
// bytes), add_rmsnorm_bwd one (ITEMS 2: 148 bytes), layernorm_bwd two (with recomputed
// statistics 12 bytes).
int max_phase_items(const std::string& op, int bound) {
  if (bound > 512) return op == "add_rmsnorm_bwd" ? 1 : 2;
  return op == "rmsnorm_bwd" ? 3 : 2;
}

// ITEMS auto takes: the most the op holds without spilling, so that a block is as narrow as its
// row allows.
int auto_phase_items(const std::string& op, int bound) { return max_phase_items(op, bound); }

// Where auto takes it: 16-bit rows off the 16-byte grid, at least 4096 of them, whose strides keep
// every tensor on one phase, with no other schedule's key asked for.
constexpr std::int64_t kBackwardPhaseAutoMinRows = 4096;

// Registers a thread of the kernels' builds takes (ptxas, sm_90): all the launch bound allows
// (128 under 512 threads, 64 under 1024), which sets how many blocks an SM holds.
int phase_registers(int bound) { return 65536 / bound; }

}  // namespace

BackwardPhasePlan read_backward_phase(VariantReader& v, const std::string& op, std::size_t elem,
                                      const Shape& s,
                                      const std::map<std::string, std::int64_t>& strides,
                                      bool weighted, int sums, int forced_items, bool auto_free,
                                      bool bulk, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", {"auto", "regs", "bulk", "phase"});
  const std::string items_key = v.get("phase_items", "auto", {"auto", "1", "2", "3"});
  // A small fixed grid, for tests: eight blocks (one a phase of 16-bit rows) walk every row.
  const std::string grid = v.get("phase_grid", "auto", {"auto", "8"});
  // The launch bound: 512 (sums in registers, rows loaded ahead) or 1024 (LEAN: 64 registers, the
  // sums in shared memory).
  const std::string bound_key = v.get("phase_bound", "auto", {"auto", "512", "1024"});
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
                                   {"phase_bound", bound_key},
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
  const int bound = bound_key == "1024" ? 1024 : 512;
  const int items = items_key != "auto" ? std::stoi(items_key)
                    : forced_items != 0 ? forced_items
                                        : auto_phase_items(op, bound);
  if (items > max_phase_items(op, bound))
    fail(op, "schedule=phase takes at most " + std::to_string(max_phase_items(op, bound)) +
                 " chunks a thread (phase_items or items) under a " + std::to_string(bound) +
                 "-thread bound, got " + std::to_string(items));
  // One tile covers the row at any phase, in at most the launch bound's threads; a wider row takes
  // the register kernel, as the forward's schedule=phase does.
  const std::int64_t threads = whole_warp_threads(row_chunks(elem, s.d, true), items);
  if (threads > bound) {
    if (broken != "none")
      fail(op, "broken_phase_launch=" + broken + " needs a row schedule=phase takes");
    return {};
  }
  BackwardPhasePlan plan;
  plan.phase = true;
  plan.items = items;
  plan.bound = bound;
  // LEAN: the sums' slots (4 bytes a value of a thread's chunks), then the weight's.
  const std::int64_t vec_values = kChunkBytes / static_cast<std::int64_t>(elem);
  const std::int64_t sums_bytes = bound > 512 && weighted ? sums * items * threads * vec_values * 4 : 0;
  plan.shared_bytes = static_cast<std::uint32_t>(
      sums_bytes + (weighted ? items * threads * kChunkBytes : 0));
  g.items = items;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  // About as many blocks as are resident, each walking rows blockIdx.x + k * gridDim.x within
  // its phase; a multiple of VEC, so every phase has as many blocks; no more than the rows need.
  const std::int64_t per_sm =
      per_sm_key != "auto"
          ? std::stoll(per_sm_key)
          : resident_blocks_per_sm(device, threads, plan.shared_bytes, phase_registers(bound));
  const std::int64_t blocks = grid == "8" ? 8
                                          : std::min(per_sm * device.sm_count / vec * vec,
                                                     (s.rows + vec - 1) / vec * vec);
  g.blocks = std::max(vec, blocks);
  if (broken == "grid_off_vec") g.blocks += 1;
  if (broken == "narrow_tile") narrow_by_one_warp(op, "broken_phase_launch", g);
  if (broken == "short_weight") {
    if (!weighted) fail(op, "broken_phase_launch=short_weight needs a weight");
    plan.shared_bytes -= 16;
  }
  return plan;
}

}  // namespace ladder::kernels::detail
