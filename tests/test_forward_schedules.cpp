// Forward schedules beyond the register kernels: staged, several rows a thread, wide; their
// launch guards' broken launches; plans sized for another device. No GPU needed.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/kernels/catalog.h"
#include "harness/toolchain/driver.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

TEST_CASE("staged schedule: auto takes it only where it measured faster; its grid and memory",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // A 16-bit row that fills a 1024-thread block in registers: staged, three stages where they
  // fit a block, two where they do not. (From kLoopAutoMinRows rows the H200 streams them:
  // tests/test_loop_plans.cpp.)
  const auto wide = entry_of({"rmsnorm", DType::BF16, {}}, 1000, 32768);
  CHECK(wide.entry == "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 3>");
  CHECK(wide.block[0] == 1024);
  CHECK(wide.block[1] == 1);
  CHECK(wide.shared_bytes == 3u * 1024 * 4 * 16);
  CHECK(wide.grid[0] == 132);  // one 192 KiB block an SM, each walking rows
  // add_rmsnorm's 16-bit rows of 16384 and more take the wide register kernel (its own test
  // case); schedule=staged still stages them.
  const auto wide_add = entry_of({"add_rmsnorm", DType::F16, {{"schedule", "staged"}}}, 4096, 16384);
  CHECK(wide_add.entry == "ladder::add_rmsnorm_fwd_staged<__half, 4, false, 3>");
  CHECK(wide_add.shared_bytes == 3u * 2 * 512 * 4 * 16);
  const auto wider_add = entry_of({"add_rmsnorm", DType::F16, {{"schedule", "staged"}}}, 4096, 24576);
  CHECK(wider_add.entry == "ladder::add_rmsnorm_fwd_staged<__half, 4, false, 2>");  // 3 x 96 KiB: too big
  CHECK(wider_add.block[0] == 768);
  // By default such rows (the register kernel streams them) take the wide kernel instead.
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"schedule", "wide"}}}, 4096, 24576).entry == "ladder::add_rmsnorm_fwd<__half, 8, false, 512>");
  const auto two = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "staged"}}}, 512, 24576);
  CHECK(two.entry == "ladder::add_rmsnorm_fwd_staged<__nv_bfloat16, 4, false, 2>");  // 3 x 96 KiB: too big
  // fp32 add_rmsnorm rows off the 16-byte grid: staged with two chunks a thread.
  const auto odd = entry_of({"add_rmsnorm", DType::F32, {}}, 8192, 2049);
  CHECK(odd.entry == "ladder::add_rmsnorm_fwd_staged<float, 2, false, 3>");
  CHECK(std::int64_t{odd.block[0]} * 2 * 4 >= 2049 + 3);  // one tile at any phase
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 16384, 2049).entry == "ladder::rmsnorm_fwd_staged<float, 2, 3>");
  // Elsewhere, and for few rows, the register kernels.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4096).entry.find("staged") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 8192, 2049).entry.find("staged") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 100, 32768).entry.find("staged") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 8192, 8192).entry.find("staged") == std::string::npos);
  // schedule=staged where no tile of 1024 threads covers the row: the register kernel streams.
  const auto too_wide = entry_of({"rmsnorm", DType::BF16, {{"schedule", "staged"}}}, 4, 65536);
  CHECK(too_wide.entry.find("staged") == std::string::npos);
  CHECK(too_wide.shared_bytes == 0);
  // blocks=N pins the grid (tests walk many rows a block); schedule=regs pins the register kernel.
  CHECK(entry_of({"rmsnorm", DType::F16, {{"schedule", "staged"}, {"blocks", "3"}}}, 83, 769).grid[0] == 3);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 2048, 32768).entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
}

TEST_CASE("rows schedule: several rows a thread, at ITEMS that fit their registers, one tile only",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // bf16 4096: two rows a thread of two chunks each (the register kernel holds one row of four).
  const auto two = entry_of({"rmsnorm", DType::BF16, {{"schedule", "rows2"}}}, 16384, 4096);
  CHECK(two.entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(two.block[0] == 256);
  CHECK(two.block[1] == 1);
  CHECK(two.grid[0] == 16384 / 2);  // one row group per two rows
  CHECK(two.shared_bytes == 0);
  const auto four = entry_of({"rmsnorm", DType::F32, {{"schedule", "rows4"}}}, 16384, 4096);
  CHECK(four.entry == "ladder::rmsnorm_fwd_rows<float, 1, 4>");
  CHECK(four.block[0] == 1024);
  CHECK(four.grid[0] == 16384 / 4);
  // Small rows share a block: every row group of the block takes its own rows.
  const auto small = entry_of({"rmsnorm", DType::BF16, {{"schedule", "rows2"}}}, 83, 128);
  CHECK(small.entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(std::int64_t{small.grid[0]} * small.block[1] * 2 >= 83);
  // A row no 1024-thread tile covers at those ITEMS: the register kernel, which streams it.
  const auto wide = entry_of({"rmsnorm", DType::BF16, {{"schedule", "rows2"}}}, 64, 32768);
  CHECK(wide.entry.find("_rows") == std::string::npos);
  // auto: two rows a thread only for many 16-bit rows of one warp x four chunks (d = 769..1016;
  // from 2048 rows of 1024 the held row of tests/test_loop_plans.cpp).
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 65536, 1016).entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 2047, 1024).entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(entry_of({"rmsnorm", DType::F16, {}}, 4096, 1000).entry == "ladder::rmsnorm_fwd_rows<__half, 2, 2>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4096).entry.find("_rows") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 65536, 768).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 3>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 100, 1024).entry.find("_rows") == std::string::npos);  // few rows
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 65536, 512).entry.find("_rows") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, 65536, 1024).entry.find("_rows") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 65536, 1024).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  // Other ops have no rows schedule.
  CHECK_THROWS_AS(ladder::kernels::plan({"add_rmsnorm", DType::BF16, {{"schedule", "rows2"}}},
                                        {{"rows", 8}, {"d", 64}}, kEps),
                  std::invalid_argument);
}

TEST_CASE("off_grid: register kernels read edge chunks whole and weights skewed where rows leave the 16-byte grid",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // auto: strides off the 16-byte grid (d = 2049 in 16-bit, an odd stride) take OFF_GRID, the
  // kernels' last template argument, with every argument before it spelled out (below 4096 rows,
  // where schedule=phase does not take them).
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 2048, 2049).entry ==
        "ladder::layernorm_fwd<__nv_bfloat16, 3, 1024, true>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 2048, 2049).entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 3, 1024, false, true>");
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}}}, 2048, 2049).entry ==
        "ladder::add_rmsnorm_fwd<__half, 3, true, 1024, false, true>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, 4096, 4096).entry.find(", true>") !=
        std::string::npos);
  // Rows on the grid keep the entries they were measured with; off_grid=0|1 pins either way.
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 16384, 2048).entry == "ladder::layernorm_fwd<__nv_bfloat16, 4>");
  CHECK(entry_of({"layernorm", DType::BF16, {{"off_grid", "0"}}}, 16384, 2049).entry ==
        "ladder::layernorm_fwd<__nv_bfloat16, 3>");
  CHECK(entry_of({"layernorm", DType::BF16, {{"off_grid", "1"}}}, 16384, 2048).entry ==
        "ladder::layernorm_fwd<__nv_bfloat16, 4, 1024, true>");
  CHECK(entry_of({"rmsnorm", DType::F32, {{"off_grid", "0"}, {"schedule", "regs"}}}, 16384, 2049)
            .entry.find(", true>") == std::string::npos);
  CHECK_THROWS_AS(ladder::kernels::plan({"layernorm", DType::BF16, {{"off_grid", "yes"}}},
                                        {{"rows", 8}, {"d", 2049}}, {{"eps", 1e-5}}),
                  std::invalid_argument);
}

TEST_CASE("wide schedule: eight chunks a thread under a lower launch bound, where it measured faster",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // rmsnorm 16-bit rows the register kernel gives more than 256 threads (auto takes the
  // row-a-block kernel there: test_decode_plans.cpp). A row that fills the bound stages its
  // weight in shared memory (STAGE_WEIGHT): the launch gets the weight's whole 16-byte chunks; a
  // narrower row neither.
  const auto rms = entry_of({"rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 4096, 16384);
  CHECK(rms.entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 8, 256, true>");
  CHECK(rms.block[0] == 256);
  CHECK(rms.block[1] == 1);
  CHECK(rms.grid[0] == 4096);
  CHECK(rms.shared_bytes == 16384u * 2);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"strided", "1"}}}, 4096, 16383).shared_bytes == 16376u * 2);  // whole chunks
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "wide"}, {"weight", "none"}}}, 4096, 16384).shared_bytes == 0);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "wide"}, {"stage_weight", "0"}}}, 4096, 16384).shared_bytes == 0);
  CHECK(entry_of({"rmsnorm", DType::F16, {{"schedule", "wide"}}}, 4096, 12288).shared_bytes == 0);
  CHECK(entry_of({"rmsnorm", DType::F16, {{"schedule", "wide"}}}, 4096, 12288).entry == "ladder::rmsnorm_fwd<__half, 8, 256>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 8192, 8192).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 4096, 16384).entry.find(", 256>") == std::string::npos);
  // add_rmsnorm 16-bit rows of more than 512 threads at two chunks (it staged those of 1024), where
  // auto takes the row-a-block kernel (test_decode_plans.cpp) and under schedule=wide.
  const auto add = entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}, {"schedule", "wide"}}}, 4096, 16384);
  CHECK(add.entry == "ladder::add_rmsnorm_fwd<__half, 8, true, 512>");
  CHECK(add.block[0] == 256);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 8192, 8192).entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 2, false>");
  const auto between = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 8192, 12288);  // 768 threads at two chunks
  CHECK(between.entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, false, 512>");
  CHECK(between.block[0] == 192);
  // add_rmsnorm 16-bit rows the register kernel streams: one 512-thread block a row staging its
  // weight in shared memory (schedule=wide; auto takes the row-a-block kernel there, whose
  // geometry and shared memory are the same); fp32 rows still stream.
  const auto lone = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 512, 32768);
  CHECK(lone.entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, false, 512, true>");
  CHECK(lone.block[0] == 512);
  CHECK(lone.block[1] == 1);
  CHECK(lone.grid[0] == 512);
  CHECK(lone.shared_bytes == 32768u * 2);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "wide"}, {"stage_weight", "0"}}}, 512, 32768).shared_bytes == 0);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"stage_weight", "0"}}}, 512, 32768).shared_bytes == 0);
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 512, 32768).entry.find(", 512") == std::string::npos);
  // layernorm fp32 rows of 256 or 512 threads at four chunks (schedule=wide; auto takes the
  // row-a-block kernel up to 4096 fp32 chunks).
  const auto ln = entry_of({"layernorm", DType::F32, {{"schedule", "wide"}}}, 16384, 4096);
  CHECK(ln.entry == "ladder::layernorm_fwd<float, 8, 256>");
  CHECK(ln.block[0] == 128);
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "wide"}}}, 8192, 8192).block[0] == 256);
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "regs"}}}, 4096, 16384).entry == "ladder::layernorm_fwd<float, 8>");
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "regs"}}}, 16384, 4096).entry == "ladder::layernorm_fwd<__nv_bfloat16, 4>");
  // Not for few rows, rows off the 16-byte grid, or a pinned schedule.
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 100, 16384).entry.find(", 256>") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, 4096, 16384).entry.find(", 256>") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 4096, 16384).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 4096, 16384).entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 2, false>");
  // schedule=wide anywhere: small rows share a block within the bound; wide rows stream.
  const auto tiny = entry_of({"layernorm", DType::BF16, {{"schedule", "wide"}}}, 7, 3);
  CHECK(tiny.entry == "ladder::layernorm_fwd<__nv_bfloat16, 8, 256, true>");  // d = 3: off the grid
  CHECK(tiny.block[0] == 1);
  CHECK(tiny.block[0] * tiny.block[1] <= 256);
  CHECK(std::int64_t{tiny.grid[0]} * tiny.block[1] >= 7);
  // A row of 512 threads fills add_rmsnorm's bound, one block an SM: the staging build; but a
  // row that streams is not staged (its weight could outgrow shared memory), so no bytes.
  const auto streams = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 3, 65536);
  CHECK(streams.entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, false, 512, true>");
  CHECK(streams.block[0] == 512);
  CHECK(streams.shared_bytes == 0);
  const auto odd = entry_of({"rmsnorm", DType::F32, {{"schedule", "wide"}, {"strided", "odd"}}}, 83, 2049);
  CHECK(std::int64_t{odd.block[0]} * 8 * 4 >= 2049 + 3);  // one tile at any phase
  CHECK(odd.shared_bytes == 0);
  // ITEMS is the schedule's own.
  CHECK_THROWS_WITH(ladder::kernels::plan({"rmsnorm", DType::BF16, {{"schedule", "wide"}, {"items", "4"}}},
                                          {{"rows", 8}, {"d", 64}}, kEps),
                    ladder_test::has_substr("schedule=wide fixes ITEMS at 8"));
}

TEST_CASE("broken_launch: the selftest's staged launches break exactly what the kernel guards",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto launch_of = [](const std::string& broken, const std::string& schedule = "staged",
                      std::int64_t d = 4096) {
    const KernelRef ref{"rmsnorm", DType::BF16, {{"schedule", schedule}, {"broken_launch", broken}}};
    return ladder::kernels::plan(ref, {{"rows", 300}, {"d", d}}, kEps).front();
  };
  const auto planned = launch_of("none");
  REQUIRE(planned.entry == "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 3>");
  CHECK(planned.block[0] * 4 * 8 >= 4096);  // one tile covers the row
  CHECK(planned.block[1] == 1);
  // One warp too narrow: the tile misses the row's last 1024 columns (the kernel traps).
  const auto narrow = launch_of("narrow_tile");
  CHECK(narrow.entry == planned.entry);
  CHECK(narrow.block[0] == planned.block[0] - 32);
  CHECK(narrow.block[0] * 4 * 8 < 4096);
  CHECK(narrow.shared_bytes == planned.shared_bytes);
  // Two row groups a block: the stages are per row group of one (the kernel traps).
  const auto two = launch_of("two_row_groups");
  CHECK(two.entry == planned.entry);
  CHECK(two.block[0] == planned.block[0]);
  CHECK(two.block[1] == 2);
  // Asked of a launch that takes the register kernels, it is a plan error, not a silent no-op.
  CHECK_THROWS_AS(launch_of("narrow_tile", "regs"), std::invalid_argument);
  CHECK_THROWS_AS(launch_of("two_row_groups", "staged", 65536), std::invalid_argument);
  CHECK_THROWS_AS(launch_of("sideways"), std::invalid_argument);
}

TEST_CASE("staged plans fit the device planned for: an A100's opt-in shared memory and SMs",
          "[kernels]") {
  ladder::register_builtin_oracles();
  constexpr DeviceLimits a100 = DeviceLimits::a100();
  // The staged kernels' static shared memory: norm::ReduceScratch<1>, 2 x 32 floats. The
  // driver refuses a launch whose dynamic plus static shared memory passes the opt-in maximum.
  constexpr std::int64_t kStaticScratch = 2 * 32 * 4;
  auto fits = [&](const KernelLaunch& L) {
    INFO(L.entry << " shared " << L.shared_bytes);
    CHECK(std::int64_t{L.shared_bytes} + kStaticScratch <= a100.shared_per_block_optin);
  };
  // Three 64 KiB stages (192 KiB) fit an H200 block, not an A100's 163 KiB: two stages, and one
  // such block on each of the 108 SMs.
  const auto wide = plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 1000}, {"d", 32768}}, a100).front();
  CHECK(wide.entry == "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 2>");
  CHECK(wide.shared_bytes == 2u * 1024 * 4 * 16);
  CHECK(wide.grid[0] == 108);
  fits(wide);
  const auto wide_add =
      plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "staged"}}}, {{"rows", 4096}, {"d", 16384}}, a100).front();
  CHECK(wide_add.entry == "ladder::add_rmsnorm_fwd_staged<__nv_bfloat16, 4, false, 2>");
  CHECK(wide_add.shared_bytes == 2u * 2 * 512 * 4 * 16);
  CHECK(wide_add.grid[0] == 108);
  fits(wide_add);
  // Blocks an SM by shared memory: 54 KiB stages, two on an A100 SM's 164 KiB (four on an
  // H200's 228 KiB).
  const auto odd = plan_checked({"add_rmsnorm", DType::F32, {}}, {{"rows", 16384}, {"d", 2049}}, a100).front();
  CHECK(odd.entry == "ladder::add_rmsnorm_fwd_staged<float, 2, false, 3>");
  CHECK(odd.grid[0] == 108 * 2);
  CHECK(plan_checked({"add_rmsnorm", DType::F32, {}}, {{"rows", 16384}, {"d", 2049}}).front().grid[0] ==
        132 * 4);
  // Where even two stages do not fit, the register kernel, as for rows too wide for one tile:
  // three pinned 64 KiB stages, and two 96 KiB ones.
  const auto pinned3 = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "staged"}, {"stages", "3"}}},
                                    {{"rows", 2048}, {"d", 32768}}, a100).front();
  CHECK(pinned3.entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(pinned3.shared_bytes == 0);
  CHECK(pinned3.grid[0] == 2048);
  const auto two = plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "staged"}}},
                                {{"rows", 512}, {"d", 24576}}, a100).front();
  CHECK(two.entry.find("staged") == std::string::npos);
  CHECK(two.shared_bytes == 0);
  // "Few rows" counts the device's SMs: 250 rows are few for 132 SMs, not for 108.
  CHECK(plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 250}, {"d", 32768}}).front().entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 250}, {"d", 32768}}, a100).front().entry ==
        "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 2>");
  // The backward resident grid: two 256-thread blocks on each of 108 SMs.
  CHECK(plan_checked({"rmsnorm_bwd", DType::BF16, {}}, {{"rows", 16384}, {"d", 4096}}, a100).front().grid[0] ==
        108 * 2);
  // Every staged plan fits, and no grid exceeds 32 blocks on each of 108 SMs.
  for (const char* op : {"rmsnorm", "add_rmsnorm"})
    for (DType dt : {DType::F32, DType::F16, DType::BF16})
      for (const auto& v : std::vector<std::map<std::string, std::string>>{
               {}, {{"schedule", "staged"}}, {{"schedule", "staged"}, {"stages", "3"}}})
        for (std::int64_t d : {769, 2049, 4096, 8192, 12288, 16384, 20480, 24576, 32768})
          for (const auto& L : plan_checked({op, dt, v}, {{"rows", 16384}, {"d", d}}, a100)) {
            if (L.entry.find("staged") == std::string::npos) continue;
            fits(L);
            CHECK(L.grid[0] <= 32u * 108);
          }
  // The limits read from a device; attributes it did not report keep the H200's.
  ladder::toolchain::DeviceInfo info;
  info.sm_count = 108;
  info.shared_per_block_optin = 163 * 1024;
  const DeviceLimits read = DeviceLimits::from(info);
  CHECK(read.sm_count == 108);
  CHECK(read.shared_per_block_optin == 163 * 1024);
  CHECK(read.shared_per_sm == DeviceLimits::h200().shared_per_sm);
  CHECK(read.max_threads_per_sm == 2048);
  CHECK(read.dram_bytes_per_sm_cycle == DeviceLimits::h200().dram_bytes_per_sm_cycle);
  // DRAM bytes a cycle of an SM from the clocks and the bus (an H100 SXM's attributes), over the
  // context's SMs: the whole device's 132, or a green context's 96.
  info.sm_count = 132;
  info.clock_khz = 1980000;
  info.memory_clock_khz = 2619000;
  info.memory_bus_bits = 5120;
  CHECK(std::abs(DeviceLimits::from(info).dram_bytes_per_sm_cycle - 12.83) < 0.01);
  info.sm_count = 96;
  CHECK(std::abs(DeviceLimits::from(info).dram_bytes_per_sm_cycle - 17.64) < 0.01);
  info.memory_bus_bits = 0;  // not reported: the H200's
  CHECK(DeviceLimits::from(info).dram_bytes_per_sm_cycle == DeviceLimits::h200().dram_bytes_per_sm_cycle);
}


TEST_CASE("warp schedule: a row in one warp under a bound of 256; auto takes it for 16-bit rows "
          "off the grid of 129 to 193 chunks",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // auto, where call 165 measured it faster (d = 1025 and 1537: 129 and 193 chunks), below the
  // 4096 rows from which schedule=phase takes such rows.
  const auto rms = entry_of({"rmsnorm", DType::BF16, {}}, 2048, 1025);
  CHECK(rms.entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 6, 256, false, true>");
  CHECK(rms.block[0] == 32);
  CHECK(rms.block[1] == 8);
  CHECK(rms.grid[0] == 2048 / 8);
  CHECK(entry_of({"layernorm", DType::F16, {}}, 2048, 1537).entry ==
        "ladder::layernorm_fwd<__half, 9, 256, true>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 2048, 1537).entry ==
        "ladder::add_rmsnorm_fwd<__nv_bfloat16, 9, false, 256, false, true>");
  // Not where it lost (257 chunks and more), nor on the grid, nor for few rows or fp32, nor
  // where auto's packed kernel keeps add_rmsnorm's packed rows of up to 1024.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2049).entry.find(", 256,") == std::string::npos);
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 16384, 1024).entry.find(", 256,") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 100, 1025).entry.find(", 256,") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 16384, 1025).entry.find(", 256,") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 767).entry.find("packed") != std::string::npos);
  // Asked for: the smallest warp_items that covers the row, else 12 and the row streams.
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "warp"}}}, 8192, 2049).entry ==
        "ladder::layernorm_fwd<__nv_bfloat16, 9, 256, true>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "warp"}}}, 8192, 8192).entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 12, 256>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "warp"}, {"warp_items", "6"}}}, 8192, 2049)
            .entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 6, 256, false, true>");
  CHECK_THROWS_WITH(entry_of({"rmsnorm", DType::BF16, {{"warp_items", "6"}}}, 8192, 2049),
                    has_substr("warp_items needs schedule=warp"));
  CHECK_THROWS_WITH(entry_of({"rmsnorm", DType::BF16, {{"schedule", "warp"}, {"items", "2"}}}, 8192, 2049),
                    has_substr("drop items=2"));
}
