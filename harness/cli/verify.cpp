// `ladder verify [KERNEL...]`: every production kernel, dtype and variant over the default shape
// grid, each rung in its own child with every sentinel, redzone, clobber and determinism check,
// against the fp64 oracles. Prints the worst error per kernel, dtype and shape. The fixture cases
// (fixtures/*.json) run too, each on its own exact inputs (harness/fixtures/fixture_rungs.h).
#include <iostream>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/fixtures/fixture_rungs.h"
#include "harness/kernels/catalog.h"
#include "harness/ladder/serialize.h"
#include "harness/report/printers.h"
#include "harness/report/run_document.h"

namespace ladder::cli {
namespace {

using Variant = std::map<std::string, std::string>;

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
// blocks, three blocks walking every row, in place; odd strides take its element-wise path.
// bulk (LayerNorm): rows copied whole into shared-memory stages; three blocks walking every row
// take the stages' barriers round many phases, with the row held in registers (ITEMS 1-2) or
// read from its stage in each pass (16-bit ITEMS 4), and with one stage; odd strides, rows
// that are not whole chunks and rows wider than the block take its element-wise path.
// Small and awkward shapes for every other variant (and the tiny hidden sizes for all).
const std::vector<std::pair<std::int64_t, std::int64_t>> kSmallShapes{
    {1, 1}, {2, 2}, {3, 3}, {7, 4}, {83, 8}, {5, 33}, {7, 769}, {83, 2049}, {257, 5125}, {3, 16383}, {3, 32765}, {3, 32768}, {2, 65536}};

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
            {{"schedule", "loop"}, {"loop_threads", "128"}, {"weight", "gemma"}, {"strided", "odd"}}};
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
std::vector<std::pair<std::int64_t, std::int64_t>> extra_shapes_of(const Variant& v) {
  if (v.count("schedule") && v.at("schedule") == "flat")
    return {{4096, 2049}, {1001, 2050}, {999, 2052}, {517, 1027}, {300, 1026}, {4095, 3073}};
  if (v.count("bulk_pool")) return {{1, 4096}, {67, 4096}, {67, 16384}, {300, 8192}};
  if (v.count("bulk_cluster") == 0) return {};
  return {{67, 4096}, {67, 16384}, {67, 32768}};
}

std::string variant_text(const Variant& v) {
  std::string s;
  for (const auto& [k, val] : v) s += fmt::format("{}{}_{}", s.empty() ? "" : "_", k, val);
  return s;
}

Rung kernel_rung(const std::string& op, DType dt, const Variant& v, std::vector<Case> cases, double eps) {
  Rung r;
  r.name = fmt::format("{}_{}{}{}", op, label(dt), v.empty() ? "" : "_", variant_text(v));
  r.adds = v.empty() ? "default variant, full grid" : "variant " + variant_text(v);
  r.features = {"production_kernel", op, std::string(label(dt))};
  r.kernel = KernelRef{op, dt, v, {}};
  r.scalars = {{"eps", eps}};
  r.deterministic = true;  // our kernels claim bitwise determinism (no atomics)
  r.cases = std::move(cases);
  r.seed = std::hash<std::string>{}(r.name);
  return r;
}

std::string ratio_cell(const RungResult& r, std::int64_t rows, std::int64_t d) {
  for (const auto& c : r.cases) {
    if (c.shape.at("rows") != rows || c.shape.at("d") != d) continue;
    if (c.failure) return std::string(label(*c.failure));
    if (c.skipped) return "skip";
    double worst = 0;
    for (const auto& n : c.numerics) worst = std::max(worst, n.worst_ratio);
    return fmt::format("{:.2f}", worst);
  }
  return "-";
}

// The worst error / bound of every default-variant rung, one table per op and dtype.
void print_worst_table(const RunDocument& doc) {
  std::cout << "\nworst error / bound per shape (default variants; rows down, d across):\n";
  for (const auto& r : doc.rungs) {
    if (r.adds != "default variant, full grid") continue;
    std::cout << fmt::format("{}\n  {:>6}", r.name, "rows");
    for (auto d : kHidden) std::cout << fmt::format(" {:>9}", d);
    std::cout << "\n";
    for (auto rows : kRows) {
      std::cout << fmt::format("  {:>6}", rows);
      for (auto d : kHidden) std::cout << fmt::format(" {:>9}", ratio_cell(r, rows, d));
      std::cout << "\n";
    }
  }
}

// The seeded-input rungs: the full grid for each op's default variant, a large-eps rung, and the
// small shapes for every other variant.
std::vector<Rung> grid_rungs(const std::vector<std::string>& ops, const std::string& dtype, bool quick) {
  std::vector<Rung> rungs;
  for (const auto& op : ops)
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
      if (!dtype.empty() && label(dt) != dtype) continue;
      std::vector<Case> grid;
      for (auto rows : kRows)
        if (!(quick && rows == 4096))
          for (auto d : kHidden) grid.push_back({{"rows", rows}, {"d", d}});
      for (auto [rows, d] : kSmallShapes) grid.push_back({{"rows", rows}, {"d", d}});
      grid.push_back({{"rows", 0}, {"d", 64}});
      rungs.push_back(kernel_rung(op, dt, {}, grid, 1e-5));
      // eps large enough to matter: catches eps dropped or placed outside the sqrt.
      rungs.push_back(kernel_rung(op, dt, {}, {{{"rows", 7}, {"d", 8}}, {{"rows", 83}, {"d", 769}}}, 0.1));
      rungs.back().name += "_eps_large";
      rungs.back().adds = "eps = 0.1: catches eps dropped or outside the sqrt";
      std::vector<Case> small;
      for (auto [rows, d] : kSmallShapes) small.push_back({{"rows", rows}, {"d", d}});
      for (const auto& v : variants_of(op)) {
        std::vector<Case> cases = small;
        for (auto [rows, d] : extra_shapes_of(v)) cases.push_back({{"rows", rows}, {"d", d}});
        rungs.push_back(kernel_rung(op, dt, v, cases, 1e-6));
      }
    }
  return rungs;
}

// The fixture rungs for the selected ops and dtype, with every skipped case printed and counted.
// Returns false (after printing why) for a malformed fixture file.
bool add_fixture_rungs(const std::vector<std::string>& files, const std::vector<std::string>& ops,
                       const std::string& dtype, std::vector<Rung>& rungs) {
  fixtures::FixtureRungs fx;
  try {
    // Not fixtures/gpu/: it holds the same inputs and case ids, with GPU-made references.
    fx = fixtures::load_fixture_rungs(files.empty() ? fixtures::fixture_paths(false) : files);
  } catch (const fixtures::FixtureError& e) {
    std::cerr << "ladder verify: " << e.what() << "\n";
    return false;
  }
  std::size_t kept = 0;
  for (auto& r : fx.rungs)
    if (std::count(ops.begin(), ops.end(), r.kernel->op) && (dtype.empty() || label(r.kernel->dtype) == dtype)) {
      rungs.push_back(std::move(r));
      ++kept;
    }
  std::cout << fmt::format("fixture cases: {} read, {} mapped to {} rungs ({} selected), {} skipped\n", fx.cases,
                           fx.mapped_cases, fx.rungs.size(), kept, fx.skipped.size());
  for (const auto& s : fx.skipped)
    std::cout << fmt::format("  skipped fixture case {} ({}): {}\n", s.case_id, s.file, s.reason);
  return true;
}

}  // namespace

void add_verify(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("verify", "verify the production kernels in isolation against the fp64 oracles");
  struct State {
    CommonOptions common;
    std::vector<std::string> ops;
    std::string dtype;
    bool quick = false;
    std::vector<std::string> fixture_files;
    bool no_fixtures = false, fixtures_only = false;
    std::string worst_from, write_ladder;
  };
  auto st = std::make_shared<State>();
  st->common.runner.timeout_s = 300;
  add_common_options(*cmd, st->common);
  cmd->add_option("kernels", st->ops, "ops to verify (default: all)");
  cmd->add_option("--dtype", st->dtype, "only this dtype (f32, f16, bf16)")->transform(dtype_option());
  cmd->add_flag("--quick", st->quick, "leave out the 4096-row shapes");
  cmd->add_option("--fixtures", st->fixture_files,
                  "fixture files whose cases run on their own inputs (default: fixtures/*.json)");
  auto* no_fx = cmd->add_flag("--no-fixtures", st->no_fixtures, "leave out the fixture cases");
  cmd->add_flag("--fixtures-only", st->fixtures_only, "run only the fixture cases")->excludes(no_fx);
  cmd->add_option("--worst-from", st->worst_from,
                  "print the worst-error tables of a finished verify run (its --json document); runs nothing")
      ->check(CLI::ExistingFile);
  cmd->add_option("--write-ladder", st->write_ladder,
                  "write the selected rungs as a ladder manifest to FILE and run nothing: `ladder run`, `sweep`, "
                  "`repro` and `bisect` then take them with --ladder FILE");
  cmd->callback([st, &exit_code] {
    if (!st->worst_from.empty()) {
      try {
        const RunDocument doc = load_run_document(st->worst_from);
        // A `ladder run` document has no grid: an empty table would read as "nothing failed".
        if (doc.ladder_name != "verify")
          throw std::runtime_error(st->worst_from + ": a run of ladder '" + doc.ladder_name +
                                   "', not of ladder verify");
        print_worst_table(doc);
      } catch (const std::exception& e) {
        std::cerr << "ladder verify: " << e.what() << "\n";
        exit_code = kExitHarness;
      }
      return;
    }
    const auto all_ops = kernels::ops();
    std::vector<std::string> ops;
    for (const auto& o : all_ops)
      if (o != "column_sum" && (st->ops.empty() || std::count(st->ops.begin(), st->ops.end(), o))) ops.push_back(o);
    for (const auto& o : st->ops)
      if (!std::count(all_ops.begin(), all_ops.end(), o)) {
        std::cerr << "ladder verify: unknown kernel '" << o << "'\n";
        exit_code = kExitHarness;
        return;
      }
    std::vector<Rung> rungs;
    if (!st->fixtures_only) rungs = grid_rungs(ops, st->dtype, st->quick);
    if (!st->no_fixtures && !add_fixture_rungs(st->fixture_files, ops, st->dtype, rungs)) {
      exit_code = kExitHarness;
      return;
    }
    if (!st->write_ladder.empty()) {
      nlohmann::json lad = {{"schema_version", 1},
                            {"ladder", "verify"},
                            {"description", "the rungs of `" + command_line() + "`"},
                            {"rungs", nlohmann::json::array()}};
      // Each rung keeps the time verify gives its child: `ladder run`'s own default is for the
      // probe ladders, and a 4096-row case with its fp64 oracle outlasts it under load.
      for (Rung r : rungs) {
        if (r.timeout_s <= 0) r.timeout_s = st->common.runner.timeout_s;
        lad["rungs"].push_back(rung_to_json(r));
      }
      try {
        write_file_atomic(st->write_ladder, lad.dump(1) + "\n");
      } catch (const std::exception& e) {
        std::cerr << "ladder verify: " << e.what() << "\n";
        exit_code = kExitHarness;
        return;
      }
      std::cout << fmt::format("wrote {} rungs to {}\n", rungs.size(), st->write_ladder);
      exit_code = kExitOk;
      return;
    }
    install_interrupt_handler();
    RunDocument doc;
    doc.command = command_line();
    doc.ladder_name = "verify";
    doc.ladder_file = "(production kernels)";
    run_and_print(rungs, st->common, doc);

    if (!st->fixtures_only) print_worst_table(doc);
    exit_code = doc.exit_code(st->common.git_bisect);
  });
}

}  // namespace ladder::cli
