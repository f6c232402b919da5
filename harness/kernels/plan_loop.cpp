// schedule=loop for layernorm, rmsnorm and add_rmsnorm (kernels/layernorm_loop.cuh,
// rmsnorm_loop.cuh, add_rmsnorm_loop.cuh): a block a row that streams the row from global memory
// once per pass, its first reads kept in L2 for the later ones.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "harness/core/dtype.h"
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

const std::vector<std::string> kLoopThreads{"auto", "64", "128", "256", "512", "1024"};
const std::vector<std::string> kLoopPasses{"auto", "2", "3"};
const std::vector<std::string> kLoopHold{"auto", "0", "2", "4", "8"};

// Where schedule=auto takes a streamed kernel, by op, dtype and chunks a row, at THREADS = chunks /
// 4 (one group of four chunks a thread) but where a neighbour measured faster, LayerNorm's three
// passes but for fp32 rows of 4096 chunks. Measured on the H200, cold, against the kernel auto
// took before, at rows x d = 16384x4096, 8192x8192, 4096x16384 and 2048x32768:
// - layernorm bf16 and fp32 (call 131, reports/h200/bench-loop-3.txt): bf16 16384x4096 71.7 us
//   against 73.1-73.2, 8192x8192 73.6-73.8 against 75.7-76.1; fp32 16384x4096 131.6 against
//   136.5, 8192x8192 130.9 against 142.5, 4096x16384 140.5 (two passes) against 150.0.
// - layernorm f16, rmsnorm bf16 and fp32, add_rmsnorm bf16 (call 133, bench-loop-5.txt, two
//   repeats): layernorm f16 16384x4096 70.5-70.8 against 71.8, 8192x8192 72.5-72.6 against
//   74.0-74.3; rmsnorm bf16 16384x4096 68.9-69.0 against 70.3-70.6, 8192x8192 68.7-69.1 against
//   69.8-70.1, 2048x32768 73.7 (512 threads, two groups a thread) against 75.7-76.1; rmsnorm fp32
//   16384x4096 130.4-130.8 against 135.7-135.8, 8192x8192 130.0 against 134.1-134.3; add_rmsnorm
//   bf16 16384x4096 129.3-129.8 (256 threads; 128: 130.1-130.4) against 133.1-133.2, 8192x8192
//   130.7-130.8 against 136.4-136.7, 4096x16384 130.9-131.1 against 137.2-137.6.
// - rmsnorm f16, add_rmsnorm f16 and fp32 (call 134, bench-loop-6.txt, two repeats): rmsnorm
//   f16 16384x4096 68.4-68.5 against 70.2-70.3, 8192x8192 68.8-68.9 against 69.8-70.0,
//   2048x32768 73.2-73.4 against 75.6-76.0; add_rmsnorm f16 16384x4096 128.9 (256 threads)
//   against 134.6-135.2, 8192x8192 130.9-131.0 against 136.2-136.5, 4096x16384 130.9-131.2
//   against 137.3-137.4; add_rmsnorm fp32 16384x4096 257.3-257.5 against 265.3-265.4, 8192x8192
//   255.0-255.3 against 266.8-267.1, 2048x32768 363.7-363.8 (512 threads, four groups a thread)
//   against 402.3-402.8.
// The widths left out tied or lost: LayerNorm at 16-bit 4096x16384, 16-bit 2048x32768 but
// rmsnorm's (add_rmsnorm bf16 143.8 against 136.5), fp32 4096x16384 but LayerNorm's, and fp32
// 2048x32768 but add_rmsnorm's.
// Call 137 (bench-loop-8.txt) raised the 16-bit RMSNorm's launch bound to 1536 / THREADS blocks an
// SM, level or faster at every entry above, and measured RMSNorm 16-bit rows of 2048 chunks
// (4096x16384, 512 threads) at 68.6-69.0 us against the row kernel's 71.1-71.4: in the table
// since call 138, whose verify ran that plan at the grid's 4096-row shapes.
// Call 149 (bench-loop-occupancy.txt, two repeats, cold) measured the streamed LayerNorm whose
// 16-bit builds give each kind of launch its own body at 1536 thread slots an SM (three 512-thread
// rows, 40 registers) against the kernels auto took: bf16 4096x16384 at 512 threads, three passes,
// 73.1-73.2 us against the row kernel's 77.6-78.2, so 16-bit rows of 2048 chunks joined the
// table; 2048x32768 79.7-80.3 against the bulk kernel's 80.5-81.5, a tie (bulk kept).
// Call 238 (bench-keep-238.txt, two rounds, cold) measured 16-bit RMSNorm rows of 128 chunks held
// in registers (loop_hold=2 at 64 threads, kernels/held_row.cuh) against the two-rows-a-thread
// kernel auto took: bf16 65536x1024 67.7-67.8 us against 69.5-69.6, f16 67.8 against 69.4-69.5,
// 16384x1024 21.5-21.9 against 22.0; calls 236-237 had the held rows tie or lose at 512-2048
// chunks (RMSNorm) and lose for LayerNorm.
// Call 260 (reports/h100/bench-alts-260.txt, on an H100, two rounds, cold) measured 16-bit
// LayerNorm rows of 128 chunks held the same way (loop_hold=2 at 64 threads, three passes over the
// held chunks; 40 registers and no spills since stream_block_sum) against the register kernel auto
// took: bf16 65536x1024 93.4 us against 94.2-94.4, f16 93.5 against 94.1-94.4; call 261 (H100,
// reports/h100/bench-261.txt, three rounds) 95.1 against 95.5, 16384x1024 -1.3% (f16 -0.5%,
// -1.9%). Not yet timed on an H200.
// Rows below kLoopAutoMinRows were not measured, nor other widths.
struct LoopAuto {
  const char* op;
  DType dtype;
  std::int64_t chunks;
  int threads, passes;
  int hold = 0;
};
constexpr LoopAuto kLoopAuto[] = {
    {"layernorm", DType::BF16, 512, 128, 3},   {"layernorm", DType::BF16, 1024, 256, 3},
    {"layernorm", DType::BF16, 2048, 512, 3},
    {"layernorm", DType::F16, 512, 128, 3},    {"layernorm", DType::F16, 1024, 256, 3},
    {"layernorm", DType::F16, 2048, 512, 3},
    {"layernorm", DType::F32, 1024, 256, 3},   {"layernorm", DType::F32, 2048, 512, 3},
    {"layernorm", DType::F32, 4096, 512, 2},
    {"layernorm", DType::BF16, 128, 64, 3, 2}, {"layernorm", DType::F16, 128, 64, 3, 2},
    {"rmsnorm", DType::BF16, 128, 64, 2, 2},   {"rmsnorm", DType::F16, 128, 64, 2, 2},
    {"rmsnorm", DType::BF16, 512, 128, 2},     {"rmsnorm", DType::BF16, 1024, 256, 2},
    {"rmsnorm", DType::BF16, 2048, 512, 2},    {"rmsnorm", DType::BF16, 4096, 512, 2},
    {"rmsnorm", DType::F16, 512, 128, 2},      {"rmsnorm", DType::F16, 1024, 256, 2},
    {"rmsnorm", DType::F16, 2048, 512, 2},     {"rmsnorm", DType::F16, 4096, 512, 2},
    {"rmsnorm", DType::F32, 1024, 256, 2},     {"rmsnorm", DType::F32, 2048, 512, 2},
    {"add_rmsnorm", DType::BF16, 512, 256, 2}, {"add_rmsnorm", DType::BF16, 1024, 256, 2},
    {"add_rmsnorm", DType::BF16, 2048, 512, 2}, {"add_rmsnorm", DType::F16, 512, 256, 2},
    {"add_rmsnorm", DType::F16, 1024, 256, 2}, {"add_rmsnorm", DType::F16, 2048, 512, 2},
    {"add_rmsnorm", DType::F32, 1024, 256, 2}, {"add_rmsnorm", DType::F32, 2048, 512, 2},
    {"add_rmsnorm", DType::F32, 8192, 512, 2},
};

LoopChoice loop_auto(VariantReader& v, const std::string& op, DType dt, const Shape& s,
                     bool misaligned) {
  const std::size_t elem = size_of(dt);
  if (misaligned || s.rows < kLoopAutoMinRows ||
      s.d * static_cast<std::int64_t>(elem) % kChunkBytes != 0 || !v.names_only(kScheduleNeutralKeys))
    return {};
  const std::int64_t chunks = row_chunks(elem, s.d, false);
  for (const LoopAuto& a : kLoopAuto)
    if (op == a.op && a.dtype == dt && a.chunks == chunks) {
      v.resolve_auto("schedule", "loop");
      return {a.threads, a.passes, a.hold};
    }
  return {};
}

int loop_default_threads(std::size_t elem_size, std::int64_t d) {
  // Four chunks a thread in one group: the narrowest power of two that takes the row so, from
  // 128 to 512 threads (wider blocks measured slower at every shape: calls 130-131).
  const std::int64_t chunks = row_chunks(elem_size, d, false);
  return static_cast<int>(std::clamp<std::int64_t>(pow2_at_least(ceil_div(chunks, 4)), 128, 512));
}

std::string loop_hold_arg(const LoopPlan& plan) {
  return plan.hold > 0 ? ", " + std::to_string(plan.hold) : "";
}

LoopPlan read_loop(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem_size,
                   const Shape& s, bool other_schedule, const LoopChoice& auto_choice,
                   const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const std::string threads_key = v.get("loop_threads", "auto", kLoopThreads);
  const std::string passes_key = v.get("loop_passes", "auto", kLoopPasses);
  const std::string grid_key = v.get("loop_grid", "auto", {"auto", "rows", "resident", "3"});
  const std::string hold_key = v.get("loop_hold", "auto", kLoopHold);
  for (const auto& [key, value] : {std::pair{"loop_threads", threads_key},
                                   std::pair{"loop_passes", passes_key},
                                   std::pair{"loop_grid", grid_key},
                                   std::pair{"loop_hold", hold_key}})
    if (value != "auto" && (other_schedule || schedule != "loop"))
      fail(op, std::string(key) + "=" + value + " needs schedule=loop");
  if (op != "layernorm" && passes_key != "auto")
    fail(op, "loop_passes=" + passes_key + " is LayerNorm's (the other streamed kernels read their rows twice)");
  if (op == "add_rmsnorm" && hold_key != "auto" && hold_key != "0")
    fail(op, "loop_hold=" + hold_key + " is RMSNorm's and LayerNorm's (add_rmsnorm normalizes the unrounded sum, "
                 "which a held packed row would not keep)");
  if (hold_key != "auto" && hold_key != "0" && passes_key == "2")
    fail(op, "loop_hold=" + hold_key + " takes the exact statistics of loop_passes=3");
  LoopPlan plan;
  const bool auto_takes = auto_choice.threads != 0;
  if (other_schedule || schedule != "loop") return plan;
  plan.loop = true;
  plan.threads = threads_key != "auto" ? std::stoi(threads_key)
                 : auto_takes         ? auto_choice.threads
                                      : loop_default_threads(elem_size, s.d);
  plan.passes = op != "layernorm"     ? 2
                : passes_key != "auto" ? std::stoi(passes_key)
                : auto_takes           ? auto_choice.passes
                                       : 3;
  plan.hold = hold_key != "auto" ? std::stoi(hold_key) : auto_takes && threads_key == "auto" ? auto_choice.hold : 0;
  if (plan.hold > 0) plan.passes = op == "layernorm" ? 3 : plan.passes;
  g.items = 4;
  g.threads_per_row = plan.threads;
  g.rows_per_block = 1;
  g.streams = true;
  const std::int64_t rows = std::max<std::int64_t>(1, s.rows);
  if (grid_key == "3")
    g.blocks = std::min<std::int64_t>(rows, 3);
  else if (grid_key == "resident")
    g.blocks = std::min<std::int64_t>(rows, device.sm_count * resident_blocks_per_sm(device, plan.threads, 0));
  else
    g.blocks = rows;
  return plan;
}

}  // namespace ladder::kernels::detail
