// schedule=bulk for the backward ops (kernels/layernorm_bwd_bulk.cuh, rmsnorm_bwd_bulk.cuh): their
// input rows copied whole into shared-memory stages by the Tensor Memory Accelerator, several rows
// ahead of the one being differentiated, with the weight-gradient sums in registers.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_backward_readers.h"
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// The most registers a thread may take under the kernel's launch bound (64 at ITEMS 1, else all
// that one block an SM leaves), for the blocks an SM holds; ptxas may take fewer (sm_90: 16-bit
// ITEMS 2 x 512 threads 128, 4 x 256 236; fp32 4 x 512 114).
int bulk_registers(int items, int threads) {
  return items == 1 ? 64 : std::min(255, 65536 / threads / 8 * 8);
}

}  // namespace

BulkPlan read_backward_bulk(VariantReader& v, const std::string& op, std::size_t elem_size,
                            const Shape& s, int tensors, bool weighted, bool misaligned,
                            bool auto_free, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", backward_schedules(op));
  const BulkKeys keys = read_bulk_keys(v, op, schedule == "bulk");
  // bulk_cluster: the blocks of a cluster that split each row's columns (two; four measured
  // slower at every shape, call 179: layernorm_bwd f16 1024x32768 226 us against 91.6).
  const std::string cluster_key = v.get("bulk_cluster", "auto", {"auto", "1", "2"});
  if (cluster_key != "auto" && schedule != "bulk")
    fail(op, "bulk_cluster=" + cluster_key + " needs schedule=bulk");
  // cluster_exchange: how a cluster's blocks exchange their row sums (kernels/cluster_sum.cuh):
  // async (st.async into each other's shared memory) or barrier (a cluster barrier a sum). auto:
  // async, measured faster at every cluster plan by 4-19% (call 214,
  // reports/h200/bench-cluster-async-214.txt, two rounds, cold) but layernorm_bwd fp32
  // 1024x16384, where the machines disagree: async reads 73.7-75.2 us on each (calls 214-216),
  // the barrier 70.4-70.7 on some (calls 180, 209, 214) and 77.3-79.1 on others (calls 215-216,
  // bench-cluster-plans-215.txt and bench-fp32-clusters-216.txt, two rounds each).
  const std::string exchange_key =
      v.get("cluster_exchange", "auto", {"auto", "async", "barrier"});
  // bulk_pool: the blocks of a cluster that each take whole rows and pool their weight-gradient
  // sums into one partial row through distributed shared memory (kernels/cluster_pool.cuh), so
  // that a launch writes, and column_sum reads, half the partial rows. auto: below, after ITEMS.
  const std::string pool_key = v.get("bulk_pool", "auto", {"auto", "1", "2"});
  if (pool_key != "auto" && schedule != "bulk")
    fail(op, "bulk_pool=" + pool_key + " needs schedule=bulk");
  if (pool_key == "2" && cluster_key == "2")
    fail(op, "bulk_pool=2 takes whole rows a block; it cannot split them (bulk_cluster=2)");
  BulkPlan plan;
  plan.pool = pool_key == "2" ? 2 : 1;
  const std::int64_t row_chunk_count = row_chunks(elem_size, s.d, false);
  // auto: where the register kernel streams its rows (wider than 512 threads x 16 values), on the
  // bulk path at auto's ITEMS and block. The streamed register kernel adds each row into its
  // block's partial rows in global memory, and reads the row twice: bf16 2048x16384 took 718-720
  // us against the bulk kernel's 117-118 (call 153, reports/h200/bench-bwd-bulk.txt, two repeats,
  // cold). Where one tile holds the row the register kernel measured faster (bf16 4096x8192 71.0-71.7
  // against 73.7-81.3 at every ITEMS, 16384x4096 119.7 against 127.2-157.5) or level (fp32
  // 4096x8192 113.9-114.1 against 112.9-113.7).
  // Rows the bulk path can serve, given a block that covers them: on the 16-byte grid, d a whole
  // number of chunks, and one stage within a block's shared memory. Anything else runs the
  // kernel's element-by-element path, which takes no shared memory.
  // auto's cluster: two blocks a row where one block would hold more than 2048 chunks of it
  // (16-bit d = 32768, fp32 16384), in 1024 threads at 64 registers, which layernorm_bwd's
  // dgamma and dbeta sums alone fill; each of two blocks then holds half, in 512 threads.
  // Measured on the H200 (calls 179-180, reports/h200/bench-cluster-179.txt and -180.txt, two
  // repeats, cold), one block a row against two: layernorm_bwd f16 1024x32768 174.4-174.7 us
  // against 91.4-91.8, bf16 183.1-183.2 against 86.7-87.2, fp32 1024x16384 80.9-81.2 against
  // 70.3-70.8; rmsnorm_bwd bf16 1024x32768 94.4-95.6 against 80.9-81.0; add_rmsnorm_bwd bf16
  // 149.5-149.8 against 127.8-128.8 (with dh 385.7-386.1 against 163.5-164.9), fp32
  // 120.6-121.0 against 115.7-116.8. rmsnorm_bwd fp32, whose single sum of 16 values a thread
  // fits one block, measured faster in one (72.0-72.9 against 79.1-80.6) while the cluster's
  // blocks met at a cluster barrier a row; with the st.async exchange (cluster_exchange) two
  // blocks took 66.0 us against one's 74.2 (call 215, reports/h200/bench-cluster-plans-215.txt)
  // and 67.1-67.7 against 73.8-74.1 (call 216, bench-fp32-clusters-216.txt, two rounds).
  // Where one block holds the row in 512 threads (bf16 d = 16384) two lost (layernorm_bwd 74.2
  // against 110.4-110.6 us; rmsnorm_bwd with the st.async exchange 77.5 against 67.3, call 215).
  const bool splits = row_chunk_count > 2048 && row_chunk_count % 2 == 0;
  plan.cluster = cluster_key != "auto" ? std::stoi(cluster_key) : splits && plan.pool == 1 ? 2 : 1;
  // A block's slice of the row: the whole row, or 1 / cluster of it.
  const std::int64_t cols = s.d / plan.cluster;
  const std::int64_t chunks = row_chunk_count / plan.cluster;
  const std::int64_t stage_bytes = tensors * cols * static_cast<std::int64_t>(elem_size);
  const bool rows_on_path = !misaligned &&
                            s.d * static_cast<std::int64_t>(elem_size) % (kChunkBytes * plan.cluster) == 0 &&
                            stage_bytes > 0 &&
                            stage_bytes <= device.shared_per_block_optin - kStaticSharedReserve;
  const bool taken_by_auto = schedule == "auto" && auto_free && g.streams &&
                             device.compute_capability >= 90 && rows_on_path &&
                             row_chunk_count <= 4 * 1024;
  const bool taken = schedule == "bulk" || taken_by_auto;
  if (!taken) plan.cluster = plan.pool = 1;
  if (exchange_key != "auto" && plan.cluster == 1)
    fail(op, "cluster_exchange=" + exchange_key + " needs rows split over a cluster (bulk_cluster=2)");
  plan.async_sums = exchange_key != "barrier";
  if (!taken) return plan;
  require_bulk_copies(op, device);
  plan.bulk = true;
  // ITEMS: pinned, or one chunk a thread up to 1024 chunks, else four (512 threads up to 2048
  // chunks, 1024 beyond). At 2048 chunks four a thread in 512 threads (128 registers, no spills)
  // beat two in 1024 (64 registers, which LayerNorm's build spills inside its row loop; call
  // 159, reports/h200/bench-bwd-bulk-block.txt, two repeats, cold): layernorm_bwd bf16
  // 2048x16384 77.0-77.1 us against 94.2-94.5, with recomputed statistics 77.3 against 107.3,
  // f16 81.7-81.9 against 90.6-90.7; add_rmsnorm_bwd bf16 113.9-114.9 against 117.4, f16
  // 112.7-113.4 against 118.9-120.0; rmsnorm_bwd level (bf16 68.7-69.4 against 69.2).
  plan.items = keys.items != "auto" ? std::stoi(keys.items) : chunks <= 1024 ? 1 : 4;
  plan.threads = keys.threads != "auto"
                     ? std::stoi(keys.threads)
                     : std::clamp(pow2_at_least(ceil_div(chunks, plan.items)), 32, 1024);
  // auto pools layernorm_bwd's 16-bit rows of 1025-2048 chunks a block (ITEMS 4 in 512 threads),
  // whose two gradients' partial rows it halves; the other ops and fp32 measured level or slower
  // (call 233, reports/h200/bench-pool-233.txt, two rounds, cold): layernorm_bwd bf16 2048x16384 74.5-74.8 us
  // -> 69.7-70.2, 4096x16384 121.9-122.3 -> 116.5 (reduce=grid 74.7-75.2 -> 69.2-69.7); rmsnorm_bwd
  // bf16 2048x16384 66.8 -> 68.4-68.5, 4096x16384 113.6 -> 119.5; add_rmsnorm_bwd 0.98-1.015;
  // layernorm_bwd fp32 2048x8192 64.3 -> 67.8.
  // Without gamma and beta there are no gradients to pool.
  if (pool_key == "auto" && op == "layernorm_bwd" && weighted && elem_size == 2 && plan.cluster == 1 &&
      chunks > 1024 && chunks <= 2048 && plan.items >= 2 && plan.threads >= 256)
    plan.pool = 2;
  // The pooled entries are built at the widths where one block an SM holds a wide row's sums.
  if (plan.pool > 1 && (plan.items < 2 || plan.threads < 256))
    fail(op, "bulk_pool=2 is built for bulk_items 2 or 4 and bulk_threads 256-1024; this plan has " +
                 std::to_string(plan.items) + " and " + std::to_string(plan.threads) +
                 " (pin bulk_items and bulk_threads, or rows of more than 1024 chunks)");
  const bool on_path =
      rows_on_path && static_cast<std::int64_t>(plan.threads) * plan.items >= chunks;
  const int registers = bulk_registers(plan.items, plan.threads);
  std::int64_t per_sm = resident_blocks_per_sm(device, plan.threads, kStaticSharedReserve, registers);
  if (on_path) {
    plan.stages = bulk_stage_count(op, keys.stages, stage_bytes, "stages", device, per_sm);
    // The weight row (gamma, w) goes after the stages where it fits (norm::stage_weight): auto
    // gives it the last stage where two or more remain beside it; else the kernel reads it from
    // global memory at each use, 13% slower (rmsnorm_bwd bf16 2048x16384, call 156).
    const std::int64_t weight_bytes = weighted ? cols * static_cast<std::int64_t>(elem_size) : 0;
    const std::int64_t room = bulk_room(device, per_sm);
    const std::int64_t beside = std::min<std::int64_t>(plan.stages, (room - weight_bytes) / stage_bytes);
    const bool weight_staged = weighted && (keys.stages != "auto"
                                   ? plan.stages * stage_bytes + weight_bytes <= room
                                   : beside >= std::min(2, plan.stages));
    if (weight_staged) plan.stages = static_cast<int>(beside);
    plan.shared_bytes = static_cast<std::uint32_t>(plan.stages * stage_bytes +
                                                   (weight_staged ? weight_bytes : 0));
    per_sm = resident_blocks_per_sm(device, plan.threads, plan.shared_bytes + kStaticSharedReserve,
                                    registers);
  }
  set_bulk_geometry(plan, per_sm, s, keys.grid, device, g);
  return plan;
}

}  // namespace ladder::kernels::detail
