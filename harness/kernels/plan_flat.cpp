// schedule=flat (kernels/flat_rows.cuh): packed rows off the 16-byte grid read as one flat array
// of segments of S rows, every access a whole 16-byte one; rmsnorm and rmsnorm_bwd.
#include <algorithm>
#include <numeric>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// The kernels' launch bound, and the registers a thread may take under it (ptxas, sm_90: the
// 16-bit builds use all 128).
constexpr std::int64_t kFlatMaxThreads = 512;
constexpr int kFlatRegisters = 128;

// d mod VEC values the kernels are built for: those whose thread window (VEC + R * (S - 1)
// columns) stays within 16 (the weight window sits in registers).
bool flat_remainder_built(std::size_t elem, std::int64_t r) {
  if (elem == 4) return r >= 1 && r <= 3;
  return r == 1 || r == 2 || r == 4;
}

// norm::FlatShape<T, R> on the host.
struct FlatShapeHost {
  std::int64_t vec, rows, extra, low, window, wrap;
  FlatShapeHost(std::size_t elem, std::int64_t r) {
    vec = kChunkBytes / static_cast<std::int64_t>(elem);
    const std::int64_t g = std::gcd(r, vec);
    rows = vec / g;
    extra = r / g;
    low = r * (rows - 1);
    window = vec + low;
    wrap = r * rows;
  }
};

}  // namespace

std::vector<std::int64_t> flat_compile_widths(std::size_t elem) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem);
  std::vector<std::int64_t> out;
  for (std::int64_t r = 1; r < vec; ++r)
    if (flat_remainder_built(elem, r)) out.push_back(64 * vec + r);
  return out;
}

std::uint32_t flat_backward_shared_bytes(std::size_t elem, std::int64_t d, std::int64_t threads) {
  const FlatShapeHost f(elem, d % (kChunkBytes / static_cast<std::int64_t>(elem)));
  return static_cast<std::uint32_t>(
      4 * ((d + 3) / 4 * 4 + 2 * f.window * threads + 2 * f.extra * f.wrap));
}

FlatPlan read_flat(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem, const Shape& s,
                   const std::map<std::string, std::int64_t>& strides, bool backward,
                   const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  // Blocks an SM, for tuning: the resident blocks by default.
  const std::string per_sm_key = v.get("flat_blocks_per_sm", "auto", {"auto", "1", "2", "3", "4"});
  if (per_sm_key != "auto" && schedule != "flat")
    fail(op, "flat_blocks_per_sm=" + per_sm_key + " needs schedule=flat");
  if (schedule != "flat") return {};
  // Where the layout does not apply (rows on the grid, strided rows, a remainder the kernels are
  // not built for, rows narrower than a warp's chunks or wider than the bound's), the register
  // kernel runs, as schedule=phase does where it cannot apply.
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem);
  const std::int64_t r = s.d % vec;
  const std::int64_t span = s.d / vec;
  const bool dense = std::all_of(strides.begin(), strides.end(),
                                 [&](const auto& kv) { return kv.second == s.d; });
  const std::int64_t threads = ceil_div(span, 32) * 32;
  if (!dense || !flat_remainder_built(elem, r) || span < 32 || threads > kFlatMaxThreads) return {};
  FlatPlan plan;
  plan.flat = true;
  plan.remainder = static_cast<int>(r);
  plan.shared_bytes = backward ? flat_backward_shared_bytes(elem, s.d, threads) : 0;
  const FlatShapeHost f(elem, r);
  const std::int64_t per_sm = per_sm_key != "auto"
                                  ? std::stoll(per_sm_key)
                                  : resident_blocks_per_sm(device, threads, plan.shared_bytes,
                                                           kFlatRegisters);
  const std::int64_t segments = ceil_div(s.rows, f.rows);
  g.items = 1;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(1, std::min(per_sm * device.sm_count, segments));
  return plan;
}

std::vector<std::string> backward_schedules(const std::string& op) {
  std::vector<std::string> out{"auto", "regs", "bulk", "phase"};
  if (op == "rmsnorm_bwd") out.push_back("flat");
  return out;
}

std::string flat_entry(const std::string& kernel, DType dt, const FlatPlan& plan) {
  return "ladder::" + kernel + "<" + dtype_template_name(dt) + ", " +
         std::to_string(plan.remainder) + ">";
}

}  // namespace ladder::kernels::detail
