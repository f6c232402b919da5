// schedule=flat (kernels/flat_rows.cuh, flat_bulk.cuh): where auto takes it, its block, grid and
// shared memory, the register build and where it steps aside. No GPU needed.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/kernels/catalog.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

bool flat(const KernelLaunch& L) { return L.entry.find("_flat") != std::string::npos; }

KernelLaunch first(const KernelRef& ref, std::int64_t rows, std::int64_t d,
                   const DeviceLimits& device = DeviceLimits::h200()) {
  return plan_checked(ref, {{"rows", rows}, {"d", d}}, device).front();
}

}  // namespace

TEST_CASE("flat schedule: auto takes the TMA build at the widths measured faster", "[kernels]") {
  ladder::register_builtin_oracles();
  // rmsnorm: 16-bit d = 1025-1281, from 4096 rows.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1025).entry == "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 1>");
  CHECK(entry_of({"rmsnorm", DType::F16, {{"weight", "gemma"}}}, 4096, 1026).entry == "ladder::rmsnorm_fwd_flat_bulk<__half, 2>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1281).entry == "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 1>");
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1283)));  // d mod 8 = 3: not built
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1537)));
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2049)));  // 257 of 96 x 3 slots
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 4095, 1025)));
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1024)));  // on the grid
  CHECK(!flat(entry_of({"rmsnorm", DType::F32, {}}, 16384, 1025)));
  // And from 8192 rows with d mod 8 of 1 or 4 where the phase tile would be at most 76% used:
  // 3073's 385 chunks at any phase fill 385 of 128 x 4 slots, 2305's 289 of 96 x 4.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 3073).entry == "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 1>");
  CHECK(entry_of({"rmsnorm", DType::F16, {}}, 8192, 3073).entry == "ladder::rmsnorm_fwd_flat_bulk<__half, 1>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2305).entry == "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 1>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 3076).entry == "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 4>");
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 4096, 3073)));   // too few rows
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 3074)));  // d mod 8 = 2
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2817)));  // 353 of 384 slots
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 3329)));  // 417 of 512
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4097)));  // 513 of 640
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 8192, 5121)));
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1537)));  // 193 of 256, not measured
  CHECK(!flat(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 769)));
  CHECK(!flat(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 3073)));
  // rmsnorm_bwd: 16-bit d mod 8 of 2 or 4, d = 1026-2052, from 8192 rows.
  CHECK(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 16384, 2050).entry == "ladder::rmsnorm_bwd_flat_bulk<__nv_bfloat16, 2>");
  CHECK(entry_of({"rmsnorm_bwd", DType::F16, {}}, 8192, 1028).entry == "ladder::rmsnorm_bwd_flat_bulk<__half, 4>");
  CHECK(!flat(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 16384, 2049)));
  CHECK(!flat(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 4096, 2050)));
  CHECK(!flat(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 16384, 2306)));
  CHECK(!flat(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 16384, 1530)));  // the phase kernels'
  CHECK(flat(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 16384, 1794)));
  // Not: strided rows, a schedule or tuning key named, a device without the TMA, the other ops.
  CHECK(!flat(plan_checked({"rmsnorm", DType::BF16, {{"strided", "1"}}}, {{"rows", 16384}, {"d", 1025}}).front()));
  CHECK(!flat(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, {{"rows", 16384}, {"d", 1025}}).front()));
  CHECK(!flat(plan_checked({"rmsnorm_bwd", DType::BF16, {{"pdl", "0"}}}, {{"rows", 16384}, {"d", 2050}}).front()));
  CHECK(!flat(first({"rmsnorm", DType::BF16, {}}, 16384, 1025, DeviceLimits::a100())));
  CHECK(!flat(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 1025)));
}

TEST_CASE("flat schedule: a block of main threads and an edge warp, a grid of resident blocks, the stages",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // bf16 2049: span 256 main threads and one edge warp; segments of 8 rows of 4098 bytes.
  const auto fwd = first({"rmsnorm", DType::BF16, {{"schedule", "flat"}}}, 16384, 2049);
  CHECK(fwd.entry == "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 1>");
  CHECK(fwd.block[0] == 288);
  CHECK(fwd.shared_bytes == 3u * 8 * 4098);  // three stages
  CHECK(fwd.grid[0] == 2u * 132);            // two blocks of three stages an SM
  CHECK(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}, {"flat_stages", "2"}}}, 16384, 2049).shared_bytes == 2u * 8 * 4098);
  // Fewer segments than resident blocks: one block a segment. 
  CHECK(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}}}, 80, 2049).grid[0] == 10);
  // The backward: its partial row and windows, then two stages of x's and dy's segments; one
  // partial row a block for column_sum.
  const auto bwd = plan_checked({"rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}}}, {{"rows", 16384}, {"d", 2050}});
  REQUIRE(bwd.size() == 2);
  CHECK(bwd[0].entry == "ladder::rmsnorm_bwd_flat_bulk<__nv_bfloat16, 2>");
  const std::uint32_t slots = 4u * (2052 + 2 * (8 + 2 * 3) * 256);
  CHECK(bwd[0].shared_bytes == slots + 2u * 2 * 4 * 2050 * 2);
  const ConcreteBuffer* partial = find_buffer(bwd[0], "dw_partial");
  REQUIRE(partial != nullptr);
  CHECK(partial->rows == bwd[0].grid[0]);
  // fp32 2049: 512 main threads, the widest block.
  CHECK(first({"rmsnorm", DType::F32, {{"schedule", "flat"}}}, 16384, 2049).block[0] == 544);
  // The register build: no stages.
  const auto regs = first({"rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}, {"flat_bulk", "0"}}}, 16384, 2049);
  CHECK(regs.entry == "ladder::rmsnorm_bwd_flat<__nv_bfloat16, 1, 288, 2, false, true>");
  CHECK(regs.shared_bytes == 4u * (2052 + 2 * 15 * 256));
}

TEST_CASE("flat schedule: steps aside where its layout does not apply, and refuses what it cannot do",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // Strided rows, rows on the grid, a remainder not built (bf16 d mod 8 = 3), rows wider than 512
  // main threads: the register kernel.
  for (std::int64_t d : {2048, 2051, 4105}) {
    INFO("d=" << d);
    CHECK(!flat(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}}}, 4096, d)));
  }
  CHECK(!flat(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}, {"strided", "1"}}}, 4096, 2049)));
  CHECK(!flat(first({"rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}, {"strided", "odd"}}}, 4096, 2049)));
  // The TMA build on a device without it; tuning keys without the schedule; flat on other ops.
  CHECK_THROWS_WITH(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}, {"flat_bulk", "1"}}}, 4096, 2049,
                          DeviceLimits::a100()),
                    has_substr("flat_bulk=1 needs sm_90"));
  CHECK(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}}}, 4096, 2049, DeviceLimits::a100()).entry ==
        "ladder::rmsnorm_fwd_flat<__nv_bfloat16, 1, true>");
  CHECK_THROWS_WITH(first({"rmsnorm", DType::BF16, {{"flat_stages", "2"}}}, 4096, 2049),
                    has_substr("flat_stages=2 needs schedule=flat"));
  CHECK_THROWS_WITH(first({"add_rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}}}, 4096, 2049),
                    has_substr("schedule=flat"));
}

TEST_CASE("flat schedule: the selftest's broken launches break exactly what the kernels guard", "[kernels]") {
  ladder::register_builtin_oracles();
  const KernelRef good{"rmsnorm", DType::BF16, {{"schedule", "flat"}}};
  const KernelRef narrow{"rmsnorm", DType::BF16, {{"schedule", "flat"}, {"broken_flat_launch", "narrow_tile"}}};
  CHECK(first(narrow, 300, 2049).block[0] + 32 == first(good, 300, 2049).block[0]);
  CHECK(first(narrow, 300, 2049).shared_bytes == first(good, 300, 2049).shared_bytes);
  const KernelRef regs{"rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}, {"flat_bulk", "0"}}};
  KernelRef shorted = regs;
  shorted.variant["broken_flat_launch"] = "short_shared";
  CHECK(first(shorted, 300, 2049).shared_bytes + 16 == first(regs, 300, 2049).shared_bytes);
  CHECK(first(shorted, 300, 2049).block[0] == first(regs, 300, 2049).block[0]);
  CHECK_THROWS_WITH(first({"rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}, {"broken_flat_launch", "short_shared"}}}, 300, 2049),
                    has_substr("flat_bulk=0"));
  CHECK_THROWS_WITH(first({"rmsnorm", DType::BF16, {{"schedule", "flat"}, {"broken_flat_launch", "narrow_tile"}}}, 300, 2048),
                    has_substr("needs a shape schedule=flat takes"));
}
