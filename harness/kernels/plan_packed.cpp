// schedule=packed for the forward kernels (kernels/packed_norm.cuh): packed rows taken span by
// span as one flat array on the 16-byte grid, through two shared-memory stages, the weight in
// shared memory as shifted copies.
#include <algorithm>
#include <numeric>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// Each stage holds at least this many bytes of each input: a few 16-byte copies a thread.
constexpr std::int64_t kMinStageBytes = 8 * 1024;
constexpr std::int64_t kDefaultThreads = 512;
constexpr int kRegistersPerThread = 64;  // the packed kernels' launch bound (1024, 1)

// Rows a span must be a multiple of for every span to start on the 16-byte grid.
std::int64_t aligned_span_rows(std::size_t elem_size, std::int64_t d) {
  const std::int64_t row_bytes = d * static_cast<std::int64_t>(elem_size);
  return kChunkBytes / std::gcd(row_bytes, std::int64_t{kChunkBytes});
}

std::int64_t align16(std::int64_t bytes) { return (bytes + 15) / 16 * 16; }

// norm::PackedLayout<T, WEIGHTS, TENSORS, COPIES>::bytes() (kernels/packed_common.cuh), on the
// host.
std::int64_t packed_shared_bytes(std::size_t elem_size, std::int64_t d, std::int64_t span_rows,
                                 int weights, int tensors, bool shifted_weight) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  const std::int64_t copy_len = ceil_div(d, vec) * vec + vec;
  const std::int64_t copies = shifted_weight ? vec : 1;
  const std::int64_t span_chunks = span_rows * d / vec;
  return weights * copies * copy_len * static_cast<std::int64_t>(elem_size) +
         2 * tensors * span_chunks * kChunkBytes + align16(span_chunks * 4) +
         align16((span_rows + 1) * 4) + align16(2 * span_rows * 4);
}

// Where auto takes the packed kernels: packed rows off the 16-byte grid, measured on the H200
// against the register kernels (cold, two repeats each).
// - add_rmsnorm 16-bit, d <= 1024: 16384x769 0.59 of the copy ceiling against 0.46 (f16, call 85,
//   reports/h200/bench-off-grid-packed.txt), 4096x769 0.38 against 0.33 (bf16). At d = 2049 the
//   register kernels with OFF_GRID (call 81) won at 4096 and 8192 rows (8192x2049 0.61 against
//   0.59, bf16 and f16) and tied at 16384 (f16 0.69-0.70 both; bf16 0.68 against 0.69, call 81),
//   so rows wider than 1024 stay in registers.
// - layernorm fp32, with the weight alone (weight_copies=one): 16384x2049 0.49 against 0.44,
//   8192x2049 0.44 against 0.42, 16384x769 0.40 against 0.29 (call 85).
// - Rows: from 4096 (call 71, reports/h200/bench-packed-rule.txt: add_rmsnorm bf16 4096x769
//   0.39 against 0.32, layernorm fp32 4096x2049 0.37 against 0.35).
// Not taken: rmsnorm (the register kernels with OFF_GRID won or tied everywhere, call 85:
// 8192x2049 0.51 against 0.46 in bf16 and 0.50-0.51 against 0.47 in f16, f16 16384x769 0.47
// against 0.44, f16 16384x2049 0.57 both); d = 5125 (every op tied or lost, calls 69-70);
// 16-bit layernorm (2049: 0.36 against 0.36-0.37 with one copy, 0.30 with shifted copies: 66 KiB
// of gamma and beta copies leave one block an SM); fp32 rmsnorm and add_rmsnorm lost to the
// staged kernels (16384x2049: 0.69 against 0.73, 0.76-0.79 against 0.81).
constexpr std::int64_t kAutoMinRows = 4096;
std::int64_t auto_max_hidden(const std::string& op) { return op == "add_rmsnorm" ? 1024 : 4096; }
bool packed_measured_faster(const std::string& op, std::size_t elem_size) {
  if (op == "add_rmsnorm") return elem_size == 2;
  return op == "layernorm" && elem_size == 4;
}

}  // namespace

PackedPlan read_packed(VariantReader& v, const std::string& op,
                       const std::vector<std::string>& schedules, std::size_t elem_size,
                       int weights, int tensors, const Shape& s, bool dense, int forced_items,
                       int rows_per_block, const DeviceLimits& device, RowGeometry& g) {
  const std::string schedule = v.get("schedule", "auto", schedules);
  const std::string threads_key =
      v.get("packed_threads", "auto", {"auto", "128", "256", "512", "1024"});
  const std::string span_key = v.get("span_rows", "auto", {"auto", "4", "8", "16", "32"});
  const std::string copies_key = v.get("weight_copies", "auto", {"auto", "shifted", "one"});
  PackedPlan plan;
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  const bool off_grid = s.d * static_cast<std::int64_t>(elem_size) % kChunkBytes != 0;
  bool wanted = schedule == "packed";
  if (schedule == "auto" && forced_items == 0 && rows_per_block == 0 && dense && off_grid &&
      s.rows >= kAutoMinRows && s.d <= auto_max_hidden(op))
    wanted = packed_measured_faster(op, elem_size);
  if (!wanted) {
    if (threads_key != "auto" || span_key != "auto" || copies_key != "auto")
      fail(op, "packed_threads, span_rows and weight_copies apply to the packed kernels only "
               "(schedule=packed, or auto where it takes them)");
    return plan;
  }
  if (rows_per_block != 0) fail(op, "schedule=packed takes no rpb: its block is one span");
  if (forced_items != 0) fail(op, "schedule=packed takes no items: its threads hold no row");
  // Where it does not apply the register kernel runs, as schedule=staged does where it cannot
  // stage: strided rows, and rows shorter than a chunk (a chunk would touch three rows).
  if (!dense || s.d < vec) return plan;

  const std::int64_t unit = aligned_span_rows(elem_size, s.d);
  const std::int64_t row_bytes = s.d * static_cast<std::int64_t>(elem_size);
  std::int64_t span_rows =
      unit * std::max<std::int64_t>(1, ceil_div(kMinStageBytes, unit * row_bytes));
  if (span_key != "auto") {
    span_rows = std::stoll(span_key);
    if (span_rows % unit != 0)
      fail(op, "span_rows=" + span_key + " is not a multiple of " + std::to_string(unit) +
                   ": spans of rows of " + std::to_string(s.d) + " must start on the 16-byte grid");
  }
  const std::int64_t span_chunks = span_rows * s.d / vec;
  const std::int64_t threads =
      threads_key != "auto"
          ? std::stoll(threads_key)
          : std::min(kDefaultThreads, whole_warp_threads(span_chunks, 1));
  const bool shifted_weight =
      copies_key == "auto" ? !(op == "layernorm" && elem_size == 4) : copies_key == "shifted";
  const std::int64_t bytes =
      packed_shared_bytes(elem_size, s.d, span_rows, weights, tensors, shifted_weight);
  const std::int64_t available = device.shared_per_block_optin - kStaticSharedReserve;
  if (bytes > available) return plan;

  const std::int64_t per_sm = resident_blocks_per_sm(device, threads, bytes, kRegistersPerThread);
  g.items = 1;
  g.threads_per_row = static_cast<int>(threads);
  g.rows_per_block = 1;
  g.streams = false;
  g.blocks = std::max<std::int64_t>(
      1, std::min(ceil_div(s.rows, span_rows), per_sm * device.sm_count));
  plan.packed = true;
  plan.shifted_weight = shifted_weight;
  plan.span_rows = static_cast<int>(span_rows);
  plan.shared_bytes = static_cast<std::uint32_t>(bytes);
  return plan;
}

}  // namespace ladder::kernels::detail
