// Backward planners: the shifted kernels for rows off the 16-byte grid, the resident grid, and
// the shared memory for the weight-gradient sums. No GPU needed.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/kernels/catalog.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

// The third template argument of a register backward kernel (SHIFTED): "<T, ITEMS, true...".
bool shifted_entry(const std::string& entry) {
  const auto first = entry.find(", ", entry.find('<'));
  const auto second = first == std::string::npos ? first : entry.find(", ", first + 2);
  return second != std::string::npos && entry.compare(second + 2, 4, "true") == 0;
}

}  // namespace

TEST_CASE("backward plans: shifted kernels for rows off the 16-byte grid, SMs kept full",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // schedule=regs: where auto takes the phase kernels (test_backward_phase_plans.cpp).
  for (const char* op : {"rmsnorm_bwd", "add_rmsnorm_bwd", "layernorm_bwd"}) {
    for (const auto& [rows, d] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {8192, 2049}, {16384, 4096}, {4096, 5125}, {257, 769}}) {
      const auto L =
          plan_checked({op, DType::BF16, {{"schedule", "regs"}}}, {{"rows", rows}, {"d", d}}).front();
      INFO(op << " " << rows << "x" << d << " " << L.entry << " block " << L.block[0] << "x"
              << L.block[1] << " grid " << L.grid[0]);
      const bool odd = d % 8 != 0;
      CHECK(shifted_entry(L.entry) == odd);
      // The resident grid fills at least 3/4 of the 512 threads an SM holds at 128 registers
      // (d = 5125 has no such shape within two chunks a thread: 352 x 2 is its best).
      const std::uint32_t threads = L.block[0] * L.block[1];
      if (d != 5125) CHECK((512 / threads) * threads >= 384);
      // Rows of one group keep their phase: the grid's row step is a multiple of 8 rows for
      // a 2-byte stride that is 2 mod 16 bytes.
      const std::int64_t step = std::int64_t{L.grid[0]} * L.block[1];
      if (odd && step < rows) CHECK(step % 8 == 0);
    }
  }
  // shift=0 pins the unshifted kernel, shift=1 the shifted one.
  const auto pinned0 = plan_checked({"rmsnorm_bwd", DType::BF16, {{"shift", "0"}}},
                                    {{"rows", 83}, {"d", 2049}});
  CHECK(!shifted_entry(pinned0.front().entry));
  const auto pinned1 = plan_checked({"rmsnorm_bwd", DType::F32, {{"shift", "1"}}},
                                    {{"rows", 83}, {"d", 4096}});
  CHECK(shifted_entry(pinned1.front().entry));
}

TEST_CASE("backward plans: rmsnorm_bwd's early loads where an SM holds two rows or fewer",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto entry = [](DType dt, std::int64_t rows, std::int64_t d,
                  std::map<std::string, std::string> variant = {}) {
    return plan_checked({"rmsnorm_bwd", dt, variant}, {{"rows", rows}, {"d", d}}).front().entry;
  };
  // auto: 16-bit rows of one tile in blocks of 256 threads or more.
  CHECK(entry(DType::BF16, 16384, 4096) == "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  CHECK(entry(DType::F16, 16384, 4096) == "ladder::rmsnorm_bwd<__half, 2, false, true>");
  CHECK(entry(DType::BF16, 8192, 8192) == "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  // Only where the DRAM gives an SM 15 bytes a cycle or more: the H200 (18.4) and an H100 at 96
  // of its SMs (17.6), not the whole H100 (12.8) or an A100 (10.2).
  auto on = [&](const DeviceLimits& device) {
    return plan_checked({"rmsnorm_bwd", DType::BF16, {}}, {{"rows", 16384}, {"d", 4096}}, device)
               .front()
               .entry.find(", false, true>") != std::string::npos;
  };
  DeviceLimits stand_in = DeviceLimits::h100();
  stand_in.sm_count = 96;
  stand_in.dram_bytes_per_sm_cycle = DeviceLimits::bytes_per_sm_cycle(2619000, 5120, 96, 1980000);
  CHECK(on(DeviceLimits::h200()));
  CHECK(on(stand_in));
  CHECK_FALSE(on(DeviceLimits::h100()));
  CHECK_FALSE(on(DeviceLimits::a100()));
  CHECK(plan_checked({"rmsnorm_bwd", DType::BF16, {{"early", "1"}}}, {{"rows", 16384}, {"d", 4096}},
                     DeviceLimits::h100()).front().entry == "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  // Not in narrower blocks (64 and 128 threads), fp32, or rows off the 16-byte grid.
  CHECK(entry(DType::BF16, 65536, 1024) == "ladder::rmsnorm_bwd<__nv_bfloat16, 2>");
  CHECK(entry(DType::BF16, 32768, 2048) == "ladder::rmsnorm_bwd<__nv_bfloat16, 2>");
  CHECK(entry(DType::F32, 16384, 4096) == "ladder::rmsnorm_bwd<float, 4>");
  CHECK(entry(DType::BF16, 8192, 2049, {{"schedule", "regs"}}) ==
        "ladder::rmsnorm_bwd<__nv_bfloat16, 2, true>");
  // early=0 and early=1 pin either build wherever it exists.
  CHECK(entry(DType::BF16, 16384, 4096, {{"early", "0"}}) == "ladder::rmsnorm_bwd<__nv_bfloat16, 2>");
  CHECK(entry(DType::BF16, 65536, 1024, {{"early", "1"}}) ==
        "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  CHECK(entry(DType::F32, 16384, 4096, {{"early", "1"}, {"items", "3"}}) ==
        "ladder::rmsnorm_bwd<float, 3, false, true>");
  // A row wider than the tile streams in the same build.
  CHECK(entry(DType::BF16, 512, 32768, {{"schedule", "regs"}, {"early", "1"}}) ==
        "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  // It does not exist shifted, at ITEMS 4, or in the other schedules.
  CHECK_THROWS_WITH(entry(DType::BF16, 4096, 4096, {{"early", "1"}, {"shift", "1"}}), has_substr("early=1 needs"));
  CHECK_THROWS_WITH(entry(DType::F32, 4096, 4096, {{"early", "1"}, {"items", "4"}}), has_substr("early=1 needs"));
  CHECK_THROWS_WITH(entry(DType::BF16, 2048, 16384, {{"early", "1"}, {"schedule", "bulk"}}),
                    has_substr("early=1 needs"));
  CHECK_THROWS_WITH(entry(DType::BF16, 4096, 4096, {{"early", "2"}}), has_substr("early"));
  // add_rmsnorm_bwd's EARLY (the L2 asked for the next row; no row ahead in registers at
  // ITEMS >= 2): the same rule.
  auto fused = [](DType dt, std::int64_t rows, std::int64_t d, std::map<std::string, std::string> variant = {},
                  const DeviceLimits& device = DeviceLimits::h200()) {
    return plan_checked({"add_rmsnorm_bwd", dt, variant}, {{"rows", rows}, {"d", d}}, device).front().entry;
  };
  CHECK(fused(DType::BF16, 16384, 4096) == "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  CHECK(fused(DType::F16, 8192, 8192) == "ladder::add_rmsnorm_bwd<__half, 2, false, true>");
  CHECK(fused(DType::BF16, 16384, 4096, {}, stand_in) == "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  CHECK(fused(DType::BF16, 16384, 4096, {}, DeviceLimits::h100()) == "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2>");
  CHECK(fused(DType::BF16, 65536, 1024) == "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2>");
  CHECK(fused(DType::F32, 16384, 4096) == "ladder::add_rmsnorm_bwd<float, 4>");
  CHECK(fused(DType::F32, 16384, 4096, {{"early", "1"}}) == "ladder::add_rmsnorm_bwd<float, 4, false, true>");
  CHECK(fused(DType::BF16, 16384, 4096, {{"early", "0"}}) == "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2>");
  CHECK_THROWS_WITH(fused(DType::BF16, 4096, 4096, {{"early", "1"}, {"items", "1"}}), has_substr("items >= 2"));
  CHECK_THROWS_WITH(fused(DType::BF16, 4096, 4096, {{"early", "1"}, {"shift", "1"}}), has_substr("early=1 needs"));
}

TEST_CASE("backward plans: shared memory for the weight-gradient sums the kernels keep there",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // add_rmsnorm_bwd keeps dw (1 sum) and layernorm_bwd dgamma and dbeta (2; in 16 bits dgamma
  // alone, 1, with dbeta in registers) in shared memory: 4 bytes a value, 16 values a thread at
  // these shapes (kernels/backward_common.cuh); rmsnorm_bwd keeps dw in registers.
  for (const auto& [rows, d] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {16384, 4096}, {8192, 2049}, {7, 8}, {4, 65536}}) {
    for (DType dt : {DType::F32, DType::BF16}) {
      for (const auto& [op, sums] : std::vector<std::pair<std::string, int>>{
               {"rmsnorm_bwd", 0}, {"add_rmsnorm_bwd", 1},
               {"layernorm_bwd", dt == DType::F32 ? 2 : 1}}) {
        const auto L = plan_checked({op, dt, {{"schedule", "regs"}}}, {{"rows", rows}, {"d", d}}).front();
        INFO(op << " " << rows << "x" << d << " " << L.entry << " block " << L.block[0] << "x"
                << L.block[1]);
        const std::size_t items = std::stoul(L.entry.substr(L.entry.find(", ") + 2));
        const std::size_t values = items * (dt == DType::F32 ? 4 : 8);
        CHECK(L.shared_bytes == std::size_t{L.block[0]} * L.block[1] * values * 4 * sums);
      }
    }
  }
  // Without weight gradients, none.
  CHECK(entry_of({"add_rmsnorm_bwd", DType::BF16, {{"weight", "none"}}}, 16384, 4096).shared_bytes == 0);
  CHECK(entry_of({"layernorm_bwd", DType::BF16, {{"affine", "0"}}}, 16384, 4096).shared_bytes == 0);
  // broken_launch=short_shared (probes/selftest.json): 16 bytes short, the rest unchanged; a plan
  // error where there are no sums to shorten, and for rmsnorm_bwd (registers).
  for (const char* op : {"add_rmsnorm_bwd", "layernorm_bwd"}) {
    const auto planned = entry_of({op, DType::BF16, {}}, 300, 4096);
    const auto shorted = entry_of({op, DType::BF16, {{"broken_launch", "short_shared"}}}, 300, 4096);
    CHECK(shorted.entry == planned.entry);
    CHECK(shorted.block == planned.block);
    CHECK(shorted.grid == planned.grid);
    CHECK(shorted.shared_bytes + 16 == planned.shared_bytes);
  }
  CHECK_THROWS_WITH(ladder::kernels::plan({"layernorm_bwd", DType::BF16, {{"affine", "0"}, {"broken_launch", "short_shared"}}},
                                          {{"rows", 300}, {"d", 4096}}, kEps),
                    ladder_test::has_substr("needs weight gradients"));
  CHECK_THROWS_WITH(ladder::kernels::plan({"rmsnorm_bwd", DType::BF16, {{"broken_launch", "short_shared"}}},
                                          {{"rows", 300}, {"d", 4096}}, kEps),
                    ladder_test::has_substr("broken_launch"));
}


TEST_CASE("backward plans: streamed rows keep their partial rows in shared memory where they fit",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // A row wider than the tile streams; its gradients' partial rows take the row's tiles at the
  // worst phase in fp32 (kernels/backward_common.cuh, StreamedPartials). bf16 2048x16385: 512
  // threads x 2 chunks = 8192 columns a tile, 3 tiles for 16385 + 7.
  for (const auto& [op, gradients] : std::vector<std::pair<std::string, std::size_t>>{
           {"rmsnorm_bwd", 1}, {"add_rmsnorm_bwd", 1}, {"layernorm_bwd", 2}}) {
    const auto L = entry_of({op, DType::BF16, {}}, 2048, 16385);
    INFO(op << " " << L.entry << " block " << L.block[0]);
    const std::size_t items = std::stoul(L.entry.substr(L.entry.find(", ") + 2));
    const std::size_t tile = std::size_t{L.block[0]} * items * 8;
    CHECK(L.shared_bytes == gradients * ((16385 + 7 + tile - 1) / tile) * tile * 4);
    CHECK(L.shared_bytes >= 3 * 8192 * 4);
  }
  // Without gradients, none; rows of one tile, the one-tile sums only (above).
  CHECK(entry_of({"rmsnorm_bwd", DType::BF16, {{"weight", "none"}}}, 2048, 16385).shared_bytes == 0);
  CHECK(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 8192, 2049).shared_bytes == 0);
  // Past a block's shared memory beside the kernel's static 20 KiB, the partial rows stay in
  // global memory: layernorm_bwd's two rows of 5 tiles at 32769 need 320 KiB (its dgamma sums'
  // 32 KiB remain); rmsnorm_bwd's one, 160 KiB, fits the H200's 227 KiB but not the A100's 163.
  CHECK(entry_of({"layernorm_bwd", DType::BF16, {}}, 1024, 32769).shared_bytes == 512 * 16 * 4);
  CHECK(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 1024, 32769).shared_bytes == 5 * 8192 * 4);
  const auto a100 = plan_checked({"rmsnorm_bwd", DType::BF16, {}}, {{"rows", 1024}, {"d", 32769}},
                                 ladder::kernels::DeviceLimits::a100());
  CHECK(a100.front().shared_bytes == 0);
  // partial_rows=global: none for the partial rows (layernorm_bwd keeps its one-tile dgamma sums'
  // 32 KiB), and auto steps aside to the register kernel as for shift (2048x16384: bulk).
  CHECK(entry_of({"rmsnorm_bwd", DType::BF16, {{"partial_rows", "global"}}}, 2048, 16385).shared_bytes == 0);
  CHECK(entry_of({"layernorm_bwd", DType::BF16, {{"partial_rows", "global"}}}, 2048, 16385).shared_bytes ==
        512 * 16 * 4);
  for (const char* op : {"rmsnorm_bwd", "add_rmsnorm_bwd", "layernorm_bwd"}) {
    INFO(op);
    CHECK(entry_of({op, DType::BF16, {}}, 2048, 16384).entry.find("_bulk") != std::string::npos);
    CHECK(entry_of({op, DType::BF16, {{"partial_rows", "global"}}}, 2048, 16384).entry.find("_bulk") ==
          std::string::npos);
    // With a kernel other than the register kernel named, a plan error naming the key.
    for (const char* schedule : {"bulk", "phase"})
      CHECK_THROWS_WITH(ladder::kernels::plan({op, DType::BF16, {{"schedule", schedule}, {"partial_rows", "global"}}},
                                              {{"rows", 8192}, {"d", 2049}}, kEps),
                        ladder_test::has_substr("partial_rows"));
  }
  CHECK_THROWS_WITH(ladder::kernels::plan({"rmsnorm_bwd", DType::BF16, {{"schedule", "flat"}, {"partial_rows", "global"}}},
                                          {{"rows", 16384}, {"d", 2050}}, kEps),
                    ladder_test::has_substr("partial_rows=global needs the register kernel"));
}

// reduce=grid: the bulk kernel reduces its partial rows itself after a grid-wide barrier, so the
// plan is one cooperative launch with the gradients and the barrier's zeroed word as arguments;
// elsewhere the bulk kernels take nulls there and column_sum follows.
TEST_CASE("backward plans: reduce=grid is one cooperative launch of the bulk kernel", "[kernels]") {
  ladder::register_builtin_oracles();
  const Case c{{"rows", 2048}, {"d", 16384}};
  for (const auto& [op, gradients] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"rmsnorm_bwd", {"dw"}}, {"add_rmsnorm_bwd", {"dw"}}, {"layernorm_bwd", {"dgamma", "dbeta"}}}) {
    INFO(op);
    const auto grid = plan_checked({op, DType::BF16, {{"schedule", "bulk"}, {"reduce", "grid"}}}, c);
    REQUIRE(grid.size() == 1);
    const KernelLaunch& L = grid.front();
    CHECK(L.cooperative);
    // layernorm_bwd's 16-bit rows there pool their sums over two blocks (test_pool_plans.cpp).
    CHECK(L.entry.find(op == "layernorm_bwd" ? "_bulk_pooled<" : "_bulk<") != std::string::npos);
    const ConcreteBuffer* sync = find_buffer(L, "grid_sync");
    REQUIRE(sync != nullptr);
    CHECK(sync->role == BufferRole::Input);  // zero in, and checked to come back zero
    CHECK(sync->dtype == DType::U32);
    CHECK(sync->logical_elements() == 1);
    CHECK(sync->init == "constant:0");
    // The trailing arguments: each gradient, then grid_sync.
    REQUIRE(L.args.size() >= gradients.size() + 1);
    const std::size_t tail = L.args.size() - gradients.size() - 1;
    for (std::size_t i = 0; i < gradients.size(); ++i) CHECK(L.args[tail + i].buffer == gradients[i]);
    CHECK(L.args.back().buffer == "grid_sync");

    const auto launch = plan_checked({op, DType::BF16, {{"schedule", "bulk"}}}, c);
    REQUIRE(launch.size() == 2);
    CHECK(!launch.front().cooperative);
    CHECK(find_buffer(launch.front(), "grid_sync") == nullptr);
    CHECK(launch.front().args.size() == L.args.size());
    CHECK(!launch.front().args.back().is_buffer);
  }
  // auto: the kernel's own reduce for layernorm_bwd where clusters split its rows, else a launch.
  const Case wide{{"rows", 1024}, {"d", 32768}};
  const auto ln_wide = plan_checked({"layernorm_bwd", DType::BF16, {}}, wide);
  REQUIRE(ln_wide.size() == 1);
  CHECK(ln_wide.front().entry.find("_bulk_cluster<") != std::string::npos);
  CHECK(ln_wide.front().cooperative);
  CHECK(plan_checked({"layernorm_bwd", DType::BF16, {{"reduce", "launch"}}}, wide).size() == 2);
  CHECK(plan_checked({"rmsnorm_bwd", DType::BF16, {}}, wide).size() == 2);
  CHECK(plan_checked({"layernorm_bwd", DType::BF16, {}}, c).size() == 2);
  auto plan_of = [&](const std::string& op, std::map<std::string, std::string> variant) {
    return ladder::kernels::plan({op, DType::BF16, std::move(variant)}, c, kEps);
  };
  CHECK_THROWS_WITH(plan_of("rmsnorm_bwd", {{"schedule", "phase"}, {"reduce", "grid"}}),
                    has_substr("reduce=grid needs the bulk schedule"));
  CHECK_THROWS_WITH(plan_of("rmsnorm_bwd", {{"schedule", "bulk"}, {"reduce", "grid"}, {"weight", "none"}}),
                    has_substr("reduce=grid needs weight gradients"));
  CHECK_THROWS_WITH(plan_of("layernorm_bwd", {{"schedule", "bulk"}, {"reduce", "grid"}, {"affine", "0"}}),
                    has_substr("reduce=grid needs weight gradients"));
  CHECK_THROWS_WITH(plan_of("add_rmsnorm_bwd", {{"reduce", "all"}}), has_substr("reduce"));
}
