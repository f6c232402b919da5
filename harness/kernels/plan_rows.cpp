// schedule=rows2|rows4 for rmsnorm: the geometry of rmsnorm_fwd_rows (kernels/rmsnorm.cuh), where
// each row group normalizes several rows at once, sharing one read of the weight and one
// reduction.
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

int read_rows(VariantReader& v, std::size_t elem_size, const Shape& s, bool misaligned,
              const RowLimits& limits, int forced_items, int rows_per_block, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", kRmsnormSchedules);
  int rows = schedule == "rows2" ? 2 : schedule == "rows4" ? 4 : 1;
  // auto: where the H200 measured two rows a thread faster (reports/h200/sweep-rows.txt, call 24):
  // 16-bit rows that the register kernel gives one warp of four chunks a thread (d = 769..1024 on
  // the 16-byte grid), with rows enough to fill the machine. rmsnorm bf16 65536x1024: 0.915 and
  // 0.929 of the copy ceiling against 0.878 and 0.885. At d = 4096 it measured the same as the
  // register kernel, at 8192 and 16384 and for fp32 slower, and four rows a thread slower.
  if (schedule == "auto" && forced_items == 0 && rows_per_block == 0 && elem_size == 2 &&
      !misaligned && s.rows >= 2 * std::int64_t{limits.sm_count} && g.threads_per_row == 32 &&
      g.items == 4 && !g.streams)
    rows = 2;
  if (rows == 1) return 1;
  // A thread holds every row's chunks and the weight's at once: the register kernel's spill-free
  // values split over the rows (ptxas -v, sm_90: bf16 ITEMS 2 x 2 rows and fp32 ITEMS 2 x 2 rows
  // at 64 registers without spills, bf16 ITEMS 2 x 4 rows spilling 1.3 KiB).
  RowLimits m = limits;
  m.spill_free_values_16bit = 32 / rows;
  m.spill_free_values_fp32 = 16 / rows;
  m.stream_rather_than_spill = true;  // a wider ITEMS would spill; streaming is not supported
  m.one_warp_block_threads_16bit = 0;  // measured with eight rows a block (sweep-rows.txt)
  m.preferred_threads_per_row = 0;
  const std::int64_t groups = (s.rows + rows - 1) / rows;
  RowGeometry rg = choose_row_geometry(elem_size, groups, s.d, misaligned, m, forced_items);
  // The kernel keeps every row in registers: a row that needs two tiles takes the register
  // kernel, as schedule=staged does for rows it cannot stage.
  if (rg.streams) return 1;
  apply_rows_per_block("rmsnorm", rows_per_block, groups, rg);
  g = rg;
  return rows;
}

}  // namespace ladder::kernels::detail
