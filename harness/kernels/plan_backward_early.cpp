// early=auto|0|1, the backward register kernels' EARLY builds (kernels/rmsnorm_bwd.cuh): where
// the planner issues rows sooner, and the entries that do.
#include <cstdint>
#include <string>

#include "harness/kernels/plan_backward_readers.h"
#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {
namespace {

// early=auto|0|1 (EARLY in kernels/rmsnorm_bwd.cuh): more of the rows ahead on their way in the
// register kernel's one-tile rows. rmsnorm_bwd (a row ahead in registers at ITEMS <= 3): the next
// row's loads at the top of each row, with the L2 asked for the row after next, instead of after
// the row's first pass. add_rmsnorm_bwd (no row ahead: four row tensors, ITEMS >= 2): the L2
// asked for the next row before each row's loads. Each build also serves rows wider than a tile
// (streamed, as in the other build). auto takes it for 16-bit rows of one tile in blocks of 256
// threads or more (two rows or fewer an SM) on a device whose DRAM gives each SM at least
// kEarlyLoadsBytesPerSmCycle bytes a cycle: the bytes an SM must keep in flight grow with that
// rate, and what is issued early costs instructions and registers. Measured, cold:
// - an H100 at 96 SMs (17.6 bytes a cycle an SM, the H200's 18.4 within 5%):
//   rmsnorm_bwd early=1 against early=0 (calls 276-277, reports/h100/ab-276-summary.txt and
//   ab-277-summary.txt): bf16 16384x4096 (256 threads) 0.963-0.971, 8192x8192 and 4096x8192
//   (512) 0.911-0.917, f16 0.934-0.986; 32768x2048 (128) 0.993-0.996, 65536x1024 (64)
//   1.018-1.019. add_rmsnorm_bwd's request against none (calls 274-275, ab-274-summary.txt and
//   ab-275-summary.txt) and its EARLY build (call 281): bf16 16384x4096 0.948-0.951, 8192x8192
//   0.921, f16 0.950-0.952; 65536x1024 (64 threads) 1.040; fp32 1.260;
// - the whole H100 (12.8; calls 279-281, ab-279-summary.txt to ab-281-summary.txt): rmsnorm_bwd
//   bf16 16384x4096 1.044, 8192x8192 1.026-1.028, 4096x8192 1.016; add_rmsnorm_bwd bf16
//   16384x4096 1.082-1.090, 8192x8192 1.075.
constexpr double kEarlyLoadsBytesPerSmCycle = 15.0;

}  // namespace

bool read_early_loads(VariantReader& v, const std::string& op, std::size_t elem, bool fused,
                      const RowGeometry& g, bool shifted, bool register_kernel,
                      const DeviceLimits& device) {
  const std::string key = v.get("early", "auto", {"auto", "0", "1"});
  const bool built = register_kernel && !shifted && early_build_exists(fused, g.items);
  if (key == "auto")
    return built && !g.streams && elem == 2 &&
           std::int64_t{g.threads_per_row} * g.rows_per_block >= 256 &&
           device.dram_bytes_per_sm_cycle >= kEarlyLoadsBytesPerSmCycle;
  if (key == "0") return false;
  if (!built)
    fail(op, std::string("early=1 needs the register kernel (schedule=regs) at items ") +
                 (fused ? ">= 2" : "<= 3") +
                 ", unshifted (shift=0, or auto's shift on rows of the 16-byte grid)");
  return true;
}

// The register kernel's entry with EARLY (rmsnorm_bwd, add_rmsnorm_bwd: unshifted).
std::string early_entry(const std::string& kernel, DType dt, int items) {
  return "ladder::" + kernel + "<" + dtype_template_name(dt) + ", " + std::to_string(items) +
         ", false, true>";
}

}  // namespace ladder::kernels::detail
