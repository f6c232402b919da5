// The decode schedule (kernels/decode_norm.cuh): where auto takes it, its block and grid, and
// where schedule=decode falls back to the register kernel. No GPU needed.
#include <string>
#include <utility>
#include <vector>

#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

bool is_decode(const KernelLaunch& L) { return L.entry.find("_decode<") != std::string::npos; }

}  // namespace

TEST_CASE("decode schedule: auto takes few rows of one chunk a thread in whole warps",
          "[kernels]") {
  ladder::register_builtin_oracles();
  const auto one = entry_of({"rmsnorm", DType::BF16, {}}, 1, 4096);
  CHECK(one.entry == "ladder::rmsnorm_fwd_decode<__nv_bfloat16>");
  CHECK(one.source.find("decode_norm.cuh") != std::string::npos);
  CHECK(one.block[0] == 512);
  CHECK(one.block[1] == 1);
  CHECK(one.grid[0] == 1);
  CHECK(one.shared_bytes == 0);
  const auto add = entry_of({"add_rmsnorm", DType::BF16, {}}, 1, 4096);
  CHECK(add.entry == "ladder::add_rmsnorm_fwd_decode<__nv_bfloat16, false>");
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}}}, 1, 4096).entry ==
        "ladder::add_rmsnorm_fwd_decode<__half, true>");
  // f32 has nothing to round: convention B is convention A's instantiation.
  CHECK(entry_of({"add_rmsnorm", DType::F32, {{"convention", "B"}}}, 3, 2048).entry ==
        "ladder::add_rmsnorm_fwd_decode<float, false>");
  const auto batch = entry_of({"rmsnorm", DType::F16, {}}, 83, 768);  // 96 chunks: three warps
  CHECK(is_decode(batch));
  CHECK(batch.block[0] == 96);
  CHECK(batch.grid[0] == 83);

  // Not decode: rows enough to fill the machine, rows off the 16-byte grid, rows of a warp's
  // chunks or fewer, rows the register planner gives two chunks a thread, pinned ITEMS or rpb,
  // and schedule=regs.
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 264, 4096)));
  CHECK(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 263, 4096)));
  // At d = 1032 (129 chunks) the register planner gives one chunk a thread in five warps even with
  // many rows: only the row count keeps such a batch on the register kernel.
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 264, 1032).entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 1>");
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 264, 1032)));
  CHECK(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 263, 1032)));
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, 1, 4096)));
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 1, 4097)));  // 4097: off the grid
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 1, 256)));
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {}}, 1, 8192)));
  CHECK_FALSE(is_decode(entry_of({"add_rmsnorm", DType::BF16, {{"items", "1"}}}, 1, 4096)));
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::BF16, {{"rpb", "1"}}}, 1, 4096)));
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 1, 4096).entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 1>");
  CHECK_FALSE(is_decode(entry_of({"layernorm", DType::BF16, {}}, 1, 4096)));
}

TEST_CASE("schedule=decode: any rows a block of 1024 threads covers; wider rows fall back",
          "[kernels]") {
  ladder::register_builtin_oracles();
  const auto tiny = entry_of({"rmsnorm", DType::F32, {{"schedule", "decode"}}}, 1, 1);
  CHECK(tiny.entry == "ladder::rmsnorm_fwd_decode<float>");
  CHECK(tiny.block[0] == 32);  // whole warps, even for one element
  const auto many = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "decode"}}}, 4096, 8192);
  CHECK(is_decode(many));
  CHECK(many.block[0] == 1024);
  CHECK(many.grid[0] == 4096);
  // Off the grid: still decode (the kernel gathers), only auto avoids it.
  CHECK(is_decode(entry_of({"rmsnorm", DType::F16, {{"schedule", "decode"}, {"strided", "odd"}}}, 7, 769)));
  // 1025 chunks and more: the register kernel.
  const auto wide = entry_of({"rmsnorm", DType::BF16, {{"schedule", "decode"}}}, 2, 8200);
  CHECK_FALSE(is_decode(wide));
  CHECK(entry_of({"rmsnorm", DType::F32, {{"schedule", "decode"}}}, 2, 4096).block[0] == 1024);
  CHECK_FALSE(is_decode(entry_of({"rmsnorm", DType::F32, {{"schedule", "decode"}}}, 2, 4097)));
}

TEST_CASE("schedule=row: add_rmsnorm rows one a block of 64-512 threads at eight chunks, weight staged",
          "[kernels]") {
  ladder::register_builtin_oracles();
  const auto row = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}}}, 512, 32768);
  CHECK(row.entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 512>");
  CHECK(row.source.find("block_row.cuh") != std::string::npos);
  CHECK(row.block[0] == 512);
  CHECK(row.grid[0] == 512);
  CHECK(row.shared_bytes == 32768u * 2);  // the weight's whole chunks
  // The narrowest block that covers the row: 125 chunks take 64 threads, 1025 take 256.
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"schedule", "row"}, {"convention", "B"}}}, 3, 1000).entry ==
        "ladder::add_rmsnorm_fwd_row<__half, 8, true, 64>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}}}, 3, 4096).block[0] == 64);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}}}, 3, 4104).block[0] == 128);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}}}, 3, 8200).block[0] == 256);
  CHECK(entry_of({"add_rmsnorm", DType::F32, {{"schedule", "row"}}}, 3, 16384).block[0] == 512);
  // row_items picks ITEMS (four chunks a thread in up to 1024 threads), and row_threads must be
  // a width instantiated at it.
  const auto four = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_items", "4"}}}, 3, 4096);
  CHECK(four.entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 4, false, 128>");
  const auto four_wide = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_items", "4"}}}, 512, 32768);
  CHECK(four_wide.entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 4, false, 1024>");
  CHECK(four_wide.shared_bytes == 32768u * 2);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_items", "4"}}}, 3, 32776).entry.find("_row<") == std::string::npos);
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_items", "4"}, {"row_threads", "64"}}}, 3, 128));
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_items", "8"}, {"row_threads", "1024"}}}, 3, 128));
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"row_items", "4"}}}, 3, 4096));
  // row_threads picks the block; one too narrow for the row leaves the register kernel.
  const auto asked = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_threads", "256"}}}, 3, 1000);
  CHECK(asked.entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 256>");
  CHECK(asked.block[0] == 256);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"row_threads", "64"}}}, 3, 4104).entry.find("_row<") ==
        std::string::npos);
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"row_threads", "64"}}}, 3, 1000));
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"weight", "none"}}}, 3, 1000).shared_bytes == 0);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"stage_weight", "0"}}}, 3, 1000).shared_bytes == 0);
  // Past 4096 chunks: the register kernel.
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}}}, 4, 32776).entry.find("_row<") == std::string::npos);
  // auto: add_rmsnorm rows on the grid from d = 8192 (f16: 4096) to 4096 chunks
  // (block_row_auto); schedule=wide still gives the wide build there. (At 1000 rows: from
  // kLoopAutoMinRows rows auto streams these widths, tests/test_loop_plans.cpp.)
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 512, 32768).entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 512>");
  CHECK(entry_of({"add_rmsnorm", DType::F16, {}}, 2048, 32768).entry == "ladder::add_rmsnorm_fwd_row<__half, 8, false, 512>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 1000, 16384).entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 256>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 1000, 8192).entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 128>");
  const auto d4096 = entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}}}, 1000, 4096);
  CHECK(d4096.entry == "ladder::add_rmsnorm_fwd_row<__half, 8, true, 64>");
  CHECK(d4096.grid[0] == 1000);
  CHECK(d4096.shared_bytes == 4096u * 2);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 4096, 24576).block[0] == 512);  // 3/4 of its block
  CHECK(entry_of({"add_rmsnorm", DType::F16, {}}, 4096, 4104).block[0] == 128);   // 513 chunks
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 512, 16384).entry == "ladder::add_rmsnorm_fwd_row<float, 8, false, 512>");
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 1000, 8192).block[0] == 256);
  // bf16 and fp32 below d = 8192 keep the register kernel.
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 1000, 4096).entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 2, false>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 8184).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 16384, 4096).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 512, 32768).entry ==
        "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, false, 512, true>");
  // Fewer than 512 chunks or more than 4096, d not a whole number of chunks, rows off the grid
  // and explicit ITEMS keep the other schedules.
  for (const auto& [rows, d] : std::vector<std::pair<int, int>>{{65536, 1024}, {16384, 4088}, {512, 32776}, {4096, 4100}})
    CHECK(entry_of({"add_rmsnorm", DType::F16, {}}, rows, d).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"items", "2"}}}, 16384, 4096).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"strided", "odd"}}}, 512, 32768).entry.find("_row<") == std::string::npos);
}

TEST_CASE("schedule=row: rmsnorm and layernorm rows one a block, their weights staged", "[kernels]") {
  ladder::register_builtin_oracles();
  const auto rms = entry_of({"rmsnorm", DType::BF16, {{"schedule", "row"}}}, 16384, 4096);
  CHECK(rms.entry == "ladder::rmsnorm_fwd_row<__nv_bfloat16, 8, 64>");
  CHECK(rms.source.find("block_row.cuh") != std::string::npos);
  CHECK(rms.block[0] == 64);
  CHECK(rms.shared_bytes == 4096u * 2);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "row"}, {"stage_weight", "0"}}}, 16384, 4096).shared_bytes == 0);
  const auto ln = entry_of({"layernorm", DType::F16, {{"schedule", "row"}}}, 16384, 8192);
  CHECK(ln.entry == "ladder::layernorm_fwd_row<__half, 4, 256>");
  CHECK(ln.shared_bytes == 2u * 8192 * 2);  // gamma, then beta
  CHECK(entry_of({"layernorm", DType::F16, {{"schedule", "row"}, {"affine", "0"}}}, 16384, 8192).shared_bytes == 0);
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "row"}, {"row_threads", "512"}}}, 7, 769).entry ==
        "ladder::layernorm_fwd_row<float, 8, 512>");
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "row"}, {"items", "2"}}}, 7, 769));
  // auto: rmsnorm and layernorm rows of 512 to 2048 chunks; rmsnorm's 4096 stay staged below
  // kLoopAutoMinRows rows. (At 1000 rows: from kLoopAutoMinRows auto streams these widths,
  // tests/test_loop_plans.cpp.)
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 1000, 4096).entry == "ladder::rmsnorm_fwd_row<__nv_bfloat16, 8, 64>");
  CHECK(entry_of({"rmsnorm", DType::F16, {}}, 1000, 16384).entry == "ladder::rmsnorm_fwd_row<__half, 8, 256>");
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 1000, 8192).entry == "ladder::rmsnorm_fwd_row<float, 8, 256>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 2048, 32768).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4088).entry.find("_row<") == std::string::npos);
  // LayerNorm's 16-bit rows of up to 1024 chunks at four chunks a thread, wider ones at eight;
  // fp32 and rmsnorm at eight; row_items=8 asks for eight. (Fewer rows than kLoopAutoMinRows
  // where auto would take the streamed row: tests/test_loop_plans.cpp.)
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 1000, 4096).entry == "ladder::layernorm_fwd_row<__nv_bfloat16, 4, 128>");
  CHECK(entry_of({"layernorm", DType::F16, {}}, 1000, 8192).entry == "ladder::layernorm_fwd_row<__half, 4, 256>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 8192, 8200).entry == "ladder::layernorm_fwd_row<__nv_bfloat16, 8, 256>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 2000, 16384).entry == "ladder::layernorm_fwd_row<__nv_bfloat16, 8, 256>");
  CHECK(entry_of({"layernorm", DType::F32, {}}, 1000, 8192).entry == "ladder::layernorm_fwd_row<float, 8, 256>");
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "row"}, {"row_items", "8"}}}, 16384, 4096).entry ==
        "ladder::layernorm_fwd_row<__nv_bfloat16, 8, 64>");
  CHECK(entry_of({"layernorm", DType::F32, {}}, 1000, 4096).entry == "ladder::layernorm_fwd_row<float, 8, 128>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 4096, 32776).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"layernorm", DType::BF16, {{"strided", "odd"}}}, 16384, 4096).entry.find("_row<") == std::string::npos);
}

TEST_CASE("row_grid=resident: the row kernels on a grid of the blocks the SMs hold", "[kernels]") {
  ladder::register_builtin_oracles();
  using V = std::map<std::string, std::string>;
  const V res{{"schedule", "row"}, {"row_grid", "resident"}};
  // layernorm bf16 4096x16384: 256 threads x 8 chunks, two blocks an SM by the launch bound.
  const auto ln = entry_of({"layernorm", DType::BF16, res}, 4096, 16384);
  CHECK(ln.entry == "ladder::layernorm_fwd_row<__nv_bfloat16, 8, 256>");
  CHECK(ln.grid[0] == 2 * 132);
  CHECK(ln.shared_bytes == 2u * 16384 * 2);
  // rmsnorm bf16 16384x4096: 64 threads, eight an SM; fewer rows than that: one block a row.
  CHECK(entry_of({"rmsnorm", DType::BF16, res}, 16384, 4096).grid[0] == 8 * 132);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, res}, 100, 8192).grid[0] == 100);
  // Shared memory limits it: layernorm f16 rows of 8192 at 1024 threads x 4 chunks... its
  // weights (32 KiB) allow six blocks, the launch bound one.
  CHECK(entry_of({"layernorm", DType::F16, V{{"schedule", "row"}, {"row_grid", "resident"}, {"row_items", "4"}, {"row_threads", "1024"}}}, 8192, 8192).grid[0] == 132);
  // Three blocks, for tests; rows: one block a row.
  CHECK(entry_of({"layernorm", DType::BF16, V{{"schedule", "row"}, {"row_grid", "3"}}}, 83, 1024).grid[0] == 3);
  CHECK(entry_of({"layernorm", DType::BF16, V{{"schedule", "row"}, {"row_grid", "rows"}}}, 4096, 16384).grid[0] == 4096);
  // auto: LayerNorm's rows of 2048 chunks or more resident, rows up to 4096 chunks on the row
  // kernel; narrower rows, rmsnorm and add_rmsnorm one block a row.
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 2000, 16384).grid[0] == 2 * 132);
  CHECK(entry_of({"layernorm", DType::F32, {}}, 1000, 8192).grid[0] == 2 * 132);
  const auto f32_wide = entry_of({"layernorm", DType::F32, {}}, 1000, 16384);
  CHECK(f32_wide.entry == "ladder::layernorm_fwd_row<float, 8, 512>");
  CHECK(f32_wide.grid[0] == 132);
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 4096, 16376).grid[0] == 4096);  // 2047 chunks
  CHECK(entry_of({"layernorm", DType::F32, {}}, 4096, 16392).entry.find("_row<") == std::string::npos);
  // (From 2048 rows, auto streams 16-bit rows of 2048 chunks (test_loop_plans.cpp) and copies
  // rows of 4096 chunks whole (test_bulk_plans.cpp) instead.)
  const auto bf16_wide = entry_of({"layernorm", DType::BF16, {}}, 1000, 32768);
  CHECK(bf16_wide.entry == "ladder::layernorm_fwd_row<__nv_bfloat16, 8, 512>");
  CHECK(bf16_wide.grid[0] == 132);
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 2048, 32776).entry.find("_row<") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 4096, 16384).grid[0] == 4096);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 4096, 16384).grid[0] == 4096);
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"row_grid", "resident"}}}, 4096, 16384));
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}, {"row_grid", "resident"}}}, 4096, 16384));
}
