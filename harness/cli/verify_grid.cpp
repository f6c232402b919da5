// The verify grid's data (verify_grid.h): which variants of each op run, on which shapes, and why.
#include "harness/cli/verify_grid.h"

namespace ladder::cli {

// The grid: rows x hidden sizes, for the default variant of every op and dtype.
const std::vector<std::int64_t> kRows{1, 7, 83, 257, 4096};
const std::vector<std::int64_t> kHidden{8, 128, 768, 769, 1024, 2049, 5120, 5125, 8192, 16384};
// staged: the cp.async-staged schedule; blocks=N pins a small grid so each block walks many rows.
// rows2/rows4: several rows a thread; odd strides put a group's rows on different chunk grids.
// wide: eight chunks a thread under a lower launch bound; the small shapes' 32768 and 65536 make
// it stream, and the tiny ones put many rows in a block. 16-bit rows of 16383 (rmsnorm) and
// 32765 or 32768 (add_rmsnorm) fill the bound in one tile, so the weight is staged in shared
// memory: strided=1 keeps such rows on the grid with a partial last chunk, stage_weight=0 takes
// the shared memory away (the kernel reads the weight from global memory).
// flat (rmsnorm, rmsnorm_bwd): packed rows off the grid read as one flat array of segments
// (extra_shapes_of), through the TMA's stages (two or three) and held in registers (flat_bulk=0),
// in place, Gemma's weight, one block an SM walking many segments; strided rows fall back to the
// register kernel.
// phase: rows of one phase a block (16-bit rows off the grid: the small shapes' odd d, odd
// strides), phase_grid=8 making eight blocks walk every row, in place, one chunk a thread, and
// rows on the grid; rows too wide for one tile (the small shapes' widest) take the register
// kernel. phase_prefetch: the build that asks the L2 for a row ahead where auto does not take
// it (1: 16-bit forward; 0: fp32 LayerNorm and the backward), once with eight blocks (each walks
// many rows, so the rows asked for run past the last), the forward with and without its loads
// ahead.
// warp: a row in one warp at up to 12 chunks a thread; rows wider than that, and warp_items=6,
// stream; odd strides put the rows off the 16-byte grid (OFF_GRID).
// packed: spans of packed rows as one flat array; span_rows=8 makes many small spans and a short
// last one, packed_threads narrow and wide blocks; strided rows (and rows shorter than a chunk)
// fall back to the register kernel.
// decode: one chunk a thread, one row a block, at any rows (the small shapes' wider rows fall
// back to the register kernel); odd strides take its element-wise path. row (every forward op):
// the row-a-block kernels at eight chunks a thread (row_items=4: four), the weights staged
// (row_grid=3: three blocks walking every row, the weights staged once a block); odd
// strides, and a weight left unstaged (stage_weight=0), take their element-wise path. loop
// (every forward op): the streamed row (LayerNorm's at both pass counts), narrow and wide
// blocks, three blocks walking every row, in place; odd strides take its element-wise path;
// loop_hold (RMSNorm, LayerNorm): the row held in registers, at 1-8 chunks a thread (1032 and
// 32768 leave threads with fewer chunks than others, or none), and odd strides streaming.
// bulk (LayerNorm): rows copied whole into shared-memory stages; three blocks walking every row
// take the stages' barriers round many phases, with the row held in registers (ITEMS 1-2) or
// read from its stage in each pass (16-bit ITEMS 4), and with one stage; odd strides, rows
// that are not whole chunks and rows wider than the block take its element-wise path.
// Small and awkward shapes for every other variant (and the tiny hidden sizes for all); zero
// rows at a width most schedules take, since zero rows must be a no-op on every path.
const Shapes kSmallShapes{
    {0, 4096}, {1, 1}, {2, 2}, {3, 3}, {7, 4}, {83, 8}, {5, 33}, {7, 769}, {83, 2049}, {257, 5125}, {5, 1032}, {3, 16383}, {3, 32765}, {3, 32768}, {2, 65536}};

std::vector<Variant> variants_of(const std::string& op) {
  if (op == "rmsnorm")
    return {{{"weight", "none"}}, {{"weight", "gemma"}}, {{"inplace", "y_x"}}, {{"strided", "1"}},
            {{"strided", "odd"}}, {{"write_rstd", "0"}}, {{"schedule", "staged"}},
            {{"schedule", "staged"}, {"stages", "2"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "staged"}, {"strided", "odd"}}, {{"schedule", "staged"}, {"items", "1"}},
            {{"schedule", "staged"}, {"blocks", "3"}}, {{"schedule", "staged"}, {"blocks", "7"}, {"stages", "2"}},
            {{"schedule", "rows2"}}, {{"schedule", "rows4"}},
            {{"schedule", "rows2"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "rows2"}, {"strided", "odd"}}, {{"schedule", "rows2"}, {"weight", "none"}},
            {{"schedule", "rows4"}, {"strided", "odd"}, {"write_rstd", "0"}},
            {{"schedule", "wide"}}, {{"schedule", "wide"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "wide"}, {"strided", "odd"}, {"weight", "none"}},
            {{"schedule", "wide"}, {"strided", "1"}}, {{"schedule", "wide"}, {"stage_weight", "0"}},
            {{"schedule", "phase"}}, {{"schedule", "phase"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"inplace", "y_x"}},
            {{"schedule", "phase"}, {"items", "1"}, {"weight", "none"}, {"strided", "1"}},
            {{"schedule", "phase"}, {"phase_prefetch", "1"}, {"phase_grid", "8"}, {"weight", "gemma"}},
            {{"schedule", "phase"}, {"phase_prefetch", "1"}, {"strided", "1"}},
            {{"schedule", "flat"}}, {{"schedule", "flat"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "flat"}, {"weight", "none"}, {"write_rstd", "0"}, {"flat_blocks_per_sm", "1"}},
            {{"schedule", "flat"}, {"strided", "1"}}, {{"schedule", "flat"}, {"flat_stages", "2"}},
            {{"schedule", "flat"}, {"flat_bulk", "0"}}, {{"schedule", "flat"}, {"flat_bulk", "0"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "warp"}}, {{"schedule", "warp"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "warp"}, {"strided", "odd"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "warp"}, {"warp_items", "6"}, {"strided", "odd"}},
            {{"schedule", "packed"}}, {{"schedule", "packed"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "packed"}, {"weight", "none"}, {"write_rstd", "0"}, {"packed_threads", "128"}},
            {{"schedule", "packed"}, {"span_rows", "8"}, {"packed_threads", "1024"}},
            {{"schedule", "packed"}, {"strided", "odd"}},
            {{"schedule", "packed"}, {"weight_copies", "one"}, {"weight", "gemma"}},
            {{"schedule", "decode"}}, {{"schedule", "decode"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "decode"}, {"strided", "odd"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "decode"}, {"strided", "1"}},
            {{"schedule", "row"}}, {{"schedule", "row"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "row"}, {"strided", "odd"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "row"}, {"strided", "1"}, {"stage_weight", "0"}},
            {{"schedule", "row"}, {"row_items", "4"}, {"weight", "gemma"}},
            {{"schedule", "row"}, {"row_grid", "3"}, {"inplace", "y_x"}},
            {{"schedule", "loop"}}, {{"schedule", "loop"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "loop"}, {"strided", "odd"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "loop"}, {"strided", "1"}, {"loop_grid", "3"}, {"loop_threads", "1024"}},
            {{"schedule", "loop"}, {"loop_threads", "128"}, {"weight", "gemma"}, {"strided", "odd"}},
            {{"schedule", "loop"}, {"loop_hold", "4"}},
            {{"schedule", "loop"}, {"loop_hold", "8"}, {"loop_threads", "1024"}, {"inplace", "y_x"}, {"weight", "gemma"}},
            {{"schedule", "loop"}, {"loop_hold", "2"}, {"loop_threads", "64"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "loop"}, {"loop_hold", "4"}, {"strided", "odd"}},
            {{"schedule", "loop"}, {"loop_hold", "4"}, {"strided", "1"}, {"loop_grid", "3"}}};
  if (op == "add_rmsnorm")
    return {{{"convention", "B"}}, {{"inplace", "h_r"}}, {{"inplace", "y_x"}}, {{"inplace", "both"}},
            {{"strided", "odd"}}, {{"strided", "1"}}, {{"weight", "gemma"}}, {{"weight", "none"}},
            {{"convention", "B"}, {"inplace", "both"}}, {{"schedule", "staged"}},
            {{"schedule", "staged"}, {"stages", "2"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "staged"}, {"strided", "odd"}}, {{"schedule", "staged"}, {"weight", "none"}, {"items", "1"}},
            {{"schedule", "staged"}, {"blocks", "3"}, {"inplace", "both"}},
            {{"schedule", "staged"}, {"blocks", "7"}, {"stages", "2"}, {"strided", "odd"}},
            {{"schedule", "wide"}}, {{"schedule", "wide"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "wide"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "wide"}, {"strided", "1"}}, {{"schedule", "wide"}, {"stage_weight", "0"}},
            {{"schedule", "phase"}}, {{"schedule", "phase"}, {"strided", "odd"}, {"convention", "B"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"inplace", "both"}, {"weight", "gemma"}},
            {{"schedule", "phase"}, {"items", "1"}, {"weight", "none"}, {"inplace", "h_r"}},
            {{"schedule", "phase"}, {"phase_prefetch", "1"}, {"phase_grid", "8"}, {"inplace", "both"}},
            {{"schedule", "phase"}, {"phase_prefetch", "1"}, {"items", "3"}, {"strided", "1"}},
            {{"schedule", "warp"}}, {{"schedule", "warp"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "warp"}, {"strided", "odd"}, {"weight", "gemma"}, {"inplace", "h_r"}},
            {{"schedule", "warp"}, {"warp_items", "6"}, {"strided", "odd"}, {"convention", "B"}},
            {{"schedule", "packed"}}, {{"schedule", "packed"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "packed"}, {"inplace", "h_r"}, {"weight", "gemma"}},
            {{"schedule", "packed"}, {"weight", "none"}, {"span_rows", "8"}, {"packed_threads", "128"}},
            {{"schedule", "packed"}, {"weight_copies", "one"}, {"inplace", "both"}},
            {{"schedule", "decode"}}, {{"schedule", "decode"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "decode"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "decode"}, {"inplace", "h_r"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "row"}}, {{"schedule", "row"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "row"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "row"}, {"weight", "none"}, {"write_rstd", "0"}},
            {{"schedule", "row"}, {"stage_weight", "0"}, {"inplace", "h_r"}},
            {{"schedule", "row"}, {"row_items", "4"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "row"}, {"row_grid", "3"}, {"weight", "gemma"}, {"inplace", "h_r"}},
            {{"schedule", "loop"}}, {{"schedule", "loop"}, {"inplace", "both"}, {"convention", "B"}},
            {{"schedule", "loop"}, {"strided", "odd"}, {"weight", "gemma"}, {"inplace", "h_r"}},
            {{"schedule", "loop"}, {"strided", "1"}, {"loop_grid", "3"}, {"loop_threads", "1024"}},
            {{"schedule", "loop"}, {"loop_threads", "128"}, {"weight", "none"}, {"write_rstd", "0"}, {"inplace", "y_x"}}};
  if (op == "layernorm")
    return {{{"affine", "0"}}, {{"affine", "gamma"}}, {{"affine", "beta"}, {"strided", "odd"}},
            {{"inplace", "y_x"}}, {{"strided", "odd"}}, {{"strided", "1"}},
            {{"schedule", "wide"}}, {{"schedule", "wide"}, {"inplace", "y_x"}, {"strided", "odd"}},
            {{"schedule", "wide"}, {"affine", "0"}},
            {{"schedule", "phase"}}, {{"schedule", "phase"}, {"strided", "odd"}, {"affine", "gamma"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"inplace", "y_x"}, {"affine", "beta"}},
            {{"schedule", "phase"}, {"items", "1"}, {"affine", "0"}, {"strided", "1"}},
            {{"schedule", "phase"}, {"phase_prefetch", "1"}, {"phase_grid", "8"}, {"items", "2"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"items", "3"}, {"inplace", "y_x"}},
            {{"schedule", "warp"}}, {{"schedule", "warp"}, {"inplace", "y_x"}, {"strided", "odd"}},
            {{"schedule", "warp"}, {"affine", "beta"}, {"strided", "odd"}},
            {{"schedule", "warp"}, {"warp_items", "6"}, {"strided", "odd"}, {"affine", "gamma"}},
            {{"schedule", "packed"}}, {{"schedule", "packed"}, {"affine", "0"}, {"inplace", "y_x"}},
            {{"schedule", "packed"}, {"span_rows", "8"}, {"packed_threads", "1024"}},
            {{"schedule", "packed"}, {"weight_copies", "one"}},
            {{"schedule", "row"}}, {{"schedule", "row"}, {"affine", "0"}, {"inplace", "y_x"}},
            {{"schedule", "row"}, {"strided", "odd"}}, {{"schedule", "row"}, {"stage_weight", "0"}},
            {{"schedule", "row"}, {"row_items", "4"}, {"inplace", "y_x"}},
            {{"schedule", "row"}, {"row_grid", "3"}, {"row_items", "4"}},
            {{"schedule", "loop"}}, {{"schedule", "loop"}, {"loop_passes", "2"}},
            {{"schedule", "loop"}, {"affine", "0"}, {"inplace", "y_x"}, {"loop_threads", "128"}},
            {{"schedule", "loop"}, {"affine", "gamma"}}, {{"schedule", "loop"}, {"affine", "beta"}, {"loop_passes", "2"}},
            {{"schedule", "row"}, {"affine", "beta"}}, {{"schedule", "packed"}, {"affine", "gamma"}},
            {{"schedule", "loop"}, {"strided", "odd"}, {"loop_passes", "2"}},
            {{"schedule", "loop"}, {"strided", "1"}, {"loop_grid", "3"}, {"loop_threads", "1024"}},
            {{"schedule", "loop"}, {"loop_grid", "resident"}, {"loop_passes", "2"}, {"inplace", "y_x"}},
            {{"schedule", "loop"}, {"loop_hold", "4"}},
            {{"schedule", "loop"}, {"loop_hold", "4"}, {"affine", "0"}, {"inplace", "y_x"}, {"loop_grid", "3"}},
            {{"schedule", "loop"}, {"loop_hold", "4"}, {"affine", "gamma"}, {"strided", "1"}},
            {{"schedule", "loop"}, {"loop_hold", "8"}, {"loop_threads", "1024"}, {"affine", "beta"}},
            {{"schedule", "loop"}, {"loop_hold", "2"}, {"loop_threads", "64"}, {"strided", "odd"}},
            {{"schedule", "bulk"}}, {{"schedule", "bulk"}, {"affine", "0"}, {"inplace", "y_x"}},
            {{"schedule", "bulk"}, {"strided", "odd"}}, {{"schedule", "bulk"}, {"strided", "1"}, {"bulk_grid", "3"}},
            {{"schedule", "bulk"}, {"bulk_items", "4"}, {"bulk_grid", "3"}},
            {{"schedule", "bulk"}, {"bulk_items", "4"}, {"bulk_stages", "1"}, {"bulk_grid", "3"}, {"inplace", "y_x"}},
            {{"schedule", "bulk"}, {"bulk_stages", "1"}, {"bulk_grid", "3"}, {"write_stats", "0"}},
            {{"schedule", "bulk"}, {"bulk_threads", "1024"}, {"bulk_items", "1"}},
            {{"schedule", "bulk"}, {"affine", "gamma"}}};
  // shift=0: misaligned rows on the unshifted kernel (gathered); shift=1: the shifted kernel with
  // rows of one group at different phases (its per-row fallback).
  // phase: rows of one phase a block (the small shapes' odd d), on different phases (odd
  // strides: the element-wise path), eight blocks walking every row, each ITEMS.
  if (op == "rmsnorm_bwd")
    return {{{"weight", "gemma"}}, {{"weight", "none"}}, {{"strided", "odd"}}, {{"shift", "0"}},
            {{"shift", "1"}}, {{"pdl", "0"}}, {{"strided", "odd"}, {"partial_rows", "global"}},
            // early=1: the next row's loads at the top of each row and the L2 asked for the row
            // after next (auto's build for 16-bit rows in blocks of 256 threads or more), at
            // every width: one tile, streamed (the widest), gathered (odd strides), no weight.
            {{"schedule", "regs"}, {"early", "1"}, {"items", "2"}, {"shift", "0"}},
            {{"schedule", "regs"}, {"early", "1"}, {"items", "1"}, {"shift", "0"}, {"weight", "gemma"}, {"strided", "1"}},
            {{"schedule", "regs"}, {"early", "1"}, {"items", "2"}, {"shift", "0"}, {"strided", "odd"}},
            {{"schedule", "regs"}, {"early", "1"}, {"items", "2"}, {"shift", "0"}, {"weight", "none"}, {"pdl", "0"}},
            {{"schedule", "flat"}}, {{"schedule", "flat"}, {"weight", "gemma"}, {"flat_blocks_per_sm", "1"}},
            {{"schedule", "flat"}, {"weight", "none"}}, {{"schedule", "flat"}, {"strided", "odd"}},
            {{"schedule", "flat"}, {"flat_bulk", "0"}}, {{"schedule", "flat"}, {"flat_bulk", "0"}, {"weight", "gemma"}},
            {{"schedule", "phase"}}, {{"schedule", "phase"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"weight", "none"}},
            {{"schedule", "phase"}, {"phase_items", "1"}, {"strided", "1"}},
            {{"schedule", "phase"}, {"phase_items", "2"}, {"pdl", "0"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"phase_grid", "8"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"strided", "1"}},
            // bulk: as layernorm_bwd's.
            {{"schedule", "bulk"}}, {{"schedule", "bulk"}, {"weight", "gemma"}, {"strided", "1"}},
            {{"schedule", "bulk"}, {"weight", "none"}}, {{"schedule", "bulk"}, {"strided", "odd"}},
            {{"schedule", "bulk"}, {"bulk_grid", "3"}},
            {{"schedule", "bulk"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}, {"pdl", "0"}},
            // bulk_cluster: as layernorm_bwd's.
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"bulk_grid", "3"}, {"weight", "gemma"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"strided", "odd"}, {"weight", "none"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"cluster_exchange", "barrier"}, {"bulk_grid", "3"}},
            // reduce=grid: dw reduced by the bulk kernel after a grid-wide barrier; on either
            // path (odd strides: element-wise), three blocks, and clusters.
            {{"schedule", "bulk"}, {"reduce", "grid"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"bulk_grid", "3"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"bulk_cluster", "2"}},
            // bulk_pool: two blocks a cluster, each on whole rows, pool their dw sums into one
            // partial row; a cluster with a block of no rows (1 and 67 rows), three clusters
            // walking many rows each, odd strides (the element-wise path in each cluster's first
            // block), and the kernel's own reduce.
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "2"}, {"bulk_threads", "1024"}, {"bulk_grid", "3"}, {"weight", "gemma"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "256"}, {"strided", "odd"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}, {"weight", "none"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}, {"reduce", "grid"}}};
  if (op == "add_rmsnorm_bwd")
    return {{{"weight", "gemma"}}, {{"dh", "0"}}, {{"strided", "odd"}}, {{"shift", "0"}},
            {{"shift", "1"}}, {{"strided", "odd"}, {"partial_rows", "global"}, {"dh", "1"}},
            // early=1: the L2 asked for the next row before each row's loads (auto's build for
            // 16-bit rows in blocks of 256 threads or more where the DRAM gives an SM 15 bytes a
            // cycle), with and without dh and dr, odd strides gathered.
            {{"schedule", "regs"}, {"early", "1"}, {"items", "2"}, {"shift", "0"}, {"dh", "1"}},
            {{"schedule", "regs"}, {"early", "1"}, {"items", "2"}, {"shift", "0"}, {"write_dr", "0"}, {"weight", "gemma"}},
            {{"schedule", "regs"}, {"early", "1"}, {"items", "2"}, {"shift", "0"}, {"strided", "odd"}},
            // phase: as rmsnorm_bwd's, with and without dh and dr.
            {{"schedule", "phase"}}, {{"schedule", "phase"}, {"dh", "1"}, {"weight", "gemma"}},
            {{"schedule", "phase"}, {"write_dr", "0"}, {"strided", "odd"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"dh", "1"}, {"strided", "1"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"write_dr", "0"}, {"weight", "gemma"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"phase_grid", "8"}, {"dh", "1"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"strided", "1"}},
            // bulk: as layernorm_bwd's, with and without dh and dr.
            {{"schedule", "bulk"}}, {{"schedule", "bulk"}, {"dh", "1"}, {"weight", "gemma"}},
            {{"schedule", "bulk"}, {"write_dr", "0"}, {"strided", "1"}},
            {{"schedule", "bulk"}, {"dh", "1"}, {"strided", "odd"}, {"weight", "none"}},
            {{"schedule", "bulk"}, {"bulk_grid", "3"}, {"dh", "1"}},
            {{"schedule", "bulk"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}, {"write_dr", "0"}},
            // bulk_cluster: as layernorm_bwd's.
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"dh", "1"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}, {"write_dr", "0"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"strided", "odd"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"cluster_exchange", "barrier"}, {"dh", "1"}},
            // reduce=grid: as rmsnorm_bwd's.
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"dh", "1"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"strided", "odd"}, {"write_dr", "0"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"bulk_grid", "3"}, {"dh", "1"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"bulk_cluster", "2"}},
            // bulk_pool: as rmsnorm_bwd's, with and without dh and dr.
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}, {"dh", "1"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "2"}, {"bulk_threads", "1024"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}, {"write_dr", "0"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "256"}, {"strided", "odd"}, {"weight", "gemma"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}, {"reduce", "grid"}, {"dh", "1"}}};
  if (op == "layernorm_bwd")
    return {{{"affine", "0"}}, {{"strided", "odd"}}, {{"shift", "0"}}, {{"shift", "1"}},
            {{"strided", "odd"}, {"partial_rows", "global"}},
            {{"stats", "recompute"}}, {{"stats", "recompute"}, {"strided", "odd"}},
            {{"stats", "recompute"}, {"affine", "0"}}, {{"column_sums", "separate"}},
            {{"column_sums", "separate"}, {"pdl", "0"}, {"strided", "odd"}},
            // phase: as rmsnorm_bwd's, with either statistics.
            {{"schedule", "phase"}}, {{"schedule", "phase"}, {"stats", "recompute"}},
            {{"schedule", "phase"}, {"affine", "0"}, {"strided", "odd"}},
            {{"schedule", "phase"}, {"phase_grid", "8"}, {"stats", "recompute"}, {"strided", "1"}},
            {{"schedule", "phase"}, {"phase_items", "1"}, {"column_sums", "separate"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"phase_grid", "8"}, {"stats", "recompute"}},
            {{"schedule", "phase"}, {"phase_prefetch", "0"}, {"strided", "1"}},
            // bulk: rows staged whole; odd strides take its element-by-element path, three
            // blocks walk many rows each (the barriers' phases wrap: with one stage every row).
            {{"schedule", "bulk"}}, {{"schedule", "bulk"}, {"stats", "recompute"}},
            {{"schedule", "bulk"}, {"affine", "0"}, {"strided", "1"}},
            {{"schedule", "bulk"}, {"strided", "odd"}},
            {{"schedule", "bulk"}, {"strided", "odd"}, {"stats", "recompute"}, {"pdl", "0"}},
            {{"schedule", "bulk"}, {"bulk_grid", "3"}},
            {{"schedule", "bulk"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}, {"stats", "recompute"}},
            // bulk_cluster: each row split over a cluster of two blocks, which add their row
            // sums through each other's shared memory (either exchange: auto's st.async, or a
            // barrier); three clusters walking many rows each; odd strides take the element-wise
            // path in each cluster's first block.
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"stats", "recompute"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}, {"affine", "0"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"strided", "odd"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"bulk_grid", "3"}, {"strided", "1"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"cluster_exchange", "async"}, {"stats", "recompute"}},
            {{"schedule", "bulk"}, {"bulk_cluster", "2"}, {"cluster_exchange", "barrier"}, {"bulk_grid", "3"}},
            // reduce=grid: dgamma and dbeta reduced by the bulk kernel after one grid-wide
            // barrier, as rmsnorm_bwd's.
            {{"schedule", "bulk"}, {"reduce", "grid"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"strided", "odd"}, {"stats", "recompute"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"bulk_grid", "3"}},
            {{"schedule", "bulk"}, {"reduce", "grid"}, {"bulk_cluster", "2"}},
            // bulk_pool: as rmsnorm_bwd's, with either statistics (two partial rows pooled).
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}, {"stats", "recompute"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "2"}, {"bulk_threads", "1024"}, {"bulk_grid", "3"}, {"bulk_stages", "1"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "256"}, {"strided", "odd"}, {"affine", "0"}},
            {{"schedule", "bulk"}, {"bulk_pool", "2"}, {"bulk_items", "4"}, {"bulk_threads", "512"}, {"reduce", "grid"}}};
  return {};
}

// Shapes a variant adds to the small ones: the clusters' bulk path needs rows a whole number of
// cluster-wide chunks, which the small shapes give only at 32768 and 65536 with two or three rows.
// schedule=flat: packed rows at each d mod VEC it is built for (2049, 2050, 2052 and 1027 in
// 16-bit and fp32), with a segment of fewer rows at the end, and 4096 rows where blocks walk many
// segments on the fast path.
Shapes extra_shapes_of(const Variant& v) {
  if (v.count("schedule") && v.at("schedule") == "flat")
    return {{4096, 2049}, {1001, 2050}, {999, 2052}, {517, 1027}, {300, 1026}, {4095, 3073}};
  if (v.count("bulk_pool")) return {{1, 4096}, {67, 4096}, {67, 16384}, {300, 8192}};
  if (v.count("bulk_cluster") == 0) return {};
  return {{67, 4096}, {67, 16384}, {67, 32768}};
}

}  // namespace ladder::cli
