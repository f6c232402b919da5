// Small pieces the catalog's per-op planners share: reading and validating a KernelRef's variant
// and a case, and building buffers and arguments. Internal to harness/kernels/.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/kernels/device_limits.h"
#include "harness/kernels/row_geometry.h"
#include "harness/ladder/launch.h"

namespace ladder::kernels::detail {

// The largest hidden size plan() accepts. The kernels stream rows that do not fit one tile, so
// the bound only keeps column arithmetic far from int overflow.
constexpr std::int64_t kMaxHiddenSize = std::int64_t{1} << 24;

// Throws std::invalid_argument("OP: MESSAGE").
[[noreturn]] void fail(const std::string& op, const std::string& message);

// A selftest's broken launch (`key`=narrow_tile): the block one warp narrower than its tile
// needs, so the kernel's one-tile guard must trap. A row of one warp or less has no such block.
void narrow_by_one_warp(const std::string& op, const std::string& key, RowGeometry& g);

// Reads variant keys with defaults and allowed values; finish() rejects keys nobody asked for,
// so a misspelt key is an error rather than a silently ignored option.
class VariantReader {
 public:
  VariantReader(std::string op, const std::map<std::string, std::string>& variant);
  std::string get(const std::string& key, const std::string& fallback,
                  const std::vector<std::string>& allowed);
  // The value get() returns for key where the variant leaves it absent or "auto", in place of
  // the caller's fallback: how a planner resolves schedule=auto to one schedule for every reader.
  void resolve_auto(const std::string& key, std::string value);
  // Whether the variant names only these keys (any value) and schedule=auto, if anything.
  bool names_only(const std::set<std::string>& keys) const;
  int items(std::size_t elem_size, const RowLimits& limits);  // the optional "items" override
  int rows_per_block();  // the optional "rpb" override (rows per block), 0 when absent
  void finish() const;

 private:
  std::string op_;
  const std::map<std::string, std::string>& variant_;
  std::set<std::string> used_;
  std::map<std::string, std::string> resolved_;
};

// Applies an "rpb" override to a geometry (tuning sweeps): rpb row groups per block, at most
// 1024 threads.
void apply_rows_per_block(const std::string& op, int rows_per_block, std::int64_t rows,
                          RowGeometry& g);

struct Shape {
  std::int64_t rows = 0, d = 0;
};
Shape read_shape(const std::string& op, const Case& c);
double read_eps(const std::string& op, const std::map<std::string, double>& scalars);

// An op's row limits on a device: its SM count (the rest are the kernels' own).
RowLimits with_device(RowLimits limits, const DeviceLimits& device);

// The staged schedule of rmsnorm and add_rmsnorm (kernels/staged_common.cuh), from variant keys
// "schedule=auto|regs|staged", "stages=auto|2|3" and "blocks=auto|1|3|7" (a fixed grid, for
// tests); `tensors` is how many inputs it stages.
// staged applies where one tile of at most 1024 threads covers the row and the stages fit
// `device`'s opt-in shared memory of a block; elsewhere the register kernel runs. auto picks it
// from the register kernel's geometry g, where it measured faster. When staged, g becomes the
// staged block, ITEMS and a grid of about the blocks `device` holds resident.
struct StagedPlan {
  bool staged = false;
  int stages = 2;
  std::uint32_t shared_bytes = 0;
};
// The values of the "schedule" variant: every forward op with a staged kernel, and rmsnorm, which
// also has rows2|rows4 (rmsnorm_fwd_rows); each also has wide (read_wide), packed (read_packed)
// and decode (read_decode). layernorm has the register kernel, plain or wide, and packed.
extern const std::vector<std::string> kStagedSchedules;
extern const std::vector<std::string> kRmsnormSchedules;
extern const std::vector<std::string> kLayernormSchedules;
// The ITEMS values schedule=warp is instantiated with (plan_wide.cpp).
extern const std::vector<int> kWarpItems;

// schedule=wide (plan_wide.cpp): the register kernel at 8 chunks a thread, instantiated with a
// launch bound of 256 or 512 threads (MAX_THREADS) so that ptxas may give a thread more than 64
// registers. auto takes it where the H200 measured it faster. Returns the launch bound when
// wide (and rewrites g, the register geometry, for it), 0 otherwise. It also reads
// schedule=warp, the same kernel with a row in one warp at up to 12 chunks a thread, eight rows
// a block under a bound of 256 (warp_items=auto|6|9|12), and returns its bound. Call it before
// read_staged and read_rows: neither applies to a wide geometry.
int read_wide(VariantReader& v, const std::string& op, const std::vector<std::string>& schedules,
              std::size_t elem_size, const Shape& s, bool misaligned, const RowLimits& limits,
              int forced_items, int rows_per_block, RowGeometry& g);

// Whether one row of a wide geometry fills its launch bound: add_rmsnorm's 512 threads at 128
// registers are then alone on their SM, rmsnorm's 256 (80 registers) share it with two others.
// Their kernels then stage the weight in shared memory (STAGE_WEIGHT).
bool wide_fills_bound(const RowGeometry& g, int bound);

// The dynamic shared memory a STAGE_WEIGHT launch is given: the weight's whole 16-byte chunks
// (norm::StagedWeight). 0 where the build does not stage, the row streams, there is no weight, or
// `staged` is false (variant stage_weight=0: the kernel then reads the weight from global memory).
std::uint32_t staged_weight_bytes(const RowGeometry& g, int bound, std::size_t elem_size,
                                  std::int64_t d, bool has_weight, bool staged);

// schedule=packed (plan_packed.cpp): the packed-span kernels (kernels/packed_norm.cuh), for rows
// stored back to back (dense: every row stride equals d). A block takes span_rows rows at a time
// as one flat array through two shared-memory stages of `tensors` inputs each, with its
// `weights` weight tensors (1 or 2) there as shifted copies: shared_bytes in all. g becomes that
// 1-D block and a grid of about the blocks `device` holds resident. Variant keys packed_threads,
// span_rows (a multiple of the rows that keep spans on the 16-byte grid) and weight_copies
// (shifted: VEC shifted copies; one: the weight alone, read with a funnel shift) pin it.
// auto takes it where the H200 measured it faster (plan_packed.cpp says where). Where it does not
// apply (strided rows, d below one chunk, a span over the block's shared memory) g is left alone
// and the register kernel runs.
struct PackedPlan {
  bool packed = false;
  bool shifted_weight = true;  // the kernels' SHIFTED_WEIGHT (weight_copies=shifted|one)
  int span_rows = 0;
  std::uint32_t shared_bytes = 0;
};
PackedPlan read_packed(VariantReader& v, const std::string& op,
                       const std::vector<std::string>& schedules, std::size_t elem_size,
                       int weights, int tensors, const Shape& s, bool dense, int forced_items,
                       int rows_per_block, const DeviceLimits& device, RowGeometry& g);

// rows_schedules: the op takes kRmsnormSchedules, and read_rows() plans rows2|rows4;
// read_staged leaves those to it.
StagedPlan read_staged(VariantReader& v, const std::string& op, std::size_t elem_size,
                       int tensors, const Shape& s, bool misaligned, int forced_items,
                       const std::vector<int>& allowed, const DeviceLimits& device,
                       RowGeometry& g, bool rows_schedules = false);

// schedule=rows2|rows4 (rmsnorm): each row group normalizes 2 or 4 rows at once; auto takes 2
// where it measured faster. Returns the rows a thread takes (1: the register kernel, geometry
// untouched) and rewrites g for them. Only where one tile covers the row at ITEMS that fit the
// registers with that many rows; elsewhere 1. g: the register kernel's geometry.
int read_rows(VariantReader& v, std::size_t elem_size, const Shape& s, bool misaligned,
              const RowLimits& limits, int forced_items, int rows_per_block, RowGeometry& g);

// schedule=decode (plan_decode.cpp): rmsnorm_fwd_decode and add_rmsnorm_fwd_decode, one chunk a
// thread and one row a block, where one block of at most 1024 threads covers the row (elsewhere
// the register kernel runs). auto takes it for few rows on the 16-byte grid that the register
// geometry g already gives one chunk a thread in whole warps; other_schedule: another schedule
// was taken. Returns true when decode, and rewrites g for it.
bool read_decode(VariantReader& v, const std::vector<std::string>& schedules,
                 std::size_t elem_size, const Shape& s, bool misaligned, const RowLimits& limits,
                 int forced_items, int rows_per_block, bool other_schedule, RowGeometry& g);

// schedule=row (plan_decode.cpp): the row-a-block kernels (kernels/block_row.cuh), ITEMS chunks a
// thread in a block of THREADS, one row a block, the weights staged in shared memory; where that
// block covers the row (elsewhere the register kernel runs). row_items=4|8 picks ITEMS (auto: 8;
// ITEMS 4 measured level with it, call 117), row_threads the block (auto: the narrowest that
// covers the row): 64-512 threads at ITEMS 8 (128 registers), 128-1024 at ITEMS 4 (64). auto
// takes it where the caller says (auto_takes). Returns true when taken, and rewrites g for it.
// row_items=auto: block_row_auto_items.
inline const std::vector<std::string> kBlockRowWidths{"auto", "64", "128", "256", "512", "1024"};
inline const std::vector<std::string> kBlockRowItemsChoices{"auto", "4", "8"};
// row_items=auto: 8, except LayerNorm's 16-bit rows of up to kBlockRowItems4MaxChunksLayernorm
// chunks, which take 4 (twice the warps for its two reductions). Measured on the H200 (call 119,
// reports/h200/bench-row-items-2.txt, two repeats): layernorm bf16 16384x4096 72.8 us against
// 76.0-76.3 (0.873-0.876 of the copy ceiling against 0.836-0.839), 8192x8192 75.3 against 76.6;
// at 2048 chunks (4096x16384) 82.0 against 80.3, and fp32 lost or tied at every d, so they keep
// 8; rmsnorm tied (calls 117 and 119).
inline constexpr std::int64_t kBlockRowItems4MaxChunksLayernorm = 1024;
int block_row_auto_items(const std::string& op, std::size_t elem_size, std::int64_t chunks);
// row_grid=auto|rows|resident|3 (schedule=row only): one block a row; as many blocks as the SMs
// hold at once (the launch bound's registers, the shared memory), each walking rows
// blockIdx.x + k * gridDim.x with its weights staged once; or three blocks (for tests: each walks
// many rows). auto: resident where the caller says (auto_resident), else rows. A plan error
// without schedule=row; ignored where the row kernel does not cover the row. read_row_grid
// returns 0 (rows), -1 (resident) or the blocks; apply_row_grid sets g.blocks.
int read_row_grid(VariantReader& v, const std::string& op,
                  const std::vector<std::string>& schedules, bool block_row, bool auto_resident);
void apply_row_grid(int grid, const DeviceLimits& device, std::int64_t rows,
                    std::uint32_t shared_bytes, RowGeometry& g);
// LayerNorm's rows of 2048 chunks or more take the resident grid, and rows up to 4096 chunks the
// row kernel: a block a row re-stages gamma and beta (twice the row's own bytes in 16 bits) for
// every row. Measured on the H200 (calls 121-122, reports/h200/bench-row-grid.txt,
// bench-resident-wide.txt, two repeats, cold): layernorm bf16 4096x16384 77.3-78.6 us against
// 80.1-80.3 a block a row; bf16 2048x32768 87.5-87.7 against the register kernel's 102.7-102.9;
// fp32 4096x16384 148.9-149.1 against the register kernel's 159-160; fp32 8192x8192 142.2 against
// 143.9-144.3. At 512-1024 chunks, and for rmsnorm and add_rmsnorm at every width measured, one
// block a row stayed ahead (rmsnorm bf16 16384x4096 69.5-69.8 against 74.9-75.6; at 4096 chunks
// rmsnorm's staged kernel, 75.4-75.7 against 77.3-77.6).
inline constexpr std::int64_t kBlockRowResidentMinChunksLayernorm = 2048;
inline constexpr std::int64_t kBlockRowMaxChunksLayernorm = 4096;
bool layernorm_row_resident(std::size_t elem_size, std::int64_t d);
// The block widths instantiated for each ITEMS.
std::vector<int> block_row_widths(int items);
bool read_block_row(VariantReader& v, const std::string& op,
                    const std::vector<std::string>& schedules, std::size_t elem_size,
                    const Shape& s, int forced_items, int rows_per_block, bool other_schedule,
                    bool auto_takes, RowGeometry& g);
// The dynamic shared memory of a row-a-block launch: `weights` staged weights one after the
// other (rmsnorm, add_rmsnorm: 0 or 1; layernorm: 0 or 2), each its whole 16-byte chunks; none
// where `staged` is false (variant stage_weight=0).
std::uint32_t block_row_shared_bytes(const RowGeometry& g, std::size_t elem_size, std::int64_t d,
                                     int weights, bool staged);

// Where auto takes the row-a-block kernel: rows on the 16-byte grid, d a whole number of chunks,
// d >= min_d, of kBlockRowMinChunks to max_chunks chunks. Measured on the H200 (calls 112-114,
// reports/h200/bench-block-row*.txt): add_rmsnorm ahead of every other schedule from d = 8192
// to 4096 chunks (16-bit 8192..32768, blocks 62-100% full; fp32 8192 0.96 against 0.90), and f16
// from d = 4096 (0.94-0.95 against 0.92), where bf16 and fp32 lost 0.5-1% to the register
// kernel (plan_add_rmsnorm passes that min_d); rmsnorm from 512 to 2048 chunks, layernorm to 4096 (kBlockRowMaxChunksLayernorm; at 4096 rmsnorm's
// staged schedule wins: one 512-thread block an SM against two).
inline constexpr std::int64_t kBlockRowMinChunks = 512;
inline constexpr std::int64_t kBlockRowMaxChunksAdd = 4096;
inline constexpr std::int64_t kBlockRowMaxChunksNorm = 2048;
bool block_row_auto(std::size_t elem_size, const Shape& s, bool misaligned, std::int64_t min_d,
                    std::int64_t max_chunks);

// schedule=loop (plan_loop.cpp): layernorm_fwd_loop, rmsnorm_fwd_loop and add_rmsnorm_fwd_loop, a
// block of THREADS threads a row streaming it once per pass (LayerNorm's PASSES 3: sum, squared
// deviations, output; 2: shifted sums joined by the parallel-variance identity, output; RMSNorm
// and add_rmsnorm: sum of squares, output), the first reads kept in L2. Variant keys
// loop_threads=64|128|256|512|1024 (default: the table's, else loop_default_threads),
// loop_passes=2|3 (LayerNorm only; default: the table's, else 3), loop_hold=0|2|4|8 (RMSNorm and
// LayerNorm: rows of at most that many chunks a thread on the 16-byte path held in registers and
// read once, kernels/held_row.cuh; LayerNorm then takes PASSES 3; default 0) and loop_grid=rows|resident|3
// (auto: rows; resident: the blocks of THREADS an SM holds by threads, resident_blocks_per_sm;
// 3: three blocks, for tests). auto takes it where loop_auto says (its table, in plan_loop.cpp,
// names the measurements): loop_auto then resolves schedule to loop for every reader, so the other
// schedules step aside. Applies to any row; rewrites g.
struct LoopPlan {
  bool loop = false;
  int threads = 0;
  int passes = 0;
  int hold = 0;  // loop_hold: chunks a thread held in registers (kernels/held_row.cuh); 0 streams
};
struct LoopChoice {
  int threads = 0;  // 0: auto does not take the loop
  int passes = 0;
  int hold = 0;
};
inline constexpr std::int64_t kLoopAutoMinRows = 2048;
// The variant keys that leave auto free to pick a schedule (loop_auto, bulk_auto): what the row
// computes, not how it is scheduled.
inline const std::set<std::string> kScheduleNeutralKeys{"weight", "inplace", "strided", "write_rstd",
                                                        "write_stats", "affine", "convention"};

// schedule=bulk (plan_bulk.cpp, LayerNorm): kernels/layernorm_bulk.cuh, whose rows the Tensor
// Memory Accelerator copies whole into shared-memory stages ahead of the row being normalized
// (sm_90 and later: a plan error on an older device). ITEMS chunks a thread (bulk_items=auto|1|2|4;
// auto: 4, measured fastest), a block of THREADS = the power of
// two from 32 that covers the row at ITEMS, bulk_stages=auto|1..8 rows of shared memory a block
// (auto: as many as the blocks the SM holds by registers leave room for, at least two), and
// bulk_grid=auto|3 (the resident blocks, or three for tests: each walks many rows, so the stages'
// barriers go round many phases). Rows off the 16-byte grid run the kernel's element-by-element
// path, with no stages. Rewrites g.
struct BulkPlan {
  bool bulk = false;
  int threads = 0, items = 0, stages = 0;
  // Blocks of a thread-block cluster that split each row's columns (the backward's _cluster
  // entries); 1: a block takes whole rows, and in every plan without bulk. The grid is a whole
  // number of clusters.
  int cluster = 1;
  // How a cluster's blocks exchange their row sums (the _cluster entries' ASYNC_SUMS): st.async
  // into each other's shared memory, or a cluster barrier a sum.
  bool async_sums = true;
  // Blocks of a cluster that each take whole rows and pool their weight-gradient sums into one
  // partial row (the backward's _pooled entries, kernels/cluster_pool.cuh); 1: none. Never with
  // cluster > 1. The grid is a whole number of them.
  int pool = 1;
  std::uint32_t shared_bytes = 0;
};
inline constexpr int kBulkMaxStages = 8;  // norm::kMaxBulkStages
// Whether auto takes the bulk kernel for this call: LayerNorm rows on the 16-byte grid at the
// widths plan_bulk.cpp's table names, at least kLoopAutoMinRows of them, on sm_90 or later, with
// a variant that names only schedule-neutral keys. Where it does, it resolves the reader's
// schedule=auto to "bulk", so every other schedule steps aside.
bool bulk_auto(VariantReader& v, const std::string& op, DType dt, const Shape& s, bool misaligned,
               const DeviceLimits& device);
BulkPlan read_bulk(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem_size,
                   const Shape& s, bool misaligned, bool other_schedule,
                   const DeviceLimits& device, RowGeometry& g);
// schedule=phase (kernels/phase_rows.cuh) for rmsnorm, add_rmsnorm and layernorm: rows off the
// 16-byte grid, each block walking only the rows that share one phase, one tile a row at ITEMS
// (g's, or items=N) over the whole warps that cover the row at any phase; `weights` weight
// tensors staged once a block in shared memory. A grid of about the resident blocks, a multiple
// of VEC (phase_grid=8 for tests: eight blocks walking every row). Rows no such tile covers
// take the register kernel. ITEMS: items=N, else auto_items (phase_auto's, when > 0), else g's.
// Rewrites g.
struct PhasePlan {
  bool phase = false;
  std::uint32_t shared_bytes = 0;
  bool prefetch = false;  // the kernel asks the L2 for a row ahead (phase_prefetch; PREFETCH)
};
// phase_prefetch=auto|0|1 of the forward and backward phase kernels: whether each step asks the
// L2 for the row after the one it loads (the kernels' PREFETCH); auto: `auto_value`, the
// caller's measured choice. Asked of another schedule, a plan error.
bool read_phase_prefetch(VariantReader& v, const std::string& op, bool phase_asked,
                         bool auto_value);
inline constexpr const char* kPhasePrefetchValues[] = {"0", "1"};
// The kernel's last template argument: ", true" with PREFETCH, else nothing (the default).
std::string phase_prefetch_arg(bool prefetch);
PhasePlan read_phase(VariantReader& v, const std::string& op,
                     const std::vector<std::string>& schedules, std::size_t elem_size,
                     const Shape& s, int forced_items, int auto_items, int weights,
                     bool other_schedule, const DeviceLimits& device, RowGeometry& g);
// The phase kernels' launch, forward and backward (plan_phase.cpp): one tile of `threads` at ITEMS
// a row, one row a block; `blocks_per_sm` blocks an SM, rounded down to a multiple of VEC (every
// phase as many blocks), no more than the rows need and at least VEC, or eight with
// `eight_blocks` (phase_grid=8); then the broken launch asked for (grid_off_vec, narrow_tile).
void set_phase_launch(const std::string& op, std::size_t elem_size, const Shape& s, int items,
                      std::int64_t threads, std::int64_t blocks_per_sm, const DeviceLimits& device,
                      bool eight_blocks, const std::string& broken, RowGeometry& g);
// schedule=flat (plan_flat.cpp, kernels/flat_rows.cuh and flat_bulk.cuh; rmsnorm and
// rmsnorm_bwd): packed rows (every stride d) off the 16-byte grid, d mod VEC = `remainder` among
// those the kernels are built for, read as one flat array of segments of S rows: on sm_90 through
// the TMA's shared-memory stages (`bulk`, flat_bulk=auto|0|1), else each thread's chunks of a
// segment in registers. One block of P + 32 threads (P = 32 * ceil(d / VEC / 32) main threads, one
// edge warp; at most 544) a segment at a time, about as many blocks as are resident. Where it does
// not apply, g is left alone and the register kernel runs. backward: the rmsnorm_bwd builds, with
// their shared memory (the partial row and the threads' weight and sum windows, then the stages).
struct FlatPlan {
  bool flat = false;
  int remainder = 0;
  std::uint32_t shared_bytes = 0;
  bool prefetch = true;                 // PREFETCH: the next segment asked of the L2
  std::int64_t bound = 544;             // the backward's MAX_THREADS
  int min_blocks = 2;                   // the backward's MIN_BLOCKS
  bool reload = false;                  // the backward's RELOAD
  bool bulk = false;                    // the _bulk kernels (flat_bulk.cuh), shared_bytes with stages
};
FlatPlan read_flat(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem, const Shape& s,
                   const std::map<std::string, std::int64_t>& strides, bool backward,
                   const DeviceLimits& device, RowGeometry& g);
// Whether auto takes schedule=flat (its TMA build) for this call, where the H200 measured it
// faster (plan_flat.cpp's table: 16-bit packed rows, rmsnorm at d = 1025-1281 and, from 8192
// rows and d = 2298 with d mod 8 of 1 or 4, where the phase kernel's tile would be at most 76%
// used, rmsnorm_bwd at d = 1026-2052 with d mod 8 of 2 or 4, the phase kernels' 1530-1785 left
// to them), with a
// variant that names only schedule-neutral keys; where it does, it resolves schedule=auto to
// "flat" for every reader.
bool flat_auto(VariantReader& v, const std::string& op, std::size_t elem, const Shape& s,
               const std::map<std::string, std::int64_t>& strides, bool backward,
               const DeviceLimits& device);
// "ladder::KERNEL<T, R, ...>" (the backward's with its bound and RELOAD), PREFETCH last.
std::string flat_entry(const std::string& kernel, DType dt, const FlatPlan& plan, bool backward);
// One width for each d mod VEC the kernels are built for (the catalog's compile shapes).
std::vector<std::int64_t> flat_compile_widths(std::size_t elem);
// The schedules the backward op's readers accept: rmsnorm_bwd also takes flat.
std::vector<std::string> backward_schedules(const std::string& op);

// Whether auto takes schedule=phase for this call: rows off the 16-byte grid whose strides keep
// every tensor on one phase (all equal modulo VEC), at least 4096 of them, 16-bit rows of
// 769-8193 elements (RMSNorm's of 1018-1273 left to the warp schedule) or fp32 LayerNorm rows
// of 1025-5125, with a variant that names only
// schedule-neutral keys. Where it does, it resolves the reader's schedule=auto to "phase" (every
// other schedule steps aside) and returns the ITEMS measured fastest there (0: g's); else -1.
int phase_auto(VariantReader& v, const std::string& op, std::size_t elem_size, const Shape& s,
               const std::map<std::string, std::int64_t>& strides);
// The share of the phase tile's chunk slots a row of d fills (its chunks at any phase over
// threads * ITEMS) at the ITEMS auto would take, 0 where auto's table has no phase kernel for d.
double phase_auto_tile_use(const std::string& op, std::size_t elem_size, std::int64_t d);
// The bulk_items, bulk_threads, bulk_stages and bulk_grid keys of a bulk-copy plan (read_bulk,
// read_backward_bulk), each "auto" or its value; any but auto is an error unless `bulk` (the
// variant asked for schedule=bulk).
struct BulkKeys {
  std::string items, threads, stages, grid;
};
BulkKeys read_bulk_keys(VariantReader& v, const std::string& op, bool bulk);
// schedule=bulk's device: a plan error before sm_90.
void require_bulk_copies(const std::string& op, const DeviceLimits& device);
// The stages of `stage_bytes` each that a bulk-copy block takes (read_bulk, read_backward_bulk):
// bulk_stages pinned (stages_key; an error past a block's shared memory), or as many as the
// blocks an SM holds by registers leave room for, with fewer blocks where that is under two
// stages. unit: what a stage is called in the error ("rows", "stages"). per_sm: the blocks an SM
// holds by registers, lowered where fewer take more stages.
int bulk_stage_count(const std::string& op, const std::string& stages_key,
                     std::int64_t stage_bytes, const std::string& unit, const DeviceLimits& device,
                     std::int64_t& per_sm);
// The dynamic shared memory a block may take with per_sm blocks an SM.
std::int64_t bulk_room(const DeviceLimits& device, std::int64_t per_sm);
// A bulk-copy launch's geometry: one row at a time in blocks of plan.threads, on a grid of the
// resident blocks (per_sm an SM) or, with bulk_grid=3 (grid_key), three; never more than the rows
// (with plan.cluster > 1: that many clusters, each of plan.cluster blocks).
void set_bulk_geometry(const BulkPlan& plan, std::int64_t per_sm, const Shape& s,
                       const std::string& grid_key, const DeviceLimits& device, RowGeometry& g);

// auto's streamed choice for this call, or threads 0: the table's entry where the rows are
// aligned, at least kLoopAutoMinRows, and the variant names only keys that leave the schedule
// free. Where it takes the loop it resolves the reader's schedule=auto to "loop".
LoopChoice loop_auto(VariantReader& v, const std::string& op, DType dt, const Shape& s,
                     bool misaligned);
int loop_default_threads(std::size_t elem_size, std::int64_t d);
// The entry's HOLD template argument: empty when the rows stream (the default, 0).
std::string loop_hold_arg(const LoopPlan& plan);
LoopPlan read_loop(VariantReader& v, const std::string& op,
                   const std::vector<std::string>& schedules, std::size_t elem_size,
                   const Shape& s, bool other_schedule, const LoopChoice& auto_choice,
                   const DeviceLimits& device, RowGeometry& g);

// Row strides for the named [rows, d] tensors. strided: "0" dense; "1" padded by whole 16-byte
// chunks (the vector path stays legal); "odd": each tensor padded by a different odd amount (rows
// start at different offsets inside a chunk, which forces the scalar path). A case key
// "<name>_stride" overrides any of them.
std::map<std::string, std::int64_t> row_strides(const std::string& op, const Case& c,
                                                const std::vector<std::string>& names,
                                                const std::string& strided, std::int64_t d);
// True when some stride is not a whole number of 16-byte chunks of elem_size elements.
bool strides_misaligned(const std::map<std::string, std::int64_t>& strides, std::size_t elem_size);
// True when every row stride equals d: the rows lie back to back (schedule=packed, flat).
bool strides_dense(const std::map<std::string, std::int64_t>& strides, std::int64_t d);
// True when every row of every tensor keeps one phase with the first's: strides equal modulo VEC.
bool strides_share_phase(const std::map<std::string, std::int64_t>& strides, std::size_t elem_size);

ConcreteBuffer matrix(const std::string& name, BufferRole role, DType dtype, std::int64_t rows,
                      std::int64_t d, std::int64_t row_stride, const std::string& init);
ConcreteBuffer vector(const std::string& name, BufferRole role, DType dtype, std::int64_t n,
                      const std::string& init);
// A second name for `target`'s memory (in-place calls): same shape and stride, role Output.
ConcreteBuffer alias(const std::string& name, const ConcreteBuffer& target);

ConcreteArg pointer(const std::string& buffer);
// A null pointer argument: an 8-byte scalar whose bits are all zero, which a kernel reads as
// nullptr. A double 0.0 is exactly that, and every launcher already passes F64 scalars by value.
ConcreteArg null_pointer();
ConcreteArg i32(std::int64_t v);
ConcreteArg f32(double v);

std::string source_path(const std::string& file);  // kernels_dir() + "/" + file
std::string dtype_template_name(DType dt);          // "float", "__half", "__nv_bfloat16"
std::size_t io_elem_size(const std::string& op, DType dt);  // rejects non-float io dtypes

void set_geometry(KernelLaunch& launch, const RowGeometry& g, std::uint32_t shared_bytes = 0);

// Blocks of `threads` threads and `shared_bytes` of dynamic shared memory that one SM of `device`
// holds at once (at least 1, at most 32), for the grids of the kernels that walk their rows
// (staged, packed). A block is charged its shared memory plus the runtime's 1 KiB reservation,
// against the SM's pool less one reservation (the opt-in maximum on sm_80 and sm_90); this
// leaves out the kernels' small static scratch and may count one block an SM too many for blocks
// of a few KiB, but it is the sizing the H200 measurements were taken with. registers_per_thread
// > 0 also counts a 64 Ki-register file (the packed kernels: 64 registers at their bound).
std::int64_t resident_blocks_per_sm(const DeviceLimits& device, std::int64_t threads,
                                    std::int64_t shared_bytes, int registers_per_thread = 0);

}  // namespace ladder::kernels::detail
