// schedule=phase of the forward ops (kernels/phase_rows.cuh): rows off the 16-byte grid, each
// block walking only rows of one phase, one tile a row in registers, the weights read once a
// block into shared memory.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// Where auto takes it, and at which ITEMS: the fastest of ITEMS 1-4 at each width measured on
// the H200 (call 171, reports/h200/bench-phase-items-171.txt, bf16, 16384 rows, 8192 from
// d = 5125; cold), each against the plan auto took before. rmsnorm: 769 ITEMS 4 (23.3 us
// against 25.0), 1537 ITEMS 4 (41.5 against 55.3), 2049 ITEMS 3 (47.5 against 50.2), 3073
// ITEMS 4 (67.8 against 117.9), 5125 (57.0 against 59.1) and 8193 (87.7 against 93.6) ITEMS 4;
// not 1025, where ITEMS 2 beat the warp schedule at 16384 rows (34.6 against 36.3) and lost at
// 65536 (122.5 against 118.7: call 173, bench-phase-65536-173.txt). add_rmsnorm ITEMS 2 to 3073
// (1025: 51.5 against 78.0, and 187 against 276 at 65536 rows; 2049: 87.3 against 92.5; 3073:
// 125.7 against 226.9), ITEMS 3 beyond (5125: 109.4 against 111.1; 8193: 170.9 against 189.4).
// LayerNorm ITEMS 2 to 1537 (1025: 44.0 against 50.3), ITEMS 3 beyond (2049: 56.4 against 75.7;
// 5125: 68.5 against 87.5; 8193: 121.4 against 156.9); fp32 LayerNorm at the register
// geometry's ITEMS (1025: 52.9 against 73.6; 2049: 122.5 against 130.4; 5125: 126.5 against
// 149.8).
constexpr std::int64_t kPhaseAutoMinRows = 4096;
constexpr std::int64_t kPhaseAutoMinD = 769, kPhaseAutoMaxD = 8193;
constexpr std::int64_t kPhaseAutoMinDFloat = 1025, kPhaseAutoMaxDFloat = 5125;

// ITEMS auto takes for 16-bit rows of d (-1: not taken; 0: the register geometry's).
int phase_auto_items(const std::string& op, std::size_t elem_size, std::int64_t d) {
  if (elem_size == 4)
    return op == "layernorm" && d >= kPhaseAutoMinDFloat && d <= kPhaseAutoMaxDFloat ? 0 : -1;
  if (d < kPhaseAutoMinD || d > kPhaseAutoMaxD) return -1;
  if (op == "add_rmsnorm") return d <= 3073 ? 2 : 3;
  if (op == "layernorm") return d <= 1537 ? 2 : 3;
  if (d > 1017 && d <= 1273) return -1;  // rmsnorm
  if (d > 2041 && d <= 2297) return 3;
  return 4;
}

}  // namespace

double phase_auto_tile_use(const std::string& op, std::size_t elem_size, std::int64_t d) {
  const int items = phase_auto_items(op, elem_size, d);
  if (items <= 0) return 0.0;
  const std::int64_t chunks = row_chunks(elem_size, d, true);
  return static_cast<double>(chunks) /
         static_cast<double>(whole_warp_threads(chunks, items) * items);
}

int phase_auto(VariantReader& v, const std::string& op, std::size_t elem_size, const Shape& s,
               const std::map<std::string, std::int64_t>& strides) {
  if (s.rows < kPhaseAutoMinRows || !strides_misaligned(strides, elem_size) ||
      !strides_share_phase(strides, elem_size) || !v.names_only(kScheduleNeutralKeys))
    return -1;
  const int items = phase_auto_items(op, elem_size, s.d);
  if (items >= 0) v.resolve_auto("schedule", "phase");
  return items;
}

bool read_phase_prefetch(VariantReader& v, const std::string& op, bool phase_asked,
                         bool auto_value) {
  std::vector<std::string> values{"auto"};
  for (const char* value : kPhasePrefetchValues) values.push_back(value);
  const std::string key = v.get("phase_prefetch", "auto", values);
  if (key != "auto" && !phase_asked) fail(op, "phase_prefetch=" + key + " needs schedule=phase");
  return key == "auto" ? auto_value : key == "1";
}

std::string phase_prefetch_arg(bool prefetch) { return prefetch ? ", true" : ""; }

PhasePlan read_phase(VariantReader& v, const std::string& op,
                     const std::vector<std::string>& schedules, std::size_t elem_size,
                     const Shape& s, int forced_items, int auto_items, int weights,
                     bool other_schedule, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  // A small fixed grid, for tests: eight blocks (one a phase of 16-bit rows) each walk many rows.
  const std::string grid = v.get("phase_grid", "auto", {"auto", "8"});
  if (grid != "auto" && schedule != "phase") fail(op, "phase_grid=" + grid + " needs schedule=phase");
  // A launch the kernels must refuse, for probes/selftest.json: a grid that is not a multiple of
  // VEC (some phase would have no block, its rows unwritten) or a block one warp too narrow for
  // a tile at every phase. Each traps (a crash) where a silent launch would leave columns or rows
  // unwritten. Its own key: the staged schedule's broken_launch values differ.
  const std::string broken =
      v.get("broken_phase_launch", "none", {"none", "grid_off_vec", "narrow_tile"});
  if (broken != "none" && schedule != "phase")
    fail(op, "broken_phase_launch=" + broken + " needs schedule=phase");
  // auto asks the L2 for the row after the one loaded in fp32 LayerNorm only: the H200 measured
  // it faster there and slower in 16 bits, where the rows are already loaded one ahead (call
  // 188, reports/h200/bench-prefetch-188.txt, cold, two repeats: LayerNorm fp32 16384x2049
  // 108.4-109.0 us -> 102.2-102.6, and 109.1 with two rows asked for; bf16 16384x2049 rmsnorm
  // 45.3-45.4 -> 46.3-46.5, add_rmsnorm 91.4-92.1 -> 99.5-99.9, LayerNorm 55.8-56.2 -> 57.1-57.2;
  // 8192 rows alike).
  const bool prefetch =
      read_phase_prefetch(v, op, schedule == "phase", op == "layernorm" && elem_size == 4);
  // Every way out to another kernel: a broken launch asked of it is a plan error.
  auto refuse = [&]() {
    if (broken != "none")
      fail(op, "broken_phase_launch=" + broken + " needs a shape schedule=phase takes");
    return PhasePlan{};
  };
  if (other_schedule || schedule != "phase") return refuse();
  // One tile covers the row at any phase; rows wider than a tile of 1024 threads at the allowed
  // ITEMS take the register kernel, as schedule=staged does where it cannot apply.
  const std::int64_t chunks = row_chunks(elem_size, s.d, true);
  const int items = forced_items != 0 ? forced_items
                    : auto_items > 0  ? auto_items
                    : g.streams       ? 0
                                      : g.items;
  if (items == 0) return refuse();
  const std::int64_t threads = whole_warp_threads(chunks, items);
  if (threads > 1024) return refuse();
  // The weights' slots must fit a block's shared memory (the device's opt-in maximum less the
  // kernel's static shared memory): LayerNorm fp32 rows of 32765 at ITEMS 8 need 256 KiB.
  const std::int64_t bytes = std::int64_t{std::max(weights, 1)} * items * threads * kChunkBytes;
  if (bytes > device.shared_per_block_optin - kStaticSharedReserve) return refuse();
  PhasePlan plan;
  plan.phase = true;
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  plan.prefetch = prefetch;
  // The blocks resident at the launch bound's 64 registers.
  set_phase_launch(op, elem_size, s, items, threads,
                   resident_blocks_per_sm(device, threads, plan.shared_bytes, 64), device,
                   grid == "8", broken, g);
  return plan;
}

void set_phase_launch(const std::string& op, std::size_t elem_size, const Shape& s, int items,
                      std::int64_t threads, std::int64_t blocks_per_sm, const DeviceLimits& device,
                      bool eight_blocks, const std::string& broken, RowGeometry& g) {
  g.items = items;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  // Each block walks rows blockIdx.x + k * gridDim.x within its phase; a multiple of VEC, so
  // every phase has as many blocks; no more than the rows need.
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  const std::int64_t blocks =
      eight_blocks ? 8
                   : std::min(blocks_per_sm * device.sm_count / vec * vec, ceil_div(s.rows, vec) * vec);
  g.blocks = std::max(vec, blocks);
  if (broken == "grid_off_vec") g.blocks += 1;
  if (broken == "narrow_tile") narrow_by_one_warp(op, "broken_phase_launch", g);
}

}  // namespace ladder::kernels::detail
