// Planners for the backward kernels (rmsnorm_bwd, add_rmsnorm_bwd, layernorm_bwd). Each weight
// gradient takes two launches: the row kernel writing one fp32 partial row per block into
// scratch, then column_sum adding them in order (plan_column_sum.cpp).
#include <algorithm>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "harness/kernels/plan_backward_readers.h"
#include "harness/kernels/plan_builder.h"
#include "harness/kernels/plan_column_sum.h"
#include "harness/kernels/planners.h"

namespace ladder::kernels::detail {
namespace {

const std::vector<std::string> kWeightModes = {"none", "plain", "gemma"};
const std::vector<std::string> kStrided = {"0", "1", "odd"};
const std::vector<std::string> kFlag = {"0", "1"};

const std::vector<std::string> kShift = {"auto", "0", "1"};
// layernorm_bwd's statistics: the forward pass's saved mean and rstd (as torch's native
// LayerNorm backward takes them; one reduction a row), or recomputed from x (two).
const std::vector<std::string> kStats = {"saved", "recompute"};

// The kernels' SHIFTED parameter (kernels/backward_common.cuh): rows off the 16-byte grid run
// on a chunk grid shifted by each row group's phase; aligned rows take the unshifted kernel,
// which spends no registers on a phase.
// layernorm_bwd's RECOMPUTE parameter follows it (`recompute`): a separate kernel, since one
// kernel choosing at run time between saved and recomputed statistics spilled.
std::string entry(const std::string& kernel, DType dt, int items, bool shifted,
                  bool recompute = false) {
  const std::string tail = recompute ? (shifted ? ", true, true" : ", false, true")
                                     : (shifted ? ", true" : "");
  return "ladder::" + kernel + "<" + dtype_template_name(dt) + ", " + std::to_string(items) +
         tail + ">";
}

// The phase kernel's entry (kernels/backward_phase.cuh): ITEMS, layernorm_bwd_phase's RECOMPUTE
// (`has_recompute`), then PREFETCH; trailing defaults left out.
std::string phase_entry(const std::string& kernel, DType dt, const BackwardPhasePlan& phase,
                        bool has_recompute = false, bool recompute = false) {
  const std::string recompute_arg =
      has_recompute && (recompute || phase.prefetch) ? (recompute ? ", true" : ", false") : "";
  return "ladder::" + kernel + "<" + dtype_template_name(dt) + ", " + std::to_string(phase.items) +
         recompute_arg + phase_prefetch_arg(phase.prefetch) + ">";
}

double weight_mode_code(const std::string& weight) {
  return weight == "none" ? 0 : weight == "plain" ? 1 : 2;
}

// Rows after which every row tensor is back at the same offset inside a 16-byte chunk: the
// largest of 16 / gcd(16, stride bytes) over the tensors (all powers of two).
std::int64_t phase_period(const std::map<std::string, std::int64_t>& strides, std::size_t elem) {
  std::int64_t period = 1;
  for (const auto& [name, stride] : strides)
    period = std::max(period, 16 / std::gcd<std::int64_t>(16, stride * static_cast<std::int64_t>(elem)));
  return period;
}

struct BackwardPlan {
  RowGeometry g;
  bool shifted = false;
};

// A fixed grid, each block looping over rows; never more blocks than row groups, so every block
// owns at least one row and writes its whole partial row. shift: "auto" (shifted exactly when
// a stride is off the 16-byte grid), "0" (the unshifted kernel: misaligned rows are gathered),
// "1" (the shifted kernel, without the grid rounding below, so the rows of a group may differ
// in phase and take the kernel's per-row fallback; for tests).
BackwardPlan backward_geometry(std::size_t elem, const Shape& s,
                               const std::map<std::string, std::int64_t>& strides,
                               const RowLimits& limits, int forced, const std::string& shift) {
  BackwardPlan p;
  const bool misaligned = strides_misaligned(strides, elem);
  p.shifted = shift == "1" || (shift == "auto" && misaligned);
  // A shifted row may need one chunk more than an aligned one.
  p.g = choose_row_geometry(elem, s.rows, s.d, p.shifted, limits, forced);
  if (forced == 0) {
    // The grid is resident blocks only, so a block shape that fills the SM's thread budget
    // poorly idles it for the whole kernel (8192x2049 bf16: 288 threads a row leave one block,
    // 288 threads, an SM, 0.15 of the copy ceiling). Score each spill-free ITEMS by the share of
    // the SM's threads its blocks fill times the share of their columns the row uses; the
    // default choice wins ties.
    auto score = [&](const RowGeometry& g) {
      const std::int64_t threads = std::int64_t{g.threads_per_row} * g.rows_per_block;
      const std::int64_t filled =
          std::max<std::int64_t>(1, kBackwardThreadsPerSm / threads) * threads;
      const double use = static_cast<double>(s.d + (p.shifted ? g.vec - 1 : 0)) /
                         static_cast<double>(std::int64_t{g.threads_per_row} * g.items * g.vec);
      return std::min(1.0, use) *
             static_cast<double>(std::min<std::int64_t>(filled, kBackwardThreadsPerSm)) /
             kBackwardThreadsPerSm;
    };
    const int spill_free =
        elem == 4 ? limits.spill_free_values_fp32 : limits.spill_free_values_16bit;
    double best = score(p.g);
    for (int items : allowed_items(elem, limits)) {
      if (items * p.g.vec > spill_free || items == p.g.items) continue;
      const RowGeometry alt = choose_row_geometry(elem, s.rows, s.d, p.shifted, limits, items);
      if (alt.streams && !p.g.streams) continue;
      if (const double sc = score(alt); sc > best + 0.02) {
        best = sc;
        p.g = alt;
      }
    }
  }
  RowGeometry& g = p.g;
  // Resident blocks on the device planned for (limits.sm_count: with_device).
  const std::int64_t block_threads = std::int64_t{g.threads_per_row} * g.rows_per_block;
  const std::int64_t resident =
      std::int64_t{limits.sm_count} * std::max<std::int64_t>(1, kBackwardThreadsPerSm / block_threads);
  g.blocks = std::max<std::int64_t>(1, std::min(g.blocks, resident));
  // The grid's row step (blocks x rows per block) must keep every group's rows at the phase of
  // its first row, or they fall back to element-wise access.
  if (shift == "auto" && p.shifted && g.blocks * g.rows_per_block < s.rows) {
    const std::int64_t period = phase_period(strides, elem);
    const std::int64_t k = period / std::gcd<std::int64_t>(period, g.rows_per_block);
    g.blocks = std::max(k, g.blocks / k * k);
  }
  return p;
}

// schedule=auto|regs|bulk (read_backward_bulk): the bulk-copy kernel's plan, which replaces the
// register kernel's geometry in `plan` where taken. `tensors`: the input rows a stage holds;
// `weighted`: whether the launch passes a weight row (gamma, w). The register kernel's own keys
// (items, and where `register_keys_free` is false shift, broken_launch or partial_rows) leave auto
// to it and are errors with schedule=bulk.
BulkPlan read_bulk_schedule(VariantReader& v, const std::string& op, std::size_t elem,
                            const Shape& s, int tensors, bool weighted,
                            const std::map<std::string, std::int64_t>& strides, int forced,
                            bool register_keys_free, const DeviceLimits& device,
                            BackwardPlan& plan) {
  const bool auto_free = forced == 0 && register_keys_free;
  const BulkPlan bulk = read_backward_bulk(v, op, elem, s, tensors, weighted,
                                           strides_misaligned(strides, elem), auto_free, device,
                                           plan.g);
  if (bulk.bulk) {
    if (!auto_free)
      fail(op, "schedule=bulk takes its geometry from bulk_items and bulk_threads and keeps no "
               "column sums in shared memory: drop items, shift, broken_launch and partial_rows");
    plan.shifted = false;
  }
  return bulk;
}

// The weight-gradient partial rows a backward launch writes: one a block, or one a cluster where
// its blocks split the rows' columns or pool their sums (bulk.cluster and bulk.pool are 1 for
// every other plan).
std::int64_t partial_rows_of(const RowGeometry& g, const BulkPlan& bulk) {
  return g.blocks / (bulk.cluster * bulk.pool);
}

// The bulk kernel's entry; a plan with clusters takes its _cluster entry, with their size last
// (and `false` after it where the cluster's blocks exchange their sums through a barrier), and a
// pooled plan its _pooled entry, with the pool last.
std::string bulk_entry(const std::string& kernel, DType dt, const BulkPlan& bulk) {
  std::string suffix, last;  // the entry's name suffix and its template arguments after THREADS
  if (bulk.pool > 1) {
    suffix = "_pooled";
    last = ", " + std::to_string(bulk.pool);
  } else if (bulk.cluster > 1) {
    suffix = "_cluster";
    last = ", " + std::to_string(bulk.cluster) + (bulk.async_sums ? "" : ", false");
  }
  return "ladder::" + kernel + suffix + "<" + dtype_template_name(dt) + ", " + std::to_string(bulk.items) +
         ", " + std::to_string(bulk.threads) + last + ">";
}

ConcreteBuffer rows_by_d(const std::string& name, BufferRole role, DType dt, const Shape& s,
                         std::int64_t stride) {
  return matrix(name, role, dt, s.rows, s.d, stride, "normal");
}

}  // namespace

RowLimits backward_row_limits() {
  RowLimits limits;
  limits.max_values_per_thread = 16;
  limits.spill_free_values_16bit = 16;
  limits.spill_free_values_fp32 = 16;
  limits.max_threads_per_row = 512;  // the kernels' __launch_bounds__
  limits.latency_threads_per_row = 512;
  return limits;
}

std::vector<KernelLaunch> plan_rmsnorm_bwd(const KernelRef& ref, const Case& c, const Scalars& sc,
                                           const DeviceLimits& device) {
  const std::string op = "rmsnorm_bwd";
  VariantReader v(op, ref.variant);
  const std::string weight = v.get("weight", "plain", kWeightModes);
  const std::string strided = v.get("strided", "0", kStrided);
  const std::string shift = v.get("shift", "auto", kShift);
  const bool programmatic = read_programmatic(v);
  const bool global_partials = read_global_partials(v);
  const std::size_t elem = io_elem_size(op, ref.dtype);
  const RowLimits limits = with_device(backward_row_limits(), device);
  const int forced = v.items(elem, limits);
  const Shape s = read_shape(op, c);
  const double eps = read_eps(op, sc);
  const bool has_w = weight != "none";

  auto strides = row_strides(op, c, {"x", "dy", "dx"}, strided, s.d);
  BackwardPlan plan = backward_geometry(elem, s, strides, limits, forced, shift);
  // Where auto takes the flat array (plan_flat.cpp's table), the other schedules step aside.
  const bool register_keys_free = shift == "auto" && !global_partials;
  if (register_keys_free && forced == 0) flat_auto(v, op, elem, s, strides, true, device);
  const BulkPlan bulk = read_bulk_schedule(v, op, elem, s, 2, has_w, strides, forced,
                                           register_keys_free, device, plan);
  const BackwardPhasePlan phase = read_backward_phase(
      v, op, elem, s, strides, has_w, 1, forced, register_keys_free, bulk.bulk, device, plan.g);
  const FlatPlan flat =
      read_flat(v, op, backward_schedules(op), elem, s, strides, true, device, plan.g);
  const bool bulk_kernel = bulk.bulk && !phase.phase;
  const bool grid_reduce = read_grid_reduce(v, op, bulk_kernel, has_w);
  const bool early =
      read_early_loads(v, op, elem, false, plan.g, plan.shifted,
                       !phase.phase && !flat.flat && !bulk.bulk, device);
  v.finish();
  const RowGeometry& g = plan.g;
  const std::int64_t partial_rows = partial_rows_of(g, bulk);
  const std::int64_t parts = s.rows == 0 ? 0 : partial_rows;

  KernelLaunch L;
  L.source = source_path(phase.phase ? "backward_phase.cuh"
                         : bulk.bulk ? "rmsnorm_bwd_bulk.cuh"
                         : flat.flat ? (flat.bulk ? "flat_bulk.cuh" : "flat_rows.cuh")
                                     : "rmsnorm_bwd.cuh");
  L.entry = phase.phase ? phase_entry("rmsnorm_bwd_phase", ref.dtype, phase)
            : flat.flat ? flat_entry("rmsnorm_bwd_flat", ref.dtype, flat, true)
            : bulk.bulk ? bulk_entry("rmsnorm_bwd_bulk", ref.dtype, bulk)
            : early     ? early_entry("rmsnorm_bwd", ref.dtype, g.items)
                        : entry("rmsnorm_bwd", ref.dtype, g.items, plan.shifted);
  L.buffers.push_back(rows_by_d("x", BufferRole::Input, ref.dtype, s, strides["x"]));
  if (has_w) L.buffers.push_back(vector("w", BufferRole::Input, ref.dtype, s.d, "uniform"));
  L.buffers.push_back(rows_by_d("dy", BufferRole::Input, ref.dtype, s, strides["dy"]));
  L.buffers.push_back(rows_by_d("dx", BufferRole::Output, ref.dtype, s, strides["dx"]));
  if (has_w) {
    L.buffers.push_back(vector("dw", BufferRole::Output, ref.dtype, s.d, "normal"));
    L.buffers.push_back(matrix("dw_partial", BufferRole::Scratch, DType::F32, partial_rows, s.d, s.d,
                               "constant:0"));
  }
  L.args = {pointer("dx"),
            has_w ? pointer("dw_partial") : null_pointer(),
            pointer("x"),
            has_w ? pointer("w") : null_pointer(),
            pointer("dy"),
            i32(s.rows),
            i32(s.d),
            i32(strides["x"]),
            i32(strides["dy"]),
            i32(strides["dx"]),
            f32(eps),
            f32(weight == "gemma" ? 1.0 : 0.0)};
  if (bulk_kernel) add_grid_reduce_args(L, {"dw"}, grid_reduce);
  // One tile: dw sums in registers; streaming rows: dw's partial row (bulk: its stages; phase:
  // its sums' and the weight's slots; flat: its partial row and windows)
  // partial_rows=global names the register kernel: bulk and phase refuse it when asked for.
  if (global_partials && flat.flat)
    fail(op, "partial_rows=global needs the register kernel (schedule=regs, or auto's plan there)");
  set_geometry(L, g, phase.phase ? phase.shared_bytes
                     : flat.flat ? flat.shared_bytes
                     : bulk.bulk ? bulk.shared_bytes
                                 : register_shared_bytes("none", op, g, s.d, 0,
                                                         has_w && !global_partials ? 1 : 0, device));
  L.oracle = "kernel.rmsnorm_bwd";
  L.scalars = {{"eps", eps}, {"weight_mode", weight_mode_code(weight)}};
  std::vector<KernelLaunch> out{L};
  if (has_w && !grid_reduce) out.push_back(column_sum_launch(L, ref.dtype, "dw", "dw_partial", parts, s.d, programmatic));
  return out;
}

std::vector<KernelLaunch> plan_add_rmsnorm_bwd(const KernelRef& ref, const Case& c,
                                               const Scalars& sc, const DeviceLimits& device) {
  const std::string op = "add_rmsnorm_bwd";
  VariantReader v(op, ref.variant);
  const std::string weight = v.get("weight", "plain", kWeightModes);
  const bool has_dh = v.get("dh", "0", kFlag) == "1";
  const bool write_dr = v.get("write_dr", "1", kFlag) == "1";
  const std::string strided = v.get("strided", "0", kStrided);
  const std::string shift = v.get("shift", "auto", kShift);
  const bool programmatic = read_programmatic(v);
  const bool global_partials = read_global_partials(v);
  const std::size_t elem = io_elem_size(op, ref.dtype);
  const RowLimits limits = with_device(backward_row_limits(), device);
  const int forced = v.items(elem, limits);
  const Shape s = read_shape(op, c);
  const double eps = read_eps(op, sc);
  const bool has_w = weight != "none";

  auto strides = row_strides(op, c, {"x", "r", "dy", "dh", "dx", "dr"}, strided, s.d);
  BackwardPlan plan = backward_geometry(elem, s, strides, limits, forced, shift);
  const std::string broken = v.get("broken_launch", "none", {"none", "short_shared"});
  const bool register_keys_free = shift == "auto" && broken == "none" && !global_partials;
  const BulkPlan bulk = read_bulk_schedule(v, op, elem, s, has_dh ? 4 : 3, has_w, strides, forced,
                                           register_keys_free, device, plan);
  const BackwardPhasePlan phase = read_backward_phase(
      v, op, elem, s, strides, has_w, 1, forced, register_keys_free, bulk.bulk, device, plan.g);
  const RowGeometry& g = plan.g;
  const std::int64_t partial_rows = partial_rows_of(g, bulk);
  const std::int64_t parts = s.rows == 0 ? 0 : partial_rows;
  const bool bulk_kernel = bulk.bulk && !phase.phase;
  const bool grid_reduce = read_grid_reduce(v, op, bulk_kernel, has_w);
  const bool early = read_early_loads(v, op, elem, true, plan.g, plan.shifted,
                                      !phase.phase && !bulk.bulk, device);

  KernelLaunch L;
  L.source = source_path(phase.phase ? "backward_phase.cuh"
                         : bulk.bulk ? "rmsnorm_bwd_bulk.cuh"
                                     : "rmsnorm_bwd.cuh");
  L.entry = phase.phase ? phase_entry("add_rmsnorm_bwd_phase", ref.dtype, phase)
            : bulk.bulk ? bulk_entry("add_rmsnorm_bwd_bulk", ref.dtype, bulk)
            : early     ? early_entry("add_rmsnorm_bwd", ref.dtype, g.items)
                        : entry("add_rmsnorm_bwd", ref.dtype, g.items, plan.shifted);
  L.buffers.push_back(rows_by_d("x", BufferRole::Input, ref.dtype, s, strides["x"]));
  L.buffers.push_back(rows_by_d("r", BufferRole::Input, ref.dtype, s, strides["r"]));
  if (has_w) L.buffers.push_back(vector("w", BufferRole::Input, ref.dtype, s.d, "uniform"));
  L.buffers.push_back(rows_by_d("dy", BufferRole::Input, ref.dtype, s, strides["dy"]));
  if (has_dh) L.buffers.push_back(rows_by_d("dh", BufferRole::Input, ref.dtype, s, strides["dh"]));
  L.buffers.push_back(rows_by_d("dx", BufferRole::Output, ref.dtype, s, strides["dx"]));
  if (write_dr) L.buffers.push_back(rows_by_d("dr", BufferRole::Output, ref.dtype, s, strides["dr"]));
  if (has_w) {
    L.buffers.push_back(vector("dw", BufferRole::Output, ref.dtype, s.d, "normal"));
    L.buffers.push_back(matrix("dw_partial", BufferRole::Scratch, DType::F32, partial_rows, s.d, s.d,
                               "constant:0"));
  }
  L.args = {pointer("dx"),
            write_dr ? pointer("dr") : null_pointer(),
            has_w ? pointer("dw_partial") : null_pointer(),
            pointer("x"),
            pointer("r"),
            has_w ? pointer("w") : null_pointer(),
            pointer("dy"),
            has_dh ? pointer("dh") : null_pointer(),
            i32(s.rows),
            i32(s.d),
            i32(strides["x"]),
            i32(strides["r"]),
            i32(strides["dy"]),
            i32(strides["dh"]),
            i32(strides["dx"]),
            i32(strides["dr"]),
            f32(eps),
            f32(weight == "gemma" ? 1.0 : 0.0)};
  if (bulk_kernel) add_grid_reduce_args(L, {"dw"}, grid_reduce);
  set_geometry(L, g, phase.phase ? phase.shared_bytes
                     : bulk.bulk ? bulk.shared_bytes
                                 : register_shared_bytes(broken, op, g, s.d, has_w ? 1 : 0,
                                                         has_w && !global_partials ? 1 : 0, device));
  v.finish();
  L.oracle = "kernel.add_rmsnorm_bwd";
  L.scalars = {{"eps", eps}, {"weight_mode", weight_mode_code(weight)}};
  std::vector<KernelLaunch> out{L};
  if (has_w && !grid_reduce) out.push_back(column_sum_launch(L, ref.dtype, "dw", "dw_partial", parts, s.d, programmatic));
  return out;
}

std::vector<KernelLaunch> plan_layernorm_bwd(const KernelRef& ref, const Case& c,
                                             const Scalars& sc, const DeviceLimits& device) {
  const std::string op = "layernorm_bwd";
  VariantReader v(op, ref.variant);
  const bool affine = v.get("affine", "1", kFlag) == "1";
  const bool saved = v.get("stats", "saved", kStats) == "saved";
  // column_sums=paired: dgamma and dbeta reduced in one launch (column_sum_pair).
  const bool paired_sums = v.get("column_sums", "paired", {"paired", "separate"}) == "paired";
  // broken_launch=null_stats, for probes/selftest.json: the saved-statistics kernel launched
  // without them. It must trap rather than read through a null pointer.
  const std::string broken =
      v.get("broken_launch", "none", {"none", "short_shared", "null_stats"});
  if (broken == "null_stats" && !saved)
    throw std::invalid_argument(op + ": broken_launch=null_stats needs stats=saved");
  const bool pass_stats = saved && broken != "null_stats";
  const std::string strided = v.get("strided", "0", kStrided);
  const std::string shift = v.get("shift", "auto", kShift);
  const bool programmatic = read_programmatic(v);
  const bool global_partials = read_global_partials(v);
  const std::size_t elem = io_elem_size(op, ref.dtype);
  const RowLimits limits = with_device(backward_row_limits(), device);
  const int forced = v.items(elem, limits);
  const Shape s = read_shape(op, c);
  const double eps = read_eps(op, sc);

  auto strides = row_strides(op, c, {"x", "dy", "dx"}, strided, s.d);
  BackwardPlan plan = backward_geometry(elem, s, strides, limits, forced, shift);
  const bool register_keys_free = shift == "auto" && broken == "none" && !global_partials;
  const BulkPlan bulk = read_bulk_schedule(v, op, elem, s, 2, affine, strides, forced,
                                           register_keys_free, device, plan);
  const BackwardPhasePlan phase = read_backward_phase(
      v, op, elem, s, strides, affine, 2, forced, register_keys_free, bulk.bulk, device, plan.g);
  const RowGeometry& g = plan.g;
  const std::int64_t partial_rows = partial_rows_of(g, bulk);
  const std::int64_t parts = s.rows == 0 ? 0 : partial_rows;
  const bool bulk_kernel = bulk.bulk && !phase.phase;
  // auto: the kernel's own reduce where its rows are split over clusters (above).
  const bool grid_reduce = read_grid_reduce(v, op, bulk_kernel, affine, bulk.cluster > 1);

  KernelLaunch L;
  L.source = source_path(phase.phase ? "backward_phase.cuh"
                         : bulk.bulk ? "layernorm_bwd_bulk.cuh"
                                     : "layernorm_bwd.cuh");
  L.entry = phase.phase ? phase_entry("layernorm_bwd_phase", ref.dtype, phase, true, !saved)
            : bulk.bulk ? bulk_entry("layernorm_bwd_bulk", ref.dtype, bulk)
                        : entry("layernorm_bwd", ref.dtype, g.items, plan.shifted, !saved);
  L.buffers.push_back(rows_by_d("x", BufferRole::Input, ref.dtype, s, strides["x"]));
  if (affine) L.buffers.push_back(vector("gamma", BufferRole::Input, ref.dtype, s.d, "uniform"));
  L.buffers.push_back(rows_by_d("dy", BufferRole::Input, ref.dtype, s, strides["dy"]));
  L.buffers.push_back(rows_by_d("dx", BufferRole::Output, ref.dtype, s, strides["dx"]));
  if (pass_stats) {  // what the forward pass wrote, computed from x in fp64 (harness/device/generators.h)
    L.buffers.push_back(vector("mean", BufferRole::Input, DType::F32, s.rows, "row_mean:x"));
    L.buffers.push_back(
        vector("rstd", BufferRole::Input, DType::F32, s.rows, fmt::format("row_rstd:x:{}", eps)));
  }
  if (affine) {
    L.buffers.push_back(vector("dgamma", BufferRole::Output, ref.dtype, s.d, "normal"));
    L.buffers.push_back(vector("dbeta", BufferRole::Output, ref.dtype, s.d, "normal"));
    for (const char* name : {"dgamma_partial", "dbeta_partial"})
      L.buffers.push_back(matrix(name, BufferRole::Scratch, DType::F32, partial_rows, s.d, s.d,
                                 "constant:0"));
  }
  L.args = {pointer("dx"),
            affine ? pointer("dgamma_partial") : null_pointer(),
            affine ? pointer("dbeta_partial") : null_pointer(),
            pointer("x"),
            affine ? pointer("gamma") : null_pointer(),
            pointer("dy"),
            pass_stats ? pointer("mean") : null_pointer(),
            pass_stats ? pointer("rstd") : null_pointer(),
            i32(s.rows),
            i32(s.d),
            i32(strides["x"]),
            i32(strides["dy"]),
            i32(strides["dx"]),
            f32(eps)};
  if (bulk_kernel) add_grid_reduce_args(L, {"dgamma", "dbeta"}, grid_reduce);
  // The sums kept in shared memory: dgamma's and dbeta's in fp32, dgamma's alone in 16 bits
  // (kernels/layernorm_bwd.cuh keeps dbeta's in registers there).
  const int shared_sums = affine ? (elem == 2 ? 1 : 2) : 0;
  // phase: its sums' and gamma's slots.
  set_geometry(L, g, phase.phase ? phase.shared_bytes
                     : bulk.bulk ? bulk.shared_bytes
                                 : register_shared_bytes(broken, op, g, s.d, shared_sums,
                                                         affine && !global_partials ? 2 : 0, device));
  v.finish();
  L.oracle = "kernel.layernorm_bwd";
  L.scalars = {{"eps", eps}};
  std::vector<KernelLaunch> out{L};
  if (affine && !grid_reduce) {
    if (paired_sums) {
      out.push_back(column_sum_pair_launch(L, ref.dtype, {"dgamma", "dbeta"},
                                           {"dgamma_partial", "dbeta_partial"}, parts, s.d,
                                           programmatic));
    } else {
      out.push_back(column_sum_launch(L, ref.dtype, "dgamma", "dgamma_partial", parts, s.d, programmatic));
      out.push_back(column_sum_launch(L, ref.dtype, "dbeta", "dbeta_partial", parts, s.d, programmatic));
    }
  }
  return out;
}

}  // namespace ladder::kernels::detail
