// schedule=bulk for layernorm (kernels/layernorm_bulk.cuh): rows copied whole into shared-memory
// stages by the Tensor Memory Accelerator, several rows ahead of the one being normalized.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/core/dtype.h"
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

const std::vector<std::string> kBulkItems{"auto", "1", "2", "4"};
const std::vector<std::string> kBulkThreads{"auto", "32", "64", "128", "256", "512", "1024"};
const std::vector<std::string> kBulkStages{"auto", "1", "2", "3", "4", "5", "6", "7", "8"};

// The kernel's launch bound caps a thread at 64 registers (1024 / THREADS blocks an SM), and its
// static shared memory (reduce scratch and barriers) is 320 bytes: kStaticSharedReserve covers it.
constexpr int kBulkRegisters = 64;

// The blocks of `threads` an SM holds with `stage_bytes` of stages each.
std::int64_t bulk_blocks_per_sm(const DeviceLimits& device, int threads, std::int64_t stage_bytes) {
  return resident_blocks_per_sm(device, threads, stage_bytes + kStaticSharedReserve, kBulkRegisters);
}

// Where auto takes the bulk kernel, by dtype and 16-byte chunks a row. Measured on the H200 (call
// 145, reports/h200/bench-bulk-3.txt, two repeats, cold) against auto's kernel before it:
// layernorm bf16 2048x32768 82.1-82.8 us against the row kernel's 87.2-87.5 (clean L2:
// 77.8-78.5 against 84.3-84.6), f16 82.0-82.8 against 85.8-86.4. It lost at every narrower row
// (bf16 4096x16384 80.3-81.0 against 78.6-78.9, 16384x4096 81.7-82.2 against 71.6-72.0, 65536x1024
// 79.0-79.1 against 75.8-76.3) and for fp32 (4096x16384 149.4-150.1 against 139.7-139.8).
struct BulkAutoEntry {
  DType dtype;
  std::int64_t chunks;
};
constexpr BulkAutoEntry kBulkAuto[] = {{DType::BF16, 4096}, {DType::F16, 4096}};

}  // namespace

int bulk_stage_count(const std::string& op, const std::string& stages_key,
                     std::int64_t stage_bytes, const std::string& unit, const DeviceLimits& device,
                     std::int64_t& per_sm) {
  const std::int64_t max_stage_bytes = device.shared_per_block_optin - kStaticSharedReserve;
  if (stages_key != "auto") {
    const int stages = std::stoi(stages_key);
    if (stages * stage_bytes > max_stage_bytes)
      fail(op, "bulk_stages=" + stages_key + " " + unit + " of " + std::to_string(stage_bytes) +
                   " bytes exceed a block's " + std::to_string(max_stage_bytes) +
                   " bytes of shared memory");
    return stages;
  }
  // As many stages as the blocks the registers allow leave room for; fewer blocks where that is
  // under two stages (one in flight while the block works on another).
  for (;; --per_sm) {
    const int stages = static_cast<int>(
        std::min<std::int64_t>(kBulkMaxStages, bulk_room(device, per_sm) / stage_bytes));
    if (stages >= 2 || per_sm == 1) return stages;
  }
}

std::int64_t bulk_room(const DeviceLimits& device, std::int64_t per_sm) {
  const std::int64_t room = (device.shared_per_sm - kRuntimeSharedPerBlock) / per_sm -
                            kRuntimeSharedPerBlock - kStaticSharedReserve;
  return std::min(room, device.shared_per_block_optin - kStaticSharedReserve);
}

BulkKeys read_bulk_keys(VariantReader& v, const std::string& op, bool bulk) {
  BulkKeys k;
  k.items = v.get("bulk_items", "auto", kBulkItems);
  k.threads = v.get("bulk_threads", "auto", kBulkThreads);
  k.stages = v.get("bulk_stages", "auto", kBulkStages);
  k.grid = v.get("bulk_grid", "auto", {"auto", "3"});
  for (const auto& [key, value] : {std::pair{"bulk_items", k.items},
                                   std::pair{"bulk_threads", k.threads},
                                   std::pair{"bulk_stages", k.stages},
                                   std::pair{"bulk_grid", k.grid}})
    if (value != "auto" && !bulk) fail(op, std::string(key) + "=" + value + " needs schedule=bulk");
  return k;
}

void require_bulk_copies(const std::string& op, const DeviceLimits& device) {
  if (device.compute_capability < 90)
    fail(op, "schedule=bulk needs sm_90 or later (the Tensor Memory Accelerator's bulk copies); "
             "this device is sm_" + std::to_string(device.compute_capability));
}

void set_bulk_geometry(const BulkPlan& plan, std::int64_t per_sm, const Shape& s,
                       const std::string& grid_key, const DeviceLimits& device, RowGeometry& g) {
  g.items = plan.items;
  g.threads_per_row = plan.threads;
  g.rows_per_block = 1;
  g.streams = false;
  const std::int64_t rows = std::max<std::int64_t>(1, s.rows);
  // The grid's unit: a cluster (split or pooled), or a block. A split cluster takes a row at a
  // time, a pooled one a row a block.
  const std::int64_t unit = plan.cluster * plan.pool;
  const std::int64_t unit_rows = ceil_div(rows, plan.pool);
  const std::int64_t resident_units = std::max<std::int64_t>(1, device.sm_count * per_sm / unit);
  g.blocks = unit * (grid_key == "3" ? std::min<std::int64_t>(unit_rows, 3)
                                     : std::min<std::int64_t>(unit_rows, resident_units));
}

bool bulk_auto(VariantReader& v, const std::string& op, DType dt, const Shape& s, bool misaligned,
               const DeviceLimits& device) {
  const std::size_t elem = size_of(dt);
  if (op != "layernorm" || device.compute_capability < 90 || misaligned || s.rows < kLoopAutoMinRows ||
      s.d * static_cast<std::int64_t>(elem) % kChunkBytes != 0 || !v.names_only(kScheduleNeutralKeys))
    return false;
  const std::int64_t chunks = row_chunks(elem, s.d, false);
  for (const BulkAutoEntry& a : kBulkAuto)
    if (a.dtype == dt && a.chunks == chunks) {
      v.resolve_auto("schedule", "bulk");
      return true;
    }
  return false;
}

BulkPlan read_bulk(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem_size,
                   const Shape& s, bool misaligned, bool other_schedule,
                   const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const bool asked = !other_schedule && schedule == "bulk";
  const BulkKeys keys = read_bulk_keys(v, op, asked);
  BulkPlan plan;
  if (!asked) return plan;
  require_bulk_copies(op, device);
  plan.bulk = true;
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  const std::int64_t row_bytes = s.d * static_cast<std::int64_t>(elem_size);
  // ITEMS: pinned, or 4: fewer threads a row, each with more of it, measured faster at every
  // width (calls 143-144, reports/h200/bench-bulk.txt and bench-bulk-2.txt: bf16 16384x4096
  // 0.77-0.78 of the copy ceiling at ITEMS 4 against 0.56 at 1; 65536x1024 0.82 against 0.55;
  // 8192x8192 0.74 against 0.70 at 2 and 0.56 at 1). The row's per-thread costs (the barrier
  // wait, two block reductions) are paid once for ITEMS chunks.
  plan.items = keys.items != "auto" ? std::stoi(keys.items) : 4;
  plan.threads = keys.threads != "auto"
                     ? std::stoi(keys.threads)
                     : std::clamp(pow2_at_least(ceil_div(chunks, plan.items)), 32, 1024);
  // The bulk path: rows and weights on the 16-byte grid, d a whole number of chunks, a block
  // that covers the row, and at least one row of stages within a block's shared memory. Anything
  // else runs the kernel's element-by-element path, which takes no shared memory.
  const std::int64_t max_stage_bytes = device.shared_per_block_optin - kStaticSharedReserve;
  const bool on_path = !misaligned && row_bytes % kChunkBytes == 0 &&
                       static_cast<std::int64_t>(plan.threads) * plan.items >= chunks &&
                       row_bytes <= max_stage_bytes;
  std::int64_t per_sm = bulk_blocks_per_sm(device, plan.threads, 0);
  if (on_path) {
    plan.stages = bulk_stage_count(op, keys.stages, row_bytes, "rows", device, per_sm);
    plan.shared_bytes = static_cast<std::uint32_t>(plan.stages * row_bytes);
    per_sm = bulk_blocks_per_sm(device, plan.threads, plan.shared_bytes);
  }
  set_bulk_geometry(plan, per_sm, s, keys.grid, device, g);
  return plan;
}

}  // namespace ladder::kernels::detail
