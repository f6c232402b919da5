// The weight gradients' final reduce (kernels/column_sum.cuh): its launches after a backward
// kernel, the variant keys that choose how it runs (pdl, reduce), and column_sum's own planner.
#include <string>

#include "harness/kernels/plan_builder.h"
#include "harness/kernels/plan_column_sum.h"
#include "harness/kernels/planners.h"

namespace ladder::kernels::detail {
namespace {

// kernels/column_sum.cuh's block shape: 32 x 32 threads, four columns a thread where d is a
// multiple of 4 (16-byte loads), else one.
constexpr int kColumnSumThreads = 32;
constexpr int kColumnSumSlices = 32;
std::int64_t column_sum_columns_per_block(std::int64_t d) {
  return d % 4 == 0 ? 4 * kColumnSumThreads : kColumnSumThreads;
}

}  // namespace

// The final reduce of one weight gradient: out[c] = sum of `parts` partial rows. programmatic:
// launched to begin while the kernel that wrote the partials drains (dependent_launch.cuh).
KernelLaunch column_sum_launch(const KernelLaunch& first, DType dt, const std::string& out,
                               const std::string& partial, std::int64_t parts, std::int64_t d,
                               bool programmatic) {
  KernelLaunch L;
  L.source = source_path("column_sum.cuh");
  L.entry = "ladder::column_sum<" + dtype_template_name(dt) + ">";
  L.buffers = first.buffers;
  L.args = {pointer(out), pointer(partial), i32(parts), i32(d), i32(d)};
  const std::int64_t per_block = column_sum_columns_per_block(d);
  L.grid = {static_cast<std::uint32_t>((d + per_block - 1) / per_block), 1, 1};
  L.block = {kColumnSumThreads, kColumnSumSlices, 1};
  L.programmatic = programmatic;
  L.oracle = first.oracle;
  L.scalars = first.scalars;
  return L;
}

// The single reduce's geometry, with grid.y choosing which of the pair a block sums.
KernelLaunch column_sum_pair_launch(const KernelLaunch& first, DType dt,
                                    const std::array<std::string, 2>& out,
                                    const std::array<std::string, 2>& partial, std::int64_t parts,
                                    std::int64_t d, bool programmatic) {
  KernelLaunch L = column_sum_launch(first, dt, out[0], partial[0], parts, d, programmatic);
  L.entry = "ladder::column_sum_pair<" + dtype_template_name(dt) + ">";
  L.args = {pointer(out[0]), pointer(partial[0]), pointer(out[1]), pointer(partial[1]),
            i32(parts),      i32(d),              i32(d)};
  L.grid[1] = 2;
  return L;
}

bool read_programmatic(VariantReader& v) { return v.get("pdl", "auto", {"auto", "0"}) == "auto"; }

// reduce=auto|launch|grid: the weight gradients' final reduce in a launch of its own
// (column_sum, column_sum_pair), or by the bulk kernel itself after a grid-wide barrier
// (kernels/grid_reduce.cuh: a cooperative launch, one launch fewer). grid applies to the bulk
// schedule's kernels alone, which take the extra arguments. auto: grid where the caller says
// (auto_grid), else launch.
// Measured on the H200 (call 207, reports/h200/bench-grid-reduce-207.txt, two rounds, cold), the
// bulk kernel's own reduce saved nothing where a block holds the row: rmsnorm_bwd bf16 2048x16384
// 67.2-68.0 us against 67.5-68.0, add_rmsnorm_bwd 106.5-106.6 against 106.1-106.9, layernorm_bwd
// 75.2-75.4 against 74.4-75.1 (4096x8192 on schedule=bulk 88.3-88.6 against 86.1-86.5). Nsight
// Compute puts the reduce inside the kernel at about 1 us (rmsnorm_bwd's kernel 64.2-64.5 us
// against 63.2), where column_sum's 4.2 us launch mostly overlaps the kernel's tail
// (programmatic launch). With clusters layernorm_bwd gained: bf16 1024x32768 86.5-86.9 against
// 88.1-88.4; rmsnorm_bwd and add_rmsnorm_bwd there tied (82.0-82.2 against 82.1-82.3; 129.6-130.0
// against 129.1-129.6), as did fp32 1024x16384.
bool read_grid_reduce(VariantReader& v, const std::string& op, bool bulk_kernel, bool gradients,
                      bool auto_grid) {
  const std::string key = v.get("reduce", "auto", {"auto", "launch", "grid"});
  if (key == "auto") return auto_grid && bulk_kernel && gradients;
  if (key != "grid") return false;
  if (!bulk_kernel) fail(op, "reduce=grid needs the bulk schedule (schedule=bulk)");
  if (!gradients) fail(op, "reduce=grid needs weight gradients");
  return true;
}

// The bulk kernels' trailing arguments: the gradients they reduce themselves and the barrier's
// word, or nulls (their partial rows then go to column_sum). The word is an input of zero that
// the launch must give back as zero: the harness's clobber check holds the barrier to that.
void add_grid_reduce_args(KernelLaunch& L, const std::vector<std::string>& gradients,
                          bool grid_reduce) {
  for (const std::string& name : gradients)
    L.args.push_back(grid_reduce ? pointer(name) : null_pointer());
  L.args.push_back(grid_reduce ? pointer("grid_sync") : null_pointer());
  if (!grid_reduce) return;
  L.buffers.push_back(vector("grid_sync", BufferRole::Input, DType::U32, 1, "constant:0"));
  L.cooperative = true;
}

std::vector<KernelLaunch> plan_column_sum(const KernelRef& ref, const Case& c, const Scalars&,
                                          const DeviceLimits&) {
  const std::string op = "column_sum";
  VariantReader v(op, ref.variant);
  v.finish();
  io_elem_size(op, ref.dtype);
  const Shape s = read_shape(op, c);  // rows: partial rows to add; d: columns
  KernelLaunch first;
  first.buffers.push_back(matrix("partial", BufferRole::Input, DType::F32, s.rows, s.d, s.d,
                                 "normal"));
  first.buffers.push_back(vector("out", BufferRole::Output, ref.dtype, s.d, "normal"));
  first.oracle = "kernel.column_sum";
  return {column_sum_launch(first, ref.dtype, "out", "partial", s.rows, s.d)};
}

}  // namespace ladder::kernels::detail
