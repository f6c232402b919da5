// schedule=bulk (kernels/layernorm_bulk.cuh): its entry, block, stages and grid from the device's
// limits, the keys that pin them, the element-by-element plans, and the keys and devices it
// refuses. No GPU needed.
#include <cstdint>
#include <map>
#include <stdexcept>
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
  // bf16 d = 16384: 2048 chunks, four a thread in 512 threads; two blocks an SM by registers (64
  // a thread), each with as many 32 KiB stages as half the H200's 228 KiB holds: three.
  const auto wide = bulk_of(DType::BF16, 4096, 16384);
  CHECK(wide.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 512>");
  CHECK(wide.source.find("layernorm_bulk.cuh") != std::string::npos);
  CHECK(wide.block[0] == 512);
  CHECK(wide.grid[0] == 132 * 2);
  CHECK(stages_of(wide, 16384 * 2) == 3);
  CHECK(wide.shared_bytes % (16384 * 2) == 0);
  // bf16 d = 1024: 128 chunks, a warp a row; 32 blocks an SM, two 2 KiB stages each.
  const auto narrow = bulk_of(DType::BF16, 65536, 1024);
  CHECK(narrow.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 32>");
  CHECK(narrow.grid[0] == 132 * 32);
  CHECK(stages_of(narrow, 2048) == 2);
  // d = 32768 bf16: 1024 threads, one block an SM, three 64 KiB stages.
  const auto widest = bulk_of(DType::BF16, 2048, 32768);
  CHECK(widest.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 1024>");
  CHECK(widest.grid[0] == 132);
  CHECK(stages_of(widest, 65536) == 3);
  CHECK(widest.shared_bytes <= DeviceLimits::h200().shared_per_block_optin - 1024);
  // fp32 d = 4096: 1024 chunks, 256 threads, four blocks an SM of three 16 KiB stages.
  const auto f32 = bulk_of(DType::F32, 16384, 4096);
  CHECK(f32.entry == "ladder::layernorm_fwd_bulk<float, 4, 256>");
  CHECK(stages_of(f32, 16384) == 3);
  // Fewer rows than the SMs hold: a block a row.
  CHECK(bulk_of(DType::BF16, 7, 16384).grid[0] == 7);
  // Zero rows: one block, which returns at once.
  CHECK(bulk_of(DType::BF16, 0, 64).grid[0] == 1);

  // Pinned ITEMS, block and stages. One 1024-thread block an SM: seven 32 KiB stages of the
  // H200's 227 KiB a block; eight (the kernel's most) of 2 KiB rows in each of eight blocks.
  const auto two = bulk_of(DType::BF16, 4096, 16384, {{"bulk_items", "2"}});
  CHECK(two.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 2, 1024>");
  CHECK(two.grid[0] == 132);
  CHECK(stages_of(two, 32768) == 7);
  const auto one = bulk_of(DType::BF16, 65536, 1024, {{"bulk_items", "1"}});
  CHECK(one.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 1, 128>");
  CHECK(one.grid[0] == 132 * 8);
  CHECK(stages_of(one, 2048) == 8);
  CHECK(bulk_of(DType::BF16, 4096, 16384, {{"bulk_stages", "2"}}).shared_bytes == 2 * 32768);
  CHECK(bulk_of(DType::F16, 83, 8, {{"bulk_threads", "256"}}).entry == "ladder::layernorm_fwd_bulk<__half, 4, 256>");
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

TEST_CASE("schedule=auto copies 16-bit LayerNorm rows of 4096 chunks whole, where the H200 measured it faster", "[kernels]") {
  ladder::register_builtin_oracles();
  auto auto_entry = [](DType dt, std::int64_t rows, std::int64_t d, std::map<std::string, std::string> v = {},
                       const DeviceLimits& device = DeviceLimits::h200()) {
    return plan_checked({"layernorm", dt, v}, {{"rows", rows}, {"d", d}}, device).front();
  };
  const auto bf16 = auto_entry(DType::BF16, 2048, 32768);
  CHECK(bf16.entry == "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 1024>");
  CHECK(bf16.grid[0] == 132);
  CHECK(bf16.shared_bytes == 3 * 65536);
  CHECK(auto_entry(DType::F16, 4096, 32768).entry == "ladder::layernorm_fwd_bulk<__half, 4, 1024>");
  // What the row computes leaves the choice free; in place and without the affine parameters too.
  CHECK(auto_entry(DType::BF16, 2048, 32768, {{"inplace", "y_x"}, {"affine", "0"}, {"write_stats", "0"}}).entry ==
        "ladder::layernorm_fwd_bulk<__nv_bfloat16, 4, 1024>");
  // Not measured, or measured slower: fewer rows, other widths, fp32, rows off the grid, an sm_80
  // device, a variant that pins how the row is scheduled.
  for (const auto& L : {auto_entry(DType::BF16, 2047, 32768), auto_entry(DType::BF16, 4096, 16384),
                        auto_entry(DType::BF16, 2048, 32776), auto_entry(DType::F32, 4096, 16384),
                        auto_entry(DType::BF16, 2048, 32768, {{"strided", "odd"}}),
                        auto_entry(DType::BF16, 2048, 32768, {}, DeviceLimits::a100()),
                        auto_entry(DType::BF16, 2048, 32768, {{"schedule", "row"}}),
                        auto_entry(DType::BF16, 2048, 32768, {{"items", "4"}})}) {
    INFO(L.entry);
    CHECK(L.entry.find("_bulk<") == std::string::npos);
  }
  // schedule=auto said aloud is auto.
  CHECK(auto_entry(DType::BF16, 2048, 32768, {{"schedule", "auto"}}).entry.find("_bulk<") != std::string::npos);
}

TEST_CASE("schedule=bulk for layernorm_bwd: x and dy staged whole, one partial row a block; auto where the register kernel streams", "[kernels]") {
  ladder::register_builtin_oracles();
  auto bwd = [](DType dt, std::int64_t rows, std::int64_t d, std::map<std::string, std::string> more = {},
                const DeviceLimits& device = DeviceLimits::h200()) {
    more["schedule"] = "bulk";
    return plan_checked({"layernorm_bwd", dt, more}, {{"rows", rows}, {"d", d}}, device);
  };
  // bf16 d = 8192: 1024 chunks, one a thread in 1024 threads; one block an SM, with as many
  // 32 KiB stages (a row of x and one of dy) as a block's shared memory holds beside gamma's row
  // (16 KiB): six of the seven without it.
  const auto plan = bwd(DType::BF16, 4096, 8192);
  const KernelLaunch& L = plan.front();
  CHECK(L.entry == "ladder::layernorm_bwd_bulk<__nv_bfloat16, 1, 1024>");
  CHECK(L.source.find("layernorm_bwd_bulk.cuh") != std::string::npos);
  CHECK(L.block[0] == 1024);
  CHECK(L.grid[0] == 132);
  CHECK(L.shared_bytes == 6u * 2 * 8192 * 2 + 8192 * 2);
  CHECK(L.shared_bytes + 1024 <= DeviceLimits::h200().shared_per_block_optin);
  // Every block writes one partial row of each sum; the reduce adds exactly those.
  for (const char* name : {"dgamma_partial", "dbeta_partial"}) {
    const auto* partial = find_buffer(L, name);
    REQUIRE(partial != nullptr);
    CHECK(partial->rows == L.grid[0]);
  }
  REQUIRE(plan.size() == 2);
  CHECK(plan[1].entry == "ladder::column_sum_pair<__nv_bfloat16>");
  CHECK(plan[1].args[4].value == 132.0);  // parts
  // fp32 d = 4096 (1024 chunks): one a thread; ITEMS and block pinned; three blocks for tests.
  CHECK(bwd(DType::F32, 4096, 4096).front().entry == "ladder::layernorm_bwd_bulk<float, 1, 1024>");
  CHECK(bwd(DType::BF16, 4096, 8192, {{"bulk_items", "4"}}).front().entry ==
        "ladder::layernorm_bwd_bulk<__nv_bfloat16, 4, 256>");
  CHECK(bwd(DType::BF16, 4096, 8192, {{"bulk_grid", "3"}}).front().grid[0] == 3);
  CHECK(bwd(DType::BF16, 4096, 8192, {{"bulk_stages", "2"}}).front().shared_bytes == 2u * 2 * 8192 * 2 + 8192 * 2);
  // Pinned stages that leave no room for gamma, or no gamma (affine=0): stages alone.
  CHECK(bwd(DType::BF16, 4096, 8192, {{"bulk_stages", "7"}}).front().shared_bytes == 7u * 2 * 8192 * 2);
  CHECK(bwd(DType::BF16, 4096, 8192, {{"affine", "0"}}).front().shared_bytes == 7u * 2 * 8192 * 2);
  // Odd strides: the element-by-element path, no stages.
  CHECK(bwd(DType::BF16, 83, 769, {{"strided", "odd"}}).front().shared_bytes == 0);
  // Refused: before sm_90, keys of other schedules, and bulk keys without it.
  CHECK_THROWS_AS(bwd(DType::BF16, 4096, 8192, {}, DeviceLimits::a100()), std::invalid_argument);
  CHECK_THROWS_AS(bwd(DType::BF16, 4096, 8192, {{"items", "2"}}), std::invalid_argument);
  CHECK_THROWS_AS(bwd(DType::BF16, 4096, 8192, {{"shift", "1"}}), std::invalid_argument);
  CHECK_THROWS_AS(bwd(DType::BF16, 4096, 8192, {{"bulk_stages", "8"}}), std::invalid_argument);
  CHECK_THROWS_AS(plan_checked({"layernorm_bwd", DType::BF16, {{"bulk_items", "2"}}}, {{"rows", 8}, {"d", 64}}),
                  std::invalid_argument);
  // auto keeps the register kernel where one tile holds the row ...
  auto auto_entry = [](DType dt, std::int64_t rows, std::int64_t d, std::map<std::string, std::string> v = {},
                       const DeviceLimits& device = DeviceLimits::h200()) {
    return plan_checked({"layernorm_bwd", dt, v}, {{"rows", rows}, {"d", d}}, device).front().entry;
  };
  CHECK(auto_entry(DType::BF16, 4096, 8192) == "ladder::layernorm_bwd<__nv_bfloat16, 2>");
  CHECK(auto_entry(DType::F32, 4096, 8192) == "ladder::layernorm_bwd<float, 4>");
  // ... and takes the bulk kernel where it would stream: wider than 512 threads x 16 values.
  // (In 16 bits its sums pool over two blocks: test_pool_plans.cpp.)
  CHECK(auto_entry(DType::BF16, 2048, 16384) == "ladder::layernorm_bwd_bulk_pooled<__nv_bfloat16, 4, 512, 2>");
  // (Rows of more than 2048 chunks split over a cluster of two blocks: test_cluster_plans.cpp.)
  CHECK(auto_entry(DType::F16, 7, 32768) == "ladder::layernorm_bwd_bulk_cluster<__half, 4, 512, 2>");
  CHECK(auto_entry(DType::F32, 1024, 16384) == "ladder::layernorm_bwd_bulk_cluster<float, 4, 512, 2>");
  CHECK(auto_entry(DType::BF16, 2048, 16384, {{"stats", "recompute"}, {"affine", "0"}}) ==
        "ladder::layernorm_bwd_bulk<__nv_bfloat16, 4, 512>");
  // Not where its path is closed (rows off the grid, d past 4096 chunks, before sm_90), nor where
  // the variant pins the register kernel.
  CHECK(auto_entry(DType::BF16, 2048, 16384, {{"strided", "odd"}}).find("_bulk") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 2048, 16385).find("_bulk") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 4, 65536).find("_bulk") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 2048, 16384, {}, DeviceLimits::a100()).find("_bulk") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 2048, 16384, {{"items", "2"}}).find("_bulk") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 2048, 16384, {{"schedule", "regs"}}).find("_bulk") == std::string::npos);
}

TEST_CASE("schedule=bulk for rmsnorm_bwd and add_rmsnorm_bwd: every input row staged; auto where the register kernel streams", "[kernels]") {
  ladder::register_builtin_oracles();
  auto first = [](const std::string& op, DType dt, std::int64_t rows, std::int64_t d,
                  std::map<std::string, std::string> v = {}) {
    return plan_checked({op, dt, v}, {{"rows", rows}, {"d", d}}).front();
  };
  // rmsnorm_bwd bf16 d = 16384: stages of x and dy (64 KiB), three in a block's shared memory,
  // and the weight's row after them (32 KiB); none without a weight.
  const auto rms = first("rmsnorm_bwd", DType::BF16, 2048, 16384);
  CHECK(rms.entry == "ladder::rmsnorm_bwd_bulk<__nv_bfloat16, 4, 512>");
  CHECK(rms.source.find("rmsnorm_bwd_bulk.cuh") != std::string::npos);
  CHECK(rms.shared_bytes == 3u * 2 * 16384 * 2 + 16384 * 2);
  CHECK(first("rmsnorm_bwd", DType::BF16, 2048, 16384, {{"weight", "none"}}).shared_bytes == 3u * 2 * 16384 * 2);
  CHECK(find_buffer(rms, "dw_partial")->rows == rms.grid[0]);
  // add_rmsnorm_bwd: x, r and dy a stage (two fit), and dh too where given (one fits); the
  // weight's row beside them, but not where it would take the only stage (fp32 d = 16384 in
  // one block: one stage of 192 KiB and a 64 KiB row). auto splits that row over a cluster of
  // two blocks (test_cluster_plans.cpp), each with two 96 KiB stages and its 32 KiB of weight.
  const auto add = first("add_rmsnorm_bwd", DType::BF16, 2048, 16384);
  CHECK(add.entry == "ladder::add_rmsnorm_bwd_bulk<__nv_bfloat16, 4, 512>");
  CHECK(add.shared_bytes == 2u * 3 * 16384 * 2 + 16384 * 2);
  CHECK(first("add_rmsnorm_bwd", DType::BF16, 2048, 16384, {{"dh", "1"}}).shared_bytes == 1u * 4 * 16384 * 2 + 16384 * 2);
  CHECK(first("add_rmsnorm_bwd", DType::F32, 1024, 16384, {{"schedule", "bulk"}, {"bulk_cluster", "1"}}).shared_bytes ==
        1u * 3 * 16384 * 4);
  CHECK(first("add_rmsnorm_bwd", DType::F32, 1024, 16384).shared_bytes == 2u * 3 * 8192 * 4 + 8192 * 4);
  // Four rows of 64 KiB exceed a block: one block a row gets no stages (the element-by-element
  // path); auto splits the row over two blocks, one stage of four 32 KiB rows each.
  CHECK(first("add_rmsnorm_bwd", DType::BF16, 64, 32768, {{"dh", "1"}, {"schedule", "bulk"}, {"bulk_cluster", "1"}})
            .shared_bytes == 0);
  CHECK(first("add_rmsnorm_bwd", DType::BF16, 64, 32768, {{"dh", "1"}}).shared_bytes == 1u * 4 * 16384 * 2 + 16384 * 2);
  // One tile holds the row: the register kernel.
  CHECK(first("rmsnorm_bwd", DType::BF16, 4096, 8192).entry == "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>");
  CHECK(first("add_rmsnorm_bwd", DType::F32, 16384, 4096).entry == "ladder::add_rmsnorm_bwd<float, 4>");
  // Keys of the register kernel pin it under auto and are errors with schedule=bulk.
  CHECK(first("add_rmsnorm_bwd", DType::BF16, 2048, 16384, {{"broken_launch", "short_shared"}}).entry.find("_bulk") == std::string::npos);
  CHECK_THROWS_AS(first("rmsnorm_bwd", DType::BF16, 2048, 16384, {{"schedule", "bulk"}, {"shift", "0"}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(first("rmsnorm_bwd", DType::BF16, 2048, 16384, {{"bulk_grid", "3"}}), std::invalid_argument);
}
