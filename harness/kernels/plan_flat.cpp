// schedule=flat (kernels/flat_rows.cuh): packed rows off the 16-byte grid read as one flat array
// of segments of S rows, every access a whole 16-byte one; rmsnorm and rmsnorm_bwd.
#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// The forward's launch bound (norm::kFlatMaxThreads) and the registers ptxas gives its 16-bit
// builds under it (sm_90); the backward's bounds (its MAX_THREADS, MIN_BLOCKS).
constexpr std::int64_t kFlatMaxThreads = 544;
constexpr int kForwardRegisters = 96;
constexpr std::int64_t kBackwardNarrowBound = 288;

// d mod VEC values the kernels are built for: those whose thread window (VEC + R * (S - 1)
// columns) stays within 16.
bool flat_remainder_built(std::size_t elem, std::int64_t r) {
  if (elem == 4) return r >= 1 && r <= 3;
  return r == 1 || r == 2 || r == 4;
}

// norm::FlatShape<T, R> on the host.
struct FlatShapeHost {
  std::int64_t vec, rows, window;
  FlatShapeHost(std::size_t elem, std::int64_t r) {
    vec = kChunkBytes / static_cast<std::int64_t>(elem);
    rows = vec / std::gcd(r, vec);
    window = vec + r * (rows - 1);
  }
};

// norm::FlatBackwardSlots<T, R>::bytes on the host: the partial row (d floats, rounded up to a
// chunk) and each main thread's weight and sum windows.
std::uint32_t flat_backward_shared_bytes(std::size_t elem, std::int64_t d, std::int64_t main_threads) {
  const FlatShapeHost f(elem, d % (kChunkBytes / static_cast<std::int64_t>(elem)));
  return static_cast<std::uint32_t>(4 * ((d + 3) / 4 * 4 + 2 * f.window * main_threads));
}

// The registers a thread of a backward build takes (ptxas, sm_90, 16-bit): all it needs (168)
// unless the bound's minimum blocks cap it.
int backward_registers(std::int64_t bound, int min_blocks) {
  const std::int64_t cap = 65536 / (bound * min_blocks) / 8 * 8;
  return static_cast<int>(std::min<std::int64_t>(168, cap));
}

// Where auto takes the TMA build: 16-bit packed rows off the grid where the H200 measured it
// faster than auto's plan before (call 202, reports/h200/bench-flat-widths-202.txt, bf16, cold,
// two repeats, flat against auto, us):
// - rmsnorm, d = 1025-1281 (against the warp and phase schedules), from 4096 rows: 16384x1025
//   29.1-29.5 against 36.1-36.3, 16384x1026 28.8-29.1 against 36.3-36.5, 16384x1028 28.5-28.6
//   against 36.2-36.4, 16384x1153 35.6-35.7 against 37.6-38.0, 16384x1281 34.6 against 36.4-36.6,
//   8192x1025 18.1 against 21.3, 4096x1025 12.3 against 15.0 (f16 16384x1025 29.0 against 35.9).
//   Not at 769 or 897 (25.5-26.0 against 24.4, 27.7 against 25.9-27.0), 1537 (2%), 1794, 2049-2052
//   (49-53 against 45-46), 3074 (a tie) or 4100 (104 against 83).
// - rmsnorm_bwd, d mod 8 of 2 or 4 and d = 1026-2052 but for the phase kernels' span 1530-1785
//   (not timed against them), from 8192 rows: 16384x1026 45.5-46.1
//   against 59.5-60.4, 16384x1028 52.6 against 60.0, 16384x1794 66.5-66.8 against 69.6-70.1,
//   16384x2050 76.6-77.3 against 84.5-84.6, 16384x2052 80.1-80.3 against 84.7-84.9, 8192x2050 46.3
//   against 51.6 (f16 16384x2050 75.7 against 84.3). Not at d mod 8 of 1 (2049: 104 against 85;
//   1281, 1537 slower; 1025 and 1153 within 3%), 2306 (101-102 against 86.5), 3074 (a tie); 4100
//   (159 against 196) is a single width, left out.
// - rmsnorm, from 8192 rows with d mod 8 of 1 or 4, where the phase kernel auto takes otherwise
//   would fill at most 76% of its tile's chunk slots (d = 2298-2329 and 3066-3105 at its ITEMS;
//   call 221, reports/h200/bench-flat-widths-221.txt, after the flat stores became whole 16-byte
//   ones, call 218): 16384x2305 50.0-50.1 against 54.1, 16384x3073 63.1-63.2 against 66.6-66.8,
//   8192x3073 37.3-37.4 against 38.3, 16384x3076 60.6-61.2 against 65.9-66.2 (f16 16384x3073 63.0
//   against 67.2). Not where the tile is fuller (2049 46.4-46.7 against 45.2-45.3, call 220;
//   2561 within 1%; 2817, 3329, 3585, 5121-8193 slower; 4097 a tie), at d mod 8 of 2 (3074 68.9
//   against 66.7, 2306 2% faster) or from 4096 rows only (4096x3073 a tie).
constexpr std::int64_t kForwardAutoMinRows = 4096, kForwardAutoMinD = 1025, kForwardAutoMaxD = 1281;
// From d = 2298, the widths call 221 measured: 769 and 1537 also leave a quarter of their phase
// tiles empty, and there the flat build measured slower in call 202 (before its whole stores).
constexpr std::int64_t kForwardSparseTileMinRows = 8192, kForwardSparseTileMinD = 2298;
constexpr double kForwardSparseTileMaxUse = 0.76;
constexpr std::int64_t kBackwardAutoMinRows = 8192, kBackwardAutoMinD = 1026, kBackwardAutoMaxD = 2052;
constexpr std::int64_t kBackwardPhaseSpanFirst = 1530, kBackwardPhaseSpanLast = 1785;

// The table above for 16-bit packed rows of s, r = d mod 8.
bool forward_flat_measured_faster(const std::string& op, std::size_t elem, const Shape& s,
                                  std::int64_t r) {
  if (s.rows >= kForwardAutoMinRows && flat_remainder_built(elem, r) && s.d >= kForwardAutoMinD &&
      s.d <= kForwardAutoMaxD)
    return true;
  if (s.rows < kForwardSparseTileMinRows || (r != 1 && r != 4) || s.d < kForwardSparseTileMinD)
    return false;
  const double use = phase_auto_tile_use(op, elem, s.d);  // 0: no phase kernel at this width
  return use > 0.0 && use <= kForwardSparseTileMaxUse;
}

bool backward_flat_measured_faster(const Shape& s, std::int64_t r) {
  return s.rows >= kBackwardAutoMinRows && (r == 2 || r == 4) && s.d >= kBackwardAutoMinD &&
         s.d <= kBackwardAutoMaxD && (s.d < kBackwardPhaseSpanFirst || s.d > kBackwardPhaseSpanLast);
}

}  // namespace

bool flat_auto(VariantReader& v, const std::string& op, std::size_t elem, const Shape& s,
               const std::map<std::string, std::int64_t>& strides, bool backward,
               const DeviceLimits& device) {
  if (elem != 2 || device.compute_capability < 90 || !v.names_only(kScheduleNeutralKeys)) return false;
  if (!strides_dense(strides, s.d)) return false;
  const std::int64_t r = s.d % 8;
  const bool taken = backward ? backward_flat_measured_faster(s, r)
                              : forward_flat_measured_faster(op, elem, s, r);
  if (taken) v.resolve_auto("schedule", "flat");
  return taken;
}

std::vector<std::int64_t> flat_compile_widths(std::size_t elem) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem);
  std::vector<std::int64_t> out;
  for (std::int64_t r = 1; r < vec; ++r)
    if (flat_remainder_built(elem, r)) out.push_back(64 * vec + r);
  return out;
}

FlatPlan read_flat(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem, const Shape& s,
                   const std::map<std::string, std::int64_t>& strides, bool backward,
                   const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  // For tuning: blocks an SM (the resident blocks by default), the L2 asked for the next segment,
  // and the backward's launch bound and whether dy is read again in the second pass.
  const std::string per_sm_key = v.get("flat_blocks_per_sm", "auto", {"auto", "1", "2", "3", "4"});
  const std::string prefetch_key = v.get("flat_prefetch", "1", {"0", "1"});
  // flat_bulk: the segments copied into shared memory by the TMA (sm_90; flat_bulk.cuh), through
  // flat_stages stages.
  const std::string bulk_key = v.get("flat_bulk", "auto", {"auto", "0", "1"});
  const std::string stages_key = v.get("flat_stages", "auto", {"auto", "2", "3", "4"});
  // A launch the kernels must refuse, for probes/selftest.json: a block one warp narrower than its
  // main threads and edge warp (narrow_tile), or (the register backward) 16 bytes less shared
  // memory than its partial row and windows (short_shared). Each traps where a silent launch
  // would leave chunks unwritten or run its sums past the block's memory.
  const std::string broken = v.get("broken_flat_launch", "none", {"none", "narrow_tile", "short_shared"});
  std::string min_blocks_key = "2", reload_key = "0";
  if (backward) {
    min_blocks_key = v.get("flat_min_blocks", "2", {"1", "2", "3"});
    reload_key = v.get("flat_reload", "0", {"0", "1"});
  }
  if (schedule != "flat") {
    for (const auto& [key, value, dflt] :
         {std::tuple<std::string, std::string, std::string>{"flat_blocks_per_sm", per_sm_key, "auto"},
          {"flat_prefetch", prefetch_key, "1"},
          {"flat_bulk", bulk_key, "auto"},
          {"flat_stages", stages_key, "auto"},
          {"flat_min_blocks", min_blocks_key, "2"},
          {"flat_reload", reload_key, "0"},
          {"broken_flat_launch", broken, "none"}})
      if (value != dflt) fail(op, key + "=" + value + " needs schedule=flat");
    return {};
  }
  // Where the layout does not apply (rows on the grid, strided rows, a remainder the kernels are
  // not built for, rows wider than the bound's 512 main threads), the register kernel runs, as
  // schedule=phase does where it cannot apply.
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem);
  const std::int64_t r = s.d % vec;
  const std::int64_t span = s.d / vec;
  const std::int64_t main_threads = ceil_div(span, 32) * 32;
  const std::int64_t threads = main_threads + 32;
  if (!strides_dense(strides, s.d) || !flat_remainder_built(elem, r) || span < 8 || threads > kFlatMaxThreads) {
    if (broken != "none") fail(op, "broken_flat_launch=" + broken + " needs a shape schedule=flat takes");
    return {};
  }
  FlatPlan plan;
  plan.flat = true;
  plan.remainder = static_cast<int>(r);
  plan.prefetch = prefetch_key == "1";
  plan.bound = threads <= kBackwardNarrowBound ? kBackwardNarrowBound : kFlatMaxThreads;
  plan.min_blocks = std::stoi(min_blocks_key);
  plan.reload = reload_key == "1";
  plan.shared_bytes = backward ? flat_backward_shared_bytes(elem, s.d, main_threads) : 0;
  const FlatShapeHost f(elem, r);
  int registers = backward ? backward_registers(plan.bound, plan.min_blocks) : kForwardRegisters;
  if (bulk_key == "1" && device.compute_capability < 90)
    fail(op, "flat_bulk=1 needs sm_90 or later (the Tensor Memory Accelerator's bulk copies); this "
             "device is sm_" + std::to_string(device.compute_capability));
  if (bulk_key == "1" || (bulk_key == "auto" && device.compute_capability >= 90)) {
    // A stage holds a segment of each tensor the kernel reads; at least two stages, so that the
    // next segment is in flight while one is worked on, else the register kernel above.
    const std::int64_t stage = (backward ? 2 : 1) * f.rows * s.d * static_cast<std::int64_t>(elem);
    const std::int64_t room = device.shared_per_block_optin - kStaticSharedReserve - plan.shared_bytes;
    const std::int64_t want = stages_key != "auto" ? std::stoll(stages_key) : backward ? 2 : 3;
    const std::int64_t stages = std::min(want, room / stage);
    if (stages >= 2) {
      plan.bulk = true;
      plan.shared_bytes += static_cast<std::uint32_t>(stages * stage);
      registers = 64;
    } else if (bulk_key == "1") {
      fail(op, "flat_bulk=1: two stages of " + std::to_string(stage) +
                   " bytes do not fit the block's shared memory");
    }
  }
  const std::int64_t per_sm = per_sm_key != "auto"
                                  ? std::stoll(per_sm_key)
                                  : resident_blocks_per_sm(device, threads, plan.shared_bytes, registers);
  const std::int64_t segments = ceil_div(s.rows, f.rows);
  g.items = 1;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(1, std::min(per_sm * device.sm_count, segments));
  if (broken == "narrow_tile") narrow_by_one_warp(op, "broken_flat_launch", g);
  if (broken == "short_shared") {
    if (!backward || plan.bulk) fail(op, "broken_flat_launch=short_shared needs rmsnorm_bwd with flat_bulk=0");
    plan.shared_bytes -= 16;
  }
  return plan;
}

std::vector<std::string> backward_schedules(const std::string& op) {
  std::vector<std::string> out{"auto", "regs", "bulk", "phase"};
  if (op == "rmsnorm_bwd") out.push_back("flat");
  return out;
}

std::string flat_entry(const std::string& kernel, DType dt, const FlatPlan& plan, bool backward) {
  std::string args = dtype_template_name(dt) + ", " + std::to_string(plan.remainder);
  if (plan.bulk) return "ladder::" + kernel + "_bulk<" + args + ">";
  const std::string flag = plan.prefetch ? "true" : "false";
  if (backward)
    args += ", " + std::to_string(plan.bound) + ", " + std::to_string(plan.min_blocks) + ", " +
            (plan.reload ? "true" : "false");
  return "ladder::" + kernel + "<" + args + ", " + flag + ">";
}

}  // namespace ladder::kernels::detail
