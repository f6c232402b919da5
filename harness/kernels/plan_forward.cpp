// Planners for the forward kernels: rmsnorm, add_rmsnorm, layernorm.
#include <stdexcept>
#include <string>

#include "harness/kernels/plan_builder.h"
#include "harness/kernels/planners.h"

namespace ladder::kernels::detail {
namespace {

const std::vector<std::string> kWeightModes = {"none", "plain", "gemma"};
const std::vector<std::string> kStrided = {"0", "1", "odd"};
const std::vector<std::string> kFlag = {"0", "1"};

// Oracle scalar encoding of the weight mode, read back by kernel_oracles.cpp.
double weight_mode_code(const std::string& weight) {
  return weight == "none" ? 0 : weight == "plain" ? 1 : 2;
}

std::string entry(const std::string& kernel, DType dt, int items,
                  const std::string& extra = "") {
  return "ladder::" + kernel + "<" + dtype_template_name(dt) + ", " + std::to_string(items) +
         extra + ">";
}

// The MAX_THREADS template argument of a wide register kernel; the default (1024) is left out.
std::string bound_arg(int wide_bound) {
  return wide_bound == 0 ? "" : ", " + std::to_string(wide_bound);
}

// The same, then STAGE_WEIGHT for the kernels that take it (rmsnorm_fwd, add_rmsnorm_fwd): true
// where a wide row fills its bound (wide_fills_bound), left out (false) otherwise.
std::string wide_args(int wide_bound, const RowGeometry& g) {
  return bound_arg(wide_bound) + (wide_fills_bound(g, wide_bound) ? ", true" : "");
}

// The register kernels' trailing template arguments: MAX_THREADS (and STAGE_WEIGHT, for the
// kernels that take it) as above, then OFF_GRID where it is taken, every argument before it
// spelled out. Without OFF_GRID the entry is the one aligned launches were measured with.
std::string register_args(int wide_bound, const RowGeometry& g, bool takes_stage_weight,
                          bool off_grid) {
  if (!off_grid) return takes_stage_weight ? wide_args(wide_bound, g) : bound_arg(wide_bound);
  std::string args = ", " + std::to_string(wide_bound == 0 ? 1024 : wide_bound);
  if (takes_stage_weight) args += wide_fills_bound(g, wide_bound) ? ", true" : ", false";
  return args + ", true";
}

// OFF_GRID of the register kernels (rmsnorm.cuh, layernorm.cuh): by default where row strides
// put rows off the 16-byte grid; off_grid=0|1 forces it (both are correct for any rows).
bool read_off_grid(VariantReader& v, bool misaligned) {
  const std::string off_grid = v.get("off_grid", "auto", {"auto", "0", "1"});
  return off_grid == "auto" ? misaligned : off_grid == "1";
}

// stage_weight=0 launches a STAGE_WEIGHT build without its shared memory, so the kernel reads
// the weight from global memory (the path a caller who gives no dynamic shared memory takes).
bool read_stage_weight(VariantReader& v) {
  return v.get("stage_weight", "auto", {"auto", "0"}) == "auto";
}

// The dynamic shared memory of an rmsnorm or add_rmsnorm launch: the packed or staged schedule's,
// else the register kernel's staged weight (staged_weight_bytes: none outside STAGE_WEIGHT).
std::uint32_t register_family_shared_bytes(const PackedPlan& packed, const StagedPlan& staged,
                                           const RowGeometry& g, int wide, std::size_t elem,
                                           std::int64_t d, bool has_weight, bool stage_weight) {
  if (packed.packed) return packed.shared_bytes;
  if (staged.staged) return staged.shared_bytes;
  return staged_weight_bytes(g, wide, elem, d, has_weight, stage_weight);
}

// A packed kernel's entry: no ITEMS; `extra` (ROUND_SUM), then SHIFTED_WEIGHT where it is not the
// default (true).
std::string packed_entry(const std::string& kernel, DType dt, const PackedPlan& p,
                         const std::string& extra = "") {
  return "ladder::" + kernel + "<" + dtype_template_name(dt) + extra +
         (p.shifted_weight ? "" : ", false") + ">";
}

// read_wide leaves a geometry no other schedule takes; a plan that took two is a planner bug.
void expect_one_schedule(const std::string& op, int wide_bound, bool other_schedule) {
  if (wide_bound != 0 && other_schedule)
    throw std::logic_error(op + ": planner took schedule=wide and another schedule at once");
}

// A [rows, d] tensor the kernel reads and, in place, also writes.
ConcreteBuffer io_input(const std::string& name, bool written_in_place, DType dt, const Shape& s,
                        std::int64_t stride) {
  return matrix(name, written_in_place ? BufferRole::InOut : BufferRole::Input, dt, s.rows, s.d,
                stride, "normal");
}

// The output [rows, d] tensor: its own memory, or a second name for the input it overwrites.
ConcreteBuffer io_output(const std::string& name, const ConcreteBuffer* overwrites, DType dt,
                         const Shape& s, std::int64_t stride) {
  if (overwrites != nullptr) return alias(name, *overwrites);
  return matrix(name, BufferRole::Output, dt, s.rows, s.d, stride, "normal");
}

}  // namespace

// The limits below come from ptxas (-Xptxas -v, sm_90) and an ITEMS sweep on the H200
// (reports/h200/sweep.txt): the forward kernels keep each chunk packed, 4 registers whatever T.
RowLimits add_rmsnorm_row_limits() {
  RowLimits limits;
  // x and r both in flight: past 2 chunks a thread spills under the 64-register cap, and a
  // spilling add_rmsnorm is slower than one that streams its row.
  limits.spill_free_values_16bit = 16;
  limits.spill_free_values_fp32 = 8;
  limits.stream_rather_than_spill = true;
  return limits;
}

RowLimits rmsnorm_row_limits() {
  RowLimits limits;
  limits.spill_free_values_fp32 = 16;  // f32 ITEMS = 8 spills a little: only for wide rows
  limits.preferred_threads_per_row = 512;
  // Two rows a block, not eight, where a 16-bit row on the 16-byte grid takes one warp (call 152,
  // reports/h200/bench-rows-a-block.txt, two repeats, cold): layernorm bf16 65536x1024 73.5-74.0 us
  // against 74.9-75.6, f16 74.1 against 76.0-76.1, bf16 65536x768 58.4-58.9 against 60.5-60.8;
  // rmsnorm bf16 65536x768 54.6-54.8 against 56.7-56.8. One row a block measured the same, four
  // as eight. Call 153 (bench-layernorm-occupancy.txt): rmsnorm f16 65536x768 55.1 against
  // 56.7-56.9, layernorm bf16 300x1024 6.6-6.75 against 7.1-7.2; rows off the grid (d = 769,
  // OFF_GRID builds) lost (layernorm bf16 65536x769 123.4-123.7 against 117.5-117.8, rmsnorm
  // 85.9-86.1 against 82.3-82.4), so they keep eight. Not measured for narrower rows (several a
  // warp), fp32 or add_rmsnorm, which keep 256-thread blocks.
  limits.one_warp_block_threads_16bit = 2 * kWarp;
  return limits;
}

RowLimits layernorm_row_limits() { return rmsnorm_row_limits(); }

std::vector<KernelLaunch> plan_rmsnorm(const KernelRef& ref, const Case& c, const Scalars& sc,
                                       const DeviceLimits& device) {
  const std::string op = "rmsnorm";
  VariantReader v(op, ref.variant);
  const std::string weight = v.get("weight", "plain", kWeightModes);
  const std::string inplace = v.get("inplace", "none", {"none", "y_x"});
  const std::string strided = v.get("strided", "0", kStrided);
  const bool write_rstd = v.get("write_rstd", "1", kFlag) == "1";
  const std::size_t elem = io_elem_size(op, ref.dtype);
  const RowLimits limits = with_device(rmsnorm_row_limits(), device);
  const int forced = v.items(elem, limits);
  const int rpb = v.rows_per_block();
  const Shape s = read_shape(op, c);
  const double eps = read_eps(op, sc);
  const bool in_place = inplace == "y_x";

  auto strides = row_strides(op, c, in_place ? std::vector<std::string>{"x"}
                                             : std::vector<std::string>{"x", "y"},
                             strided, s.d);
  if (in_place) strides["y"] = strides["x"];
  const bool misaligned = strides_misaligned(strides, elem);
  // Where auto takes the flat array, rows of one phase a block or streams the row, every other
  // schedule steps aside.
  const bool flat_first = flat_auto(v, op, elem, s, strides, false, device);
  const int phase_items = flat_first ? -1 : phase_auto(v, op, elem, s, strides);
  const LoopChoice streamed = flat_first ? LoopChoice{} : loop_auto(v, op, ref.dtype, s, misaligned);
  RowGeometry g = choose_row_geometry(elem, s.rows, s.d, misaligned, limits, forced);
  apply_rows_per_block(op, rpb, s.rows, g);
  int wide = read_wide(v, op, kRmsnormSchedules, elem, s, misaligned, limits, forced, rpb, g);
  const StagedPlan staged = read_staged(v, op, elem, 1, s, misaligned, forced,
                                        allowed_items(elem, limits), device, g, true);
  const int rows_per_thread = read_rows(v, elem, s, misaligned, limits, forced, rpb, g);
  const PackedPlan packed = read_packed(v, op, kRmsnormSchedules, elem, 1, 1, s,
                                        strides_dense(strides, s.d), forced, rpb, device, g);
  const bool decode = read_decode(v, kRmsnormSchedules, elem, s, misaligned, limits, forced, rpb,
                                  wide != 0 || staged.staged || rows_per_thread > 1 || packed.packed, g);
  const bool block_row = read_block_row(v, op, kRmsnormSchedules, elem, s, forced, rpb,
                                        staged.staged || rows_per_thread > 1 || packed.packed || decode,
                                        block_row_auto(elem, s, misaligned, 0, kBlockRowMaxChunksNorm), g);
  const LoopPlan loop = read_loop(v, op, kRmsnormSchedules, elem, s,
                                  staged.staged || rows_per_thread > 1 || packed.packed || decode || block_row,
                                  streamed, device, g);
  const PhasePlan phase = read_phase(v, op, kRmsnormSchedules, elem, s, forced, phase_items,
                                     weight != "none" ? 1 : 0,
                                     staged.staged || rows_per_thread > 1 || packed.packed || decode ||
                                         block_row || loop.loop,
                                     device, g);
  const FlatPlan flat = read_flat(v, op, kRmsnormSchedules, elem, s, strides, false, device, g);
  if (block_row || loop.loop || phase.phase || flat.flat) wide = 0;
  const int row_grid = read_row_grid(v, op, kRmsnormSchedules, block_row, false);
  const bool off_grid = read_off_grid(v, misaligned);
  const bool stage_weight = read_stage_weight(v);
  v.finish();
  expect_one_schedule(op, wide, staged.staged || rows_per_thread > 1);
  const std::uint32_t row_shared = block_row ? block_row_shared_bytes(g, elem, s.d, weight != "none", stage_weight) : 0;
  apply_row_grid(row_grid, device, s.rows, row_shared, g);

  KernelLaunch L;
  L.source = source_path(packed.packed ? "packed_norm.cuh"
                         : decode      ? "decode_norm.cuh"
                         : block_row   ? "block_row.cuh"
                         : loop.loop   ? "rmsnorm_loop.cuh"
                         : phase.phase ? "phase_rows.cuh"
                         : flat.flat   ? (flat.bulk ? "flat_bulk.cuh" : "flat_rows.cuh")
                                       : "rmsnorm.cuh");
  L.entry = packed.packed         ? packed_entry("rmsnorm_fwd_packed", ref.dtype, packed)
            : flat.flat           ? flat_entry("rmsnorm_fwd_flat", ref.dtype, flat, false)
            : phase.phase         ? entry("rmsnorm_fwd_phase", ref.dtype, g.items, phase_prefetch_arg(phase.prefetch))
            : decode              ? "ladder::rmsnorm_fwd_decode<" + dtype_template_name(ref.dtype) + ">"
            : loop.loop           ? "ladder::rmsnorm_fwd_loop<" + dtype_template_name(ref.dtype) + ", " +
                                        std::to_string(loop.threads) + loop_hold_arg(loop) + ">"
            : block_row           ? entry("rmsnorm_fwd_row", ref.dtype, g.items,
                                          ", " + std::to_string(g.threads_per_row))
            : staged.staged       ? entry("rmsnorm_fwd_staged", ref.dtype, g.items,
                                          ", " + std::to_string(staged.stages))
            : rows_per_thread > 1 ? entry("rmsnorm_fwd_rows", ref.dtype, g.items,
                                          ", " + std::to_string(rows_per_thread))
                                  : entry("rmsnorm_fwd", ref.dtype, g.items,
                                          register_args(wide, g, true, off_grid));
  L.buffers.push_back(io_input("x", in_place, ref.dtype, s, strides["x"]));
  if (weight != "none") L.buffers.push_back(vector("w", BufferRole::Input, ref.dtype, s.d, "uniform"));
  L.buffers.push_back(io_output("y", in_place ? &L.buffers.front() : nullptr, ref.dtype, s,
                                strides["y"]));
  if (write_rstd) L.buffers.push_back(vector("rstd", BufferRole::Output, DType::F32, s.rows, "normal"));
  L.args = {pointer("y"),
            pointer("x"),
            weight != "none" ? pointer("w") : null_pointer(),
            write_rstd ? pointer("rstd") : null_pointer(),
            i32(s.rows),
            i32(s.d),
            i32(strides["x"]),
            i32(strides["y"]),
            f32(eps),
            f32(weight == "gemma" ? 1.0 : 0.0)};
  if (packed.packed) L.args.push_back(i32(packed.span_rows));
  set_geometry(L, g, block_row     ? row_shared
                     : phase.phase ? phase.shared_bytes
                     : flat.flat   ? flat.shared_bytes
                                   : register_family_shared_bytes(packed, staged, g, wide, elem, s.d,
                                                                  weight != "none", stage_weight));
  L.oracle = "kernel.rmsnorm";
  L.scalars = {{"eps", eps}, {"weight_mode", weight_mode_code(weight)}};
  return {L};
}

std::vector<KernelLaunch> plan_add_rmsnorm(const KernelRef& ref, const Case& c,
                                           const Scalars& sc, const DeviceLimits& device) {
  const std::string op = "add_rmsnorm";
  VariantReader v(op, ref.variant);
  const std::string weight = v.get("weight", "plain", kWeightModes);
  const std::string convention = v.get("convention", "A", {"A", "B"});
  const std::string inplace = v.get("inplace", "none", {"none", "h_r", "y_x", "both"});
  const std::string strided = v.get("strided", "0", kStrided);
  const bool write_rstd = v.get("write_rstd", "1", kFlag) == "1";
  const std::size_t elem = io_elem_size(op, ref.dtype);
  const RowLimits limits = with_device(add_rmsnorm_row_limits(), device);
  const int forced = v.items(elem, limits);
  const int rpb = v.rows_per_block();
  const Shape s = read_shape(op, c);
  const double eps = read_eps(op, sc);
  const bool h_over_r = inplace == "h_r" || inplace == "both";
  const bool y_over_x = inplace == "y_x" || inplace == "both";

  std::vector<std::string> own = {"x", "r"};
  if (!h_over_r) own.push_back("h");
  if (!y_over_x) own.push_back("y");
  auto strides = row_strides(op, c, own, strided, s.d);
  if (h_over_r) strides["h"] = strides["r"];
  if (y_over_x) strides["y"] = strides["x"];
  const bool misaligned = strides_misaligned(strides, elem);
  // Where auto takes rows of one phase a block or streams the row, every other schedule steps
  // aside.
  const int phase_items = phase_auto(v, op, elem, s, strides);
  const LoopChoice streamed = loop_auto(v, op, ref.dtype, s, misaligned);
  // Rows off the 16-byte grid (d = 2049) run a phase-shifted tile with a spare chunk, and a
  // 16-bit thread with three chunks, despite its small spill, measured fastest there
  // (sweep-items-forward.txt, 8192x2049: 0.54 of the copy ceiling at ITEMS 3, 0.46 at 2).
  RowLimits row_limits = limits;
  if (misaligned && elem == 2) row_limits.spill_free_values_16bit = 24;
  RowGeometry g = choose_row_geometry(elem, s.rows, s.d, misaligned, row_limits, forced);
  apply_rows_per_block(op, rpb, s.rows, g);
  int wide = read_wide(v, op, kStagedSchedules, elem, s, misaligned, limits, forced, rpb, g);
  const StagedPlan staged = read_staged(v, op, elem, 2, s, misaligned, forced,
                                        allowed_items(elem, limits), device, g);
  const PackedPlan packed = read_packed(v, op, kStagedSchedules, elem, 1, 2, s,
                                        strides_dense(strides, s.d), forced, rpb, device, g);
  const bool decode = read_decode(v, kStagedSchedules, elem, s, misaligned, limits, forced, rpb,
                                  wide != 0 || staged.staged || packed.packed, g);
  const bool block_row = read_block_row(v, op, kStagedSchedules, elem, s, forced, rpb,
                                        staged.staged || packed.packed || decode,
                                        block_row_auto(elem, s, misaligned,
                                                       ref.dtype == DType::F16 ? 4096 : 8192,
                                                       kBlockRowMaxChunksAdd),
                                        g);
  const LoopPlan loop = read_loop(v, op, kStagedSchedules, elem, s,
                                  staged.staged || packed.packed || decode || block_row, streamed,
                                  device, g);
  const PhasePlan phase = read_phase(v, op, kStagedSchedules, elem, s, forced, phase_items,
                                     weight != "none" ? 1 : 0,
                                     staged.staged || packed.packed || decode || block_row || loop.loop,
                                     device, g);
  if (block_row || loop.loop || phase.phase) wide = 0;
  const int row_grid = read_row_grid(v, op, kStagedSchedules, block_row, false);
  const bool off_grid = read_off_grid(v, misaligned);
  const bool stage_weight = read_stage_weight(v);
  v.finish();
  expect_one_schedule(op, wide, staged.staged);
  const std::uint32_t row_shared = block_row ? block_row_shared_bytes(g, elem, s.d, weight != "none", stage_weight) : 0;
  apply_row_grid(row_grid, device, s.rows, row_shared, g);

  KernelLaunch L;
  L.source = source_path(packed.packed ? "packed_norm.cuh"
                         : decode        ? "decode_norm.cuh"
                         : block_row     ? "block_row.cuh"
                         : loop.loop     ? "add_rmsnorm_loop.cuh"
                         : phase.phase   ? "phase_rows.cuh"
                                         : "add_rmsnorm.cuh");
  // f32 has nothing to round, so convention B is the same code as A: one instantiation.
  const bool round_sum = convention == "B" && ref.dtype != DType::F32;
  const std::string round_arg = round_sum ? ", true" : ", false";
  L.entry = packed.packed ? packed_entry("add_rmsnorm_fwd_packed", ref.dtype, packed, round_arg)
            : phase.phase ? entry("add_rmsnorm_fwd_phase", ref.dtype, g.items, round_arg + phase_prefetch_arg(phase.prefetch))
            : decode      ? "ladder::add_rmsnorm_fwd_decode<" + dtype_template_name(ref.dtype) + round_arg + ">"
            : loop.loop   ? "ladder::add_rmsnorm_fwd_loop<" + dtype_template_name(ref.dtype) + ", " +
                                std::to_string(loop.threads) + round_arg + ">"
            : block_row   ? entry("add_rmsnorm_fwd_row", ref.dtype, g.items,
                                  round_arg + ", " + std::to_string(g.threads_per_row))
            : staged.staged ? entry("add_rmsnorm_fwd_staged", ref.dtype, g.items,
                                    round_arg + ", " + std::to_string(staged.stages))
                            : entry("add_rmsnorm_fwd", ref.dtype, g.items,
                                    round_arg + register_args(wide, g, true, off_grid));
  L.buffers.push_back(io_input("x", y_over_x, ref.dtype, s, strides["x"]));
  L.buffers.push_back(io_input("r", h_over_r, ref.dtype, s, strides["r"]));
  if (weight != "none") L.buffers.push_back(vector("w", BufferRole::Input, ref.dtype, s.d, "uniform"));
  const ConcreteBuffer x_buf = L.buffers[0], r_buf = L.buffers[1];
  L.buffers.push_back(io_output("h", h_over_r ? &r_buf : nullptr, ref.dtype, s, strides["h"]));
  L.buffers.push_back(io_output("y", y_over_x ? &x_buf : nullptr, ref.dtype, s, strides["y"]));
  if (write_rstd) L.buffers.push_back(vector("rstd", BufferRole::Output, DType::F32, s.rows, "normal"));
  L.args = {pointer("y"),
            pointer("h"),
            pointer("x"),
            pointer("r"),
            weight != "none" ? pointer("w") : null_pointer(),
            write_rstd ? pointer("rstd") : null_pointer(),
            i32(s.rows),
            i32(s.d),
            i32(strides["x"]),
            i32(strides["r"]),
            i32(strides["h"]),
            i32(strides["y"]),
            f32(eps),
            f32(weight == "gemma" ? 1.0 : 0.0)};
  if (packed.packed) L.args.push_back(i32(packed.span_rows));
  set_geometry(L, g, block_row     ? row_shared
                     : phase.phase ? phase.shared_bytes
                                   : register_family_shared_bytes(packed, staged, g, wide, elem, s.d,
                                                                  weight != "none", stage_weight));
  L.oracle = "kernel.add_rmsnorm";
  L.scalars = {{"eps", eps},
               {"weight_mode", weight_mode_code(weight)},
               {"convention", convention == "B" ? 1.0 : 0.0}};
  return {L};
}

std::vector<KernelLaunch> plan_layernorm(const KernelRef& ref, const Case& c, const Scalars& sc,
                                         const DeviceLimits& device) {
  const std::string op = "layernorm";
  VariantReader v(op, ref.variant);
  // affine: both weights (1), neither (0), or one alone (gamma, beta): the kernels test each.
  const std::string affine = v.get("affine", "1", {"0", "1", "gamma", "beta"});
  const bool with_gamma = affine == "1" || affine == "gamma";
  const bool with_beta = affine == "1" || affine == "beta";
  const std::string inplace = v.get("inplace", "none", {"none", "y_x"});
  const std::string strided = v.get("strided", "0", kStrided);
  const bool write_stats = v.get("write_stats", "1", kFlag) == "1";
  const std::size_t elem = io_elem_size(op, ref.dtype);
  const RowLimits limits = with_device(layernorm_row_limits(), device);
  const int forced = v.items(elem, limits);
  const int rpb = v.rows_per_block();
  const Shape s = read_shape(op, c);
  const double eps = read_eps(op, sc);
  const bool in_place = inplace == "y_x";

  auto strides = row_strides(op, c, in_place ? std::vector<std::string>{"x"}
                                             : std::vector<std::string>{"x", "y"},
                             strided, s.d);
  if (in_place) strides["y"] = strides["x"];
  const bool misaligned = strides_misaligned(strides, elem);
  // Where auto takes rows of one phase a block, copies rows whole or streams them, every other
  // schedule steps aside.
  const int phase_items = phase_auto(v, op, elem, s, strides);
  const bool bulk_taken = bulk_auto(v, op, ref.dtype, s, misaligned, device);
  const LoopChoice streamed = bulk_taken ? LoopChoice{} : loop_auto(v, op, ref.dtype, s, misaligned);
  RowGeometry g = choose_row_geometry(elem, s.rows, s.d, misaligned, limits, forced);
  apply_rows_per_block(op, rpb, s.rows, g);
  int wide = read_wide(v, op, kLayernormSchedules, elem, s, misaligned, limits, forced, rpb, g);
  const PackedPlan packed = read_packed(v, op, kLayernormSchedules, elem, 2, 1, s,
                                        strides_dense(strides, s.d), forced, rpb, device, g);
  const bool block_row = read_block_row(v, op, kLayernormSchedules, elem, s, forced, rpb,
                                        packed.packed,
                                        block_row_auto(elem, s, misaligned, 0, kBlockRowMaxChunksLayernorm),
                                        g);
  const LoopPlan loop = read_loop(v, op, kLayernormSchedules, elem, s, packed.packed || block_row,
                                  streamed, device, g);
  const BulkPlan bulk = read_bulk(v, op, kLayernormSchedules, elem, s, misaligned,
                                  packed.packed || block_row || loop.loop, device, g);
  const PhasePlan phase = read_phase(v, op, kLayernormSchedules, elem, s, forced, phase_items,
                                     (with_gamma ? 1 : 0) + (with_beta ? 1 : 0),
                                     packed.packed || block_row || loop.loop || bulk.bulk, device, g);
  if (block_row || loop.loop || bulk.bulk || phase.phase) wide = 0;
  const int row_grid = read_row_grid(v, op, kLayernormSchedules, block_row, layernorm_row_resident(elem, s.d));
  const bool off_grid = read_off_grid(v, misaligned);
  const bool stage_weight = read_stage_weight(v);
  v.finish();
  const std::uint32_t row_shared = block_row ? block_row_shared_bytes(g, elem, s.d, with_gamma && with_beta ? 2 : 0, stage_weight) : 0;
  apply_row_grid(row_grid, device, s.rows, row_shared, g);

  KernelLaunch L;
  L.source = source_path(packed.packed ? "packed_norm.cuh"
                         : block_row   ? "block_row.cuh"
                         : loop.loop   ? "layernorm_loop.cuh"
                         : bulk.bulk   ? "layernorm_bulk.cuh"
                         : phase.phase ? "phase_rows.cuh"
                                       : "layernorm.cuh");
  L.entry = packed.packed ? packed_entry("layernorm_fwd_packed", ref.dtype, packed)
            : phase.phase ? entry("layernorm_fwd_phase", ref.dtype, g.items, phase_prefetch_arg(phase.prefetch))
            : loop.loop   ? "ladder::layernorm_fwd_loop<" + dtype_template_name(ref.dtype) + ", " +
                                std::to_string(loop.threads) + ", " + std::to_string(loop.passes) +
                                loop_hold_arg(loop) + ">"
            : bulk.bulk   ? "ladder::layernorm_fwd_bulk<" + dtype_template_name(ref.dtype) + ", " +
                                std::to_string(bulk.items) + ", " + std::to_string(bulk.threads) + ">"
            : block_row   ? entry("layernorm_fwd_row", ref.dtype, g.items,
                                  ", " + std::to_string(g.threads_per_row))
                          : entry("layernorm_fwd", ref.dtype, g.items,
                                  register_args(wide, g, false, off_grid));
  L.buffers.push_back(io_input("x", in_place, ref.dtype, s, strides["x"]));
  if (with_gamma) L.buffers.push_back(vector("gamma", BufferRole::Input, ref.dtype, s.d, "uniform"));
  if (with_beta) L.buffers.push_back(vector("beta", BufferRole::Input, ref.dtype, s.d, "uniform"));
  L.buffers.push_back(io_output("y", in_place ? &L.buffers.front() : nullptr, ref.dtype, s,
                                strides["y"]));
  if (write_stats) {
    L.buffers.push_back(vector("mean", BufferRole::Output, DType::F32, s.rows, "normal"));
    L.buffers.push_back(vector("rstd", BufferRole::Output, DType::F32, s.rows, "normal"));
  }
  L.args = {pointer("y"),
            pointer("x"),
            with_gamma ? pointer("gamma") : null_pointer(),
            with_beta ? pointer("beta") : null_pointer(),
            write_stats ? pointer("mean") : null_pointer(),
            write_stats ? pointer("rstd") : null_pointer(),
            i32(s.rows),
            i32(s.d),
            i32(strides["x"]),
            i32(strides["y"]),
            f32(eps)};
  if (packed.packed) L.args.push_back(i32(packed.span_rows));
  set_geometry(L, g, block_row     ? row_shared
                     : bulk.bulk   ? bulk.shared_bytes
                     : phase.phase ? phase.shared_bytes
                                   : packed.shared_bytes);
  L.oracle = "kernel.layernorm";
  L.scalars = {{"eps", eps}};
  return {L};
}

}  // namespace ladder::kernels::detail
