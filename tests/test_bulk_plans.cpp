// schedule=bulk (kernels/layernorm_bulk.cuh): its entry, block, stages and grid from the device's
// limits, the keys that pin them, the element-by-element plans, and the keys and devices it
// refuses. No GPU needed.
#include <cstdint>
#include <string>

#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

KernelLaunch bulk_of(DType dt, std::int64_t rows, std::int64_t d,
                     std::map<std::string, std::string> more = {},
                     const DeviceLimits& device = DeviceLimits::h200()) {
  more["schedule"] = "bulk";
  return plan_checked({"layernorm", dt, more}, {{"rows", rows}, {"d", d}}, device).front();
}

// The stages a launch's shared memory holds: what the kernel itself computes from it.
std::int64_t stages_of(const KernelLaunch& L, std::int64_t row_bytes) {
  return L.shared_bytes / row_bytes;
}

}  // namespace

TEST_CASE("schedule=bulk: layernorm rows staged whole, ITEMS and block from the row's chunks", "[kernels]") {
  ladder::register_builtin_oracles();
  // bf16 d = 16384: 2048 chunks, two a thread in 1024 threads; one block an SM (64 registers a
  // thread) with as many 32 KiB stages as its shared memory holds: seven of the H200's 227 KiB.
  const auto wide = bulk_of(DType::BF16, 4096, 16384);
  CHECK(wide.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 2, 1024>");
  CHECK(wide.source.find("layernorm_bulk.cuh") != std::string::npos);
  CHECK(wide.block[0] == 1024);
  CHECK(wide.grid[0] == 132);
  CHECK(stages_of(wide, 16384 * 2) == 7);
  CHECK(wide.shared_bytes % (16384 * 2) == 0);
  CHECK(wide.shared_bytes <= DeviceLimits::h200().shared_per_block_optin - 1024);
  // bf16 d = 1024: 128 chunks, one a thread in 128 threads; eight blocks an SM by registers, each
  // with the most stages the kernel's barriers allow.
  const auto narrow = bulk_of(DType::BF16, 65536, 1024);
  CHECK(narrow.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 1, 128>");
  CHECK(narrow.grid[0] == 132 * 8);
  CHECK(stages_of(narrow, 2048) == 8);
  // d = 32768 bf16: four chunks a thread; three 64 KiB stages in the one block an SM.
  const auto widest = bulk_of(DType::BF16, 2048, 32768);
  CHECK(widest.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 1024>");
  CHECK(stages_of(widest, 65536) == 3);
  // fp32 d = 4096: 1024 chunks, one a thread.
  CHECK(bulk_of(DType::F32, 16384, 4096).entry == "ladder::layernorm_fwd_bulk<float, 1, 1024>");
  // Fewer rows than the SMs hold: a block a row.
  CHECK(bulk_of(DType::BF16, 7, 16384).grid[0] == 7);
  // Zero rows: one block, which returns at once.
  CHECK(bulk_of(DType::BF16, 0, 64).grid[0] == 1);

  // Pinned ITEMS, block and stages.
  const auto four = bulk_of(DType::BF16, 4096, 16384, {{"bulk_items", "4"}});
  CHECK(four.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 512>");
  CHECK(four.grid[0] == 132 * 2);
  CHECK(stages_of(four, 32768) == 3);
  const auto two = bulk_of(DType::BF16, 4096, 16384, {{"bulk_stages", "2"}});
  CHECK(two.shared_bytes == 2 * 32768);
  CHECK(bulk_of(DType::F16, 83, 8, {{"bulk_threads", "256"}}).entry == "ladder::layernorm_fwd_bulk<__half, 1, 256>");
  CHECK(bulk_of(DType::BF16, 83, 2049, {{"bulk_grid", "3"}}).grid[0] == 3);

  // Off the bulk path, no stages: the kernel then runs its element-by-element path.
  CHECK(bulk_of(DType::BF16, 83, 2049).shared_bytes == 0);                      // not whole chunks
  CHECK(bulk_of(DType::BF16, 83, 1024, {{"strided", "odd"}}).shared_bytes == 0);  // rows off the grid
  CHECK(bulk_of(DType::F32, 2, 65536).shared_bytes == 0);                        // 16384 chunks: too wide
  CHECK(bulk_of(DType::BF16, 7, 16384, {{"bulk_threads", "256"}}).shared_bytes == 0);  // block too narrow
}

TEST_CASE("schedule=bulk: sized from the device, refused before sm_90 and where its keys do not apply", "[kernels]") {
  ladder::register_builtin_oracles();
  // An sm_80 device has no bulk copies: a plan error that names the device.
  try {
    bulk_of(DType::BF16, 4096, 16384, {}, DeviceLimits::a100());
    FAIL("schedule=bulk planned for sm_80");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("sm_90") != std::string::npos);
    CHECK(std::string(e.what()).find("sm_80") != std::string::npos);
  }
  // A device with less shared memory an SM gets fewer stages for the same row.
  DeviceLimits small = DeviceLimits::h200();
  small.shared_per_sm = 100 * 1024;
  small.shared_per_block_optin = 99 * 1024;
  CHECK(stages_of(bulk_of(DType::BF16, 4096, 16384, {}, small), 32768) == 3);
  // Stages beyond a block's shared memory are refused, with the sizes.
  CHECK_THROWS_WITH(bulk_of(DType::BF16, 4096, 32768, {{"bulk_stages", "4"}}),
                    has_substr("bulk_stages=4 rows of 65536 bytes"));
  // The bulk keys need schedule=bulk; unknown values are refused.
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"bulk_items", "2"}}}, 7, 1024));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"bulk_stages", "2"}}}, 7, 1024));
  CHECK_THROWS(bulk_of(DType::BF16, 7, 1024, {{"bulk_items", "8"}}));
  CHECK_THROWS(bulk_of(DType::BF16, 7, 1024, {{"bulk_stages", "9"}}));
  CHECK_THROWS(bulk_of(DType::BF16, 7, 1024, {{"bulk_threads", "96"}}));
  CHECK_THROWS(bulk_of(DType::BF16, 7, 1024, {{"bulk_grid", "7"}}));
  // Only LayerNorm has a bulk kernel.
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"schedule", "bulk"}}}, 7, 1024));
}
