// The dynamic shared memory of the backward register kernels' launches (kernels/rmsnorm_bwd.cuh,
// layernorm_bwd.cuh): the one-tile threads' weight-gradient sums and the streaming rows' partial
// rows; and partial_rows=auto|global, which decides the latter.
#include <algorithm>
#include <string>

#include "harness/kernels/plan_backward_readers.h"
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// Dynamic shared memory of a backward launch: add_rmsnorm_bwd (1 sum, dw) and layernorm_bwd (2,
// dgamma and dbeta, in fp32; 1, dgamma, in 16 bits) keep a one-tile thread's weight-gradient sums there
// (kernels/backward_common.cuh, SharedColumnSums), 16 bytes per 4 values of a thread's chunks;
// rmsnorm_bwd keeps its one in registers (0 here). The kernel picks its path from d alone, so
// every launch with gradients gets them; the kernel traps on too little.
std::uint32_t column_sums_bytes(const RowGeometry& g, int sums) {
  const std::int64_t threads = std::int64_t{g.threads_per_row} * g.rows_per_block;
  return static_cast<std::uint32_t>(threads * sums * g.items * g.vec * 4);
}

// broken_launch=short_shared, for probes/selftest.json: 16 bytes less than the sums need. The
// kernel must trap (a crash) rather than let one thread's sums run past the block's memory.
// `broken`: the variant's broken_launch value, read by the caller.
std::uint32_t sums_bytes_as_asked(const std::string& broken, const std::string& op,
                                  const RowGeometry& g, int sums) {
  const std::uint32_t bytes = column_sums_bytes(g, sums);
  if (broken != "short_shared") return bytes;
  if (bytes == 0)
    throw std::invalid_argument(op + ": broken_launch=short_shared needs weight gradients");
  return bytes - 16;
}

// Dynamic shared memory for the partial rows of a register launch whose rows stream (wider than
// a tile; the kernel then shifts the tiles by the rows' phase): `gradients` rows of the row's
// tiles at the worst phase, in fp32 (kernels/backward_common.cuh, StreamedPartials), where they
// fit beside the kernel's static shared memory (write_block_partial's exchange, a chunk of fp32
// for each of up to 512 threads, and the reduce scratch) for every block the resident grid puts
// on an SM; else none, and the kernel adds to its partial rows in global memory.
std::uint32_t streamed_partials_bytes(const RowGeometry& g, std::int64_t d, int gradients,
                                      const DeviceLimits& device) {
  if (gradients == 0 || g.rows_per_block != 1) return 0;
  const std::int64_t tile = std::int64_t{g.threads_per_row} * g.items * g.vec;
  if (d <= tile) return 0;
  const std::int64_t tiles = ceil_div(d + g.vec - 1, tile);
  const std::int64_t bytes = gradients * tiles * tile * 4;
  const std::int64_t static_bytes = 512 * std::int64_t{g.vec} * 4 + 4096;
  const std::int64_t per_sm = std::max<std::int64_t>(1, kBackwardThreadsPerSm / g.threads_per_row);
  const bool fits = bytes + static_bytes <= device.shared_per_block_optin &&
                    per_sm * (bytes + static_bytes + kRuntimeSharedPerBlock) <= device.shared_per_sm;
  return fits ? static_cast<std::uint32_t>(bytes) : 0;
}

}  // namespace

// partial_rows=auto|global: where the register kernels' rows stream, their partial rows in
// shared memory where they fit (auto) or in global memory (global: auto's path past a block's
// shared memory, for the verify grid). An error with any other kernel.
bool read_global_partials(VariantReader& v) {
  return v.get("partial_rows", "auto", {"auto", "global"}) == "global";
}

// A register launch's dynamic shared memory: the one-tile sums' (short of them where asked) or
// the streamed partial rows', the larger.
std::uint32_t register_shared_bytes(const std::string& broken, const std::string& op,
                                    const RowGeometry& g, std::int64_t d, int sums, int gradients,
                                    const DeviceLimits& device) {
  const std::uint32_t one_tile = sums_bytes_as_asked(broken, op, g, sums);
  if (broken == "short_shared") return one_tile;
  return std::max(one_tile, streamed_partials_bytes(g, d, gradients, device));
}

}  // namespace ladder::kernels::detail
