// The staged schedule of the forward kernels (kernels/staged_common.cuh): its geometry, shared
// memory and grid, and when a planner takes it.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

constexpr int kPreferredItems = 4;

}  // namespace

const std::vector<std::string> kStagedSchedules{"auto", "regs", "staged", "wide", "warp", "packed", "decode", "row", "loop", "phase"};
const std::vector<std::string> kRmsnormSchedules{"auto", "regs", "staged", "rows2", "rows4", "wide", "warp", "packed", "decode", "row", "loop", "phase", "flat"};

StagedPlan read_staged(VariantReader& v, const std::string& op, std::size_t elem_size,
                       int tensors, const Shape& s, bool misaligned, int forced_items,
                       const std::vector<int>& allowed, const DeviceLimits& device,
                       RowGeometry& g, bool rows_schedules) {
  const std::string schedule =
      v.get("schedule", "auto", rows_schedules ? kRmsnormSchedules : kStagedSchedules);
  const std::string stages = v.get("stages", "auto", {"auto", "2", "3"});
  // A small fixed grid, for tests: each block then walks many rows through every stage.
  const std::string blocks = v.get("blocks", "auto", {"auto", "1", "3", "7"});
  // A launch the staged kernels must refuse, for probes/selftest.json: a block one warp too
  // narrow for the row, or two row groups in a block. Each kernel traps on it (a crash), where
  // a silent launch would leave columns or rows unwritten.
  const std::string broken = v.get("broken_launch", "none", {"none", "narrow_tile", "two_row_groups"});
  StagedPlan plan;
  int items = forced_items;
  bool wanted = schedule == "staged";
  if (schedule == "auto" && forced_items == 0 && s.rows >= 2 * std::int64_t{device.sm_count}) {
    // Where the H200 measured the staged schedule faster (reports/h200/sweep-staged.txt): 16-bit
    // rows that take a whole 1024-thread block in registers, one block an SM with nothing to
    // overlap (rmsnorm bf16 2048x32768: 0.84 of the copy ceiling against 0.71; add_rmsnorm f16
    // 4096x16384: 0.88 against 0.78), and fp32 rows off the 16-byte grid, which the
    // register kernel gathers at its ends (add_rmsnorm 8192x2049: 0.77 against 0.63; rmsnorm
    // 16384x2049: 0.71 against 0.57). Elsewhere the register kernels measured as fast or faster.
    if (elem_size == 2 && g.threads_per_row == 1024) {
      wanted = true;
    } else if (elem_size == 4 && misaligned) {
      wanted = true;
      items = 2;
    }
  }
  // Every way out to the register kernels: a broken launch asked of them is a plan error.
  auto registers = [&]() {
    if (broken != "none")
      throw std::invalid_argument(op + ": broken_launch=" + broken +
                                  " needs a shape the staged schedule takes (schedule=staged)");
    return plan;
  };
  if (!wanted) return registers();

  // One tile must cover the row at any phase its rows can have.
  const std::int64_t chunks = row_chunks(elem_size, s.d, misaligned);
  if (items == 0) {
    items = allowed.front();
    for (int a : allowed)
      if (a <= kPreferredItems) items = a;
  }
  // Rows too wide for one tile of 1024 threads, or for two stages in a block's shared memory,
  // take the register kernels: schedule=staged asks for it wherever it applies.
  const std::int64_t threads = whole_warp_threads(chunks, items);
  if (threads > 1024) return registers();
  const std::int64_t per_stage = threads * items * kChunkBytes * tensors;
  // The driver refuses dynamic shared memory above the block's opt-in maximum less the
  // kernel's static shared memory (the launch fails); kStaticSharedReserve keeps room for it.
  // The opt-in maximum is the device's: 227 KiB on sm_90, 163 KiB on sm_80, where three 64 KiB
  // stages (rmsnorm bf16 d = 32768) do not fit and two do.
  const std::int64_t available = device.shared_per_block_optin - kStaticSharedReserve;
  // Three stages (two rows ahead) wherever they fit a block: measured faster than two at
  // d = 16384 (add_rmsnorm bf16 4096x16384: 0.90 of the copy ceiling against 0.84).
  int n = stages == "auto" ? 3 : std::stoi(stages);
  if (stages == "auto" && n * per_stage > available) n = 2;
  const std::int64_t bytes = n * per_stage;
  if (bytes > available) return registers();
  plan.staged = true;
  plan.stages = n;
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  // About as many blocks as are resident: each walks rows blockIdx.x + k * gridDim.x.
  const std::int64_t per_sm = resident_blocks_per_sm(device, threads, bytes);
  g.items = items;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  if (broken == "narrow_tile") narrow_by_one_warp(op, "broken_launch", g);
  if (broken == "two_row_groups") g.rows_per_block = 2;
  g.blocks = blocks == "auto" ? std::max<std::int64_t>(1, std::min<std::int64_t>(s.rows, per_sm * device.sm_count))
                              : std::stoi(blocks);
  return plan;
}

}  // namespace ladder::kernels::detail
