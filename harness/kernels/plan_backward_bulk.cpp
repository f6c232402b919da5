// schedule=bulk for the backward ops (kernels/layernorm_bwd_bulk.cuh, rmsnorm_bwd_bulk.cuh): their
// input rows copied whole into shared-memory stages by the Tensor Memory Accelerator, several rows
// ahead of the one being differentiated, with the weight-gradient sums in registers.
#include <algorithm>
#include <string>
#include <vector>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

const std::vector<std::string> kItems{"auto", "1", "2", "4"};
const std::vector<std::string> kThreads{"auto", "32", "64", "128", "256", "512", "1024"};
const std::vector<std::string> kStages{"auto", "1", "2", "3", "4", "5", "6", "7", "8"};

// The most registers a thread may take under the kernel's launch bound (64 at ITEMS 1, else all
// that one block an SM leaves), for the blocks an SM holds; ptxas may take fewer (sm_90: 16-bit
// ITEMS 2 x 512 threads 128, 4 x 256 236; fp32 4 x 512 114).
int bulk_registers(int items, int threads) {
  return items == 1 ? 64 : std::min(255, 65536 / threads / 8 * 8);
}

}  // namespace

BulkPlan read_backward_bulk(VariantReader& v, const std::string& op, std::size_t elem_size,
                            const Shape& s, int tensors, bool misaligned, bool auto_free,
                            const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", {"auto", "regs", "bulk"});
  const std::string items_key = v.get("bulk_items", "auto", kItems);
  const std::string threads_key = v.get("bulk_threads", "auto", kThreads);
  const std::string stages_key = v.get("bulk_stages", "auto", kStages);
  const std::string grid_key = v.get("bulk_grid", "auto", {"auto", "3"});
  for (const auto& [key, value] : {std::pair{"bulk_items", items_key},
                                   std::pair{"bulk_threads", threads_key},
                                   std::pair{"bulk_stages", stages_key},
                                   std::pair{"bulk_grid", grid_key}})
    if (value != "auto" && schedule != "bulk")
      fail(op, std::string(key) + "=" + value + " needs schedule=bulk");
  BulkPlan plan;
  const std::int64_t chunks = row_chunks(elem_size, s.d, false);
  // auto: where the register kernel streams its rows (wider than 512 threads x 16 values), on the
  // bulk path at auto's ITEMS and block. The streamed register kernel adds each row into its
  // block's partial rows in global memory, and reads the row twice: bf16 2048x16384 took 718-720
  // us against the bulk kernel's 117-118 (call 153, reports/h200/bench-bwd-bulk.txt, two repeats,
  // cold). Where one tile holds the row the register kernel measured faster (bf16 4096x8192 71.0-71.7
  // against 73.7-81.3 at every ITEMS, 16384x4096 119.7 against 127.2-157.5) or level (fp32
  // 4096x8192 113.9-114.1 against 112.9-113.7).
  const std::int64_t stage_bytes = tensors * s.d * static_cast<std::int64_t>(elem_size);
  const std::int64_t max_stage_bytes = device.shared_per_block_optin - kStaticSharedReserve;
  const bool taken_by_auto = schedule == "auto" && auto_free && g.streams &&
                             device.compute_capability >= 90 && !misaligned &&
                             s.d * static_cast<std::int64_t>(elem_size) % kChunkBytes == 0 &&
                             chunks <= 4 * 1024 && stage_bytes <= max_stage_bytes;
  if (schedule != "bulk" && !taken_by_auto) return plan;
  if (device.compute_capability < 90)
    fail(op, "schedule=bulk needs sm_90 or later (the Tensor Memory Accelerator's bulk copies); "
             "this device is sm_" + std::to_string(device.compute_capability));
  plan.bulk = true;
  // ITEMS: pinned, or the fewest that cover the row with at most 1024 threads.
  plan.items = items_key != "auto" ? std::stoi(items_key)
               : chunks <= 1024    ? 1
               : chunks <= 2048    ? 2
                                   : 4;
  plan.threads = threads_key != "auto"
                     ? std::stoi(threads_key)
                     : std::clamp(pow2_at_least(ceil_div(chunks, plan.items)), 32, 1024);
  // The bulk path: rows and gamma on the 16-byte grid, d a whole number of chunks, a block that
  // covers the row, and one stage within a block's shared memory. Anything else runs the
  // kernel's element-by-element path, which takes no shared memory.
  const bool on_path = !misaligned && s.d * static_cast<std::int64_t>(elem_size) % kChunkBytes == 0 &&
                       static_cast<std::int64_t>(plan.threads) * plan.items >= chunks &&
                       stage_bytes > 0 && stage_bytes <= max_stage_bytes;
  const int registers = bulk_registers(plan.items, plan.threads);
  std::int64_t per_sm = resident_blocks_per_sm(device, plan.threads, kStaticSharedReserve, registers);
  if (on_path) {
    plan.stages = bulk_stage_count(op, stages_key, stage_bytes, "stages", device, per_sm);
    plan.shared_bytes = static_cast<std::uint32_t>(plan.stages * stage_bytes);
    per_sm = resident_blocks_per_sm(device, plan.threads, plan.shared_bytes + kStaticSharedReserve,
                                    registers);
  }
  set_bulk_geometry(plan, per_sm, s, grid_key, device, g);
  return plan;
}

}  // namespace ladder::kernels::detail
