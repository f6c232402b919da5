// schedule=loop (kernels/layernorm_loop.cuh): its entry, block and grid, the keys that pin them,
// and the keys it refuses. No GPU needed.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/catch.h"
#include "harness/kernels/plan_builder.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

TEST_CASE("schedule=loop: layernorm and rmsnorm a block a row, streamed, at the width and passes asked for",
          "[kernels]") {
  ladder::register_builtin_oracles();
  const auto plain = entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}}}, 4096, 16384);
  // 2048 chunks at four a thread: 512 threads; three passes unless asked.
  CHECK(plain.entry == "ladder::layernorm_fwd_loop<__nv_bfloat16, 512, 3>");
  CHECK(plain.source.find("layernorm_loop.cuh") != std::string::npos);
  CHECK(plain.block[0] == 512);
  CHECK(plain.block[1] == 1);
  CHECK(plain.grid[0] == 4096);
  CHECK(plain.shared_bytes == 0);
  // Four chunks a thread: narrow rows take the 128-thread floor, wide ones the 512-thread ceiling.
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "loop"}}}, 7, 769).block[0] == 128);
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "loop"}}}, 2, 65536).block[0] == 512);
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}}}, 7, 8192).block[0] == 256);
  const auto pinned = entry_of({"layernorm", DType::F16, {{"schedule", "loop"}, {"loop_threads", "128"}, {"loop_passes", "2"}}}, 83, 2049);
  CHECK(pinned.entry == "ladder::layernorm_fwd_loop<__half, 128, 2>");
  CHECK(pinned.grid[0] == 83);
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_grid", "3"}}}, 83, 2049).grid[0] == 3);
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_grid", "3"}}}, 2, 2049).grid[0] == 2);
  // resident: 2048 / THREADS blocks on each of the H200's 132 SMs, never more than the rows.
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_grid", "resident"}, {"loop_threads", "256"}}}, 4096, 16384).grid[0] == 132 * 8);
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_grid", "resident"}, {"loop_threads", "256"}}}, 100, 16384).grid[0] == 100);
  // Strided and odd rows plan the same kernel (it takes its element-wise path on the device).
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"strided", "odd"}}}, 83, 2049).entry ==
        "ladder::layernorm_fwd_loop<__nv_bfloat16, 128, 3>");

  // The loop keys need schedule=loop; unknown values are refused.
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"loop_threads", "256"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "row"}, {"loop_passes", "2"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_threads", "32"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_passes", "1"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_grid", "7"}}}, 7, 769));
  // rmsnorm's and add_rmsnorm's read their rows twice, with no pass count to pin.
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "loop"}, {"loop_passes", "3"}}}, 7, 769));
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "row"}, {"loop_grid", "3"}}}, 7, 769));
  const auto add = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "loop"}}}, 512, 32768);
  CHECK(add.entry == "ladder::add_rmsnorm_fwd_loop<__nv_bfloat16, 512, false>");
  CHECK(add.source.find("add_rmsnorm_loop.cuh") != std::string::npos);
  CHECK(add.grid[0] == 512);
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"schedule", "loop"}, {"convention", "B"}, {"loop_threads", "256"}}}, 7, 769).entry ==
        "ladder::add_rmsnorm_fwd_loop<__half, 256, true>");
  // fp32 has nothing to round: convention B is convention A's instantiation.
  CHECK(entry_of({"add_rmsnorm", DType::F32, {{"schedule", "loop"}, {"convention", "B"}}}, 7, 769).entry ==
        "ladder::add_rmsnorm_fwd_loop<float, 128, false>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 512, 32768).entry.find("_loop<") == std::string::npos);
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"schedule", "loop"}, {"loop_passes", "2"}}}, 7, 769));
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"loop_threads", "256"}}}, 7, 769));
  const auto rms = entry_of({"rmsnorm", DType::BF16, {{"schedule", "loop"}}}, 16384, 4096);
  CHECK(rms.entry == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 128>");
  CHECK(rms.source.find("rmsnorm_loop.cuh") != std::string::npos);
  CHECK(rms.block[0] == 128);
  CHECK(rms.grid[0] == 16384);
  CHECK(entry_of({"rmsnorm", DType::F32, {{"schedule", "loop"}, {"loop_threads", "512"}, {"weight", "gemma"}}}, 7, 769).entry ==
        "ladder::rmsnorm_fwd_loop<float, 512>");
}

TEST_CASE("schedule=loop with loop_hold: the row held in registers, its chunks a thread in the entry",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // The HOLD argument appears only when held; the streamed entries keep their names.
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "4"}}}, 4096, 16384).entry ==
        "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 512, 4>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "0"}}}, 4096, 16384).entry ==
        "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 512>");
  CHECK(entry_of({"layernorm", DType::F16, {{"schedule", "loop"}, {"loop_hold", "8"}, {"loop_threads", "1024"}}}, 3, 32768).entry ==
        "ladder::layernorm_fwd_loop<__half, 1024, 3, 8>");
  const auto narrow = entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "2"}, {"loop_threads", "64"}}}, 65536, 1024);
  CHECK(narrow.entry == "ladder::layernorm_fwd_loop<__nv_bfloat16, 64, 3, 2>");
  CHECK(narrow.block[0] == 64);
  CHECK(narrow.grid[0] == 65536);
  // Held rows take LayerNorm's exact statistics: two passes are refused, three are the default.
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "4"}, {"loop_passes", "3"}}}, 7, 8192).entry ==
        "ladder::layernorm_fwd_loop<__nv_bfloat16, 256, 3, 4>");
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "4"}, {"loop_passes", "2"}}}, 7, 8192));
  // add_rmsnorm normalizes the unrounded sum, which a packed row would not keep.
  CHECK_THROWS(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "4"}}}, 7, 8192));
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"loop_hold", "4"}}}, 7, 8192));
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"schedule", "loop"}, {"loop_hold", "3"}}}, 7, 8192));
}

TEST_CASE("schedule=auto takes a streamed kernel where the H200 measured it faster", "[kernels]") {
  ladder::register_builtin_oracles();
  auto auto_entry = [](DType dt, std::int64_t rows, std::int64_t d) {
    return entry_of({"layernorm", dt, {}}, rows, d).entry;
  };
  // The table in plan_loop.cpp. LayerNorm: 16-bit rows of 512 to 2048 chunks, fp32 of 1024 to
  // 4096.
  CHECK(auto_entry(DType::BF16, 16384, 4096) == "ladder::layernorm_fwd_loop<__nv_bfloat16, 128, 3>");
  CHECK(auto_entry(DType::BF16, 8192, 8192) == "ladder::layernorm_fwd_loop<__nv_bfloat16, 256, 3>");
  CHECK(auto_entry(DType::BF16, 4096, 16384) == "ladder::layernorm_fwd_loop<__nv_bfloat16, 512, 3>");
  CHECK(auto_entry(DType::F16, 4096, 16384) == "ladder::layernorm_fwd_loop<__half, 512, 3>");
  CHECK(auto_entry(DType::F32, 16384, 4096) == "ladder::layernorm_fwd_loop<float, 256, 3>");
  CHECK(auto_entry(DType::F32, 8192, 8192) == "ladder::layernorm_fwd_loop<float, 512, 3>");
  CHECK(auto_entry(DType::F32, 4096, 16384) == "ladder::layernorm_fwd_loop<float, 512, 2>");
  // 16-bit rows of 128 chunks: held (loop_hold), two chunks a thread of 64 (call 260); fp32
  // keeps the register kernel, and fewer rows than measured do too.
  CHECK(auto_entry(DType::BF16, 65536, 1024) == "ladder::layernorm_fwd_loop<__nv_bfloat16, 64, 3, 2>");
  CHECK(auto_entry(DType::F16, 2048, 1024) == "ladder::layernorm_fwd_loop<__half, 64, 3, 2>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 65536, 1024).block[0] == 64);
  CHECK(auto_entry(DType::F32, 65536, 1024).find("_loop<") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 2047, 1024).find("_loop<") == std::string::npos);
  const auto L = entry_of({"layernorm", DType::BF16, {}}, 16384, 4096);
  CHECK(L.grid[0] == 16384);
  CHECK(L.block[0] == 128);
  // Not taken: fewer rows than measured, other widths, rows off the grid,
  // and where a schedule or a geometry is asked for.
  CHECK(ladder::kernels::detail::kLoopAutoMinRows == 2048);
  CHECK(auto_entry(DType::BF16, 2047, 4096).find("_loop<") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 2048, 4096).find("_loop<") != std::string::npos);
  CHECK(auto_entry(DType::BF16, 2048, 32768).find("_loop<") == std::string::npos);
  CHECK(auto_entry(DType::BF16, 16384, 4088).find("_loop<") == std::string::npos);
  CHECK(auto_entry(DType::F32, 2048, 32768).find("_loop<") == std::string::npos);
  CHECK(auto_entry(DType::F32, 16384, 2048).find("_loop<") == std::string::npos);
  CHECK(auto_entry(DType::F16, 16384, 4096) == "ladder::layernorm_fwd_loop<__half, 128, 3>");
  CHECK(auto_entry(DType::F16, 8192, 8192) == "ladder::layernorm_fwd_loop<__half, 256, 3>");
  CHECK(entry_of({"layernorm", DType::BF16, {{"strided", "odd"}}}, 16384, 4096).entry.find("_loop<") == std::string::npos);
  // Rows padded by whole chunks stay on the grid: taken.
  CHECK(entry_of({"layernorm", DType::BF16, {{"strided", "1"}}}, 16384, 4096).entry.find("_loop<") != std::string::npos);
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "row"}}}, 16384, 4096).entry.find("_row<") != std::string::npos);
  CHECK(entry_of({"layernorm", DType::BF16, {{"items", "2"}}}, 16384, 4096).entry.find("_loop<") == std::string::npos);
  // In place and without affine parameters it stays the same kernel.
  CHECK(entry_of({"layernorm", DType::BF16, {{"inplace", "y_x"}, {"affine", "0"}}}, 16384, 4096).entry ==
        "ladder::layernorm_fwd_loop<__nv_bfloat16, 128, 3>");
}

TEST_CASE("schedule=auto streams RMSNorm and add_rmsnorm rows where the H200 measured it faster",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto auto_entry = [](const char* op, DType dt, std::int64_t rows, std::int64_t d,
                       std::map<std::string, std::string> variant = {}) {
    return entry_of({op, dt, variant}, rows, d).entry;
  };
  // RMSNorm: 16-bit rows of 512 to 4096 chunks (the two widest at 512 threads), fp32 of 1024
  // and 2048.
  CHECK(auto_entry("rmsnorm", DType::BF16, 16384, 4096) == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 128>");
  CHECK(auto_entry("rmsnorm", DType::BF16, 8192, 8192) == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 256>");
  CHECK(auto_entry("rmsnorm", DType::BF16, 4096, 16384) == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 512>");
  CHECK(auto_entry("rmsnorm", DType::BF16, 2048, 32768) == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 512>");
  CHECK(auto_entry("rmsnorm", DType::F16, 4096, 16384) == "ladder::rmsnorm_fwd_loop<__half, 512>");
  CHECK(auto_entry("rmsnorm", DType::F16, 16384, 4096) == "ladder::rmsnorm_fwd_loop<__half, 128>");
  CHECK(auto_entry("rmsnorm", DType::F16, 2048, 32768) == "ladder::rmsnorm_fwd_loop<__half, 512>");
  CHECK(auto_entry("rmsnorm", DType::F32, 16384, 4096) == "ladder::rmsnorm_fwd_loop<float, 256>");
  CHECK(auto_entry("rmsnorm", DType::F32, 8192, 8192) == "ladder::rmsnorm_fwd_loop<float, 512>");
  const auto rms = entry_of({"rmsnorm", DType::BF16, {{"weight", "gemma"}, {"write_rstd", "0"}}}, 2048, 32768);
  CHECK(rms.entry == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 512>");
  CHECK(rms.grid[0] == 2048);
  CHECK(rms.shared_bytes == 0);
  // 16-bit rows of 128 chunks: held (loop_hold), two chunks a thread of 64 (call 238).
  CHECK(auto_entry("rmsnorm", DType::BF16, 65536, 1024) == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 64, 2>");
  CHECK(auto_entry("rmsnorm", DType::F16, 2048, 1024) == "ladder::rmsnorm_fwd_loop<__half, 64, 2>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 65536, 1024).block[0] == 64);
  // A pinned width keeps the rows streamed unless loop_hold asks.
  CHECK(auto_entry("rmsnorm", DType::BF16, 65536, 1024, {{"schedule", "loop"}, {"loop_threads", "64"}}) ==
        "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 64>");
  // Tied or lost: fp32 from 16384 wide; fp32 1024 wide (call 132).
  for (const auto& [dt, rows, d] : std::vector<std::tuple<DType, int, int>>{
           {DType::F32, 4096, 16384}, {DType::F32, 2048, 32768}, {DType::F32, 65536, 1024},
           {DType::BF16, 2047, 1024}, {DType::BF16, 2047, 4096}, {DType::BF16, 16384, 4088}})
    CHECK(auto_entry("rmsnorm", dt, rows, d).find("_loop<") == std::string::npos);
  // add_rmsnorm: 16-bit rows of 512 to 2048 chunks, 256 threads for 512 (measured faster than
  // 128); fp32 rows of 1024, 2048 and 8192 chunks (the widest at 512 threads); both conventions
  // and every in-place form.
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 16384, 4096) == "ladder::add_rmsnorm_fwd_loop<__nv_bfloat16, 256, false>");
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 8192, 8192) == "ladder::add_rmsnorm_fwd_loop<__nv_bfloat16, 256, false>");
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 4096, 16384) == "ladder::add_rmsnorm_fwd_loop<__nv_bfloat16, 512, false>");
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 4096, 16384, {{"convention", "B"}, {"inplace", "both"}}) ==
        "ladder::add_rmsnorm_fwd_loop<__nv_bfloat16, 512, true>");
  CHECK(auto_entry("add_rmsnorm", DType::F16, 16384, 4096) == "ladder::add_rmsnorm_fwd_loop<__half, 256, false>");
  CHECK(auto_entry("add_rmsnorm", DType::F16, 4096, 16384) == "ladder::add_rmsnorm_fwd_loop<__half, 512, false>");
  CHECK(auto_entry("add_rmsnorm", DType::F32, 16384, 4096) == "ladder::add_rmsnorm_fwd_loop<float, 256, false>");
  CHECK(auto_entry("add_rmsnorm", DType::F32, 8192, 8192) == "ladder::add_rmsnorm_fwd_loop<float, 512, false>");
  CHECK(auto_entry("add_rmsnorm", DType::F32, 2048, 32768) == "ladder::add_rmsnorm_fwd_loop<float, 512, false>");
  CHECK(auto_entry("add_rmsnorm", DType::F32, 4096, 16384).find("_loop<") == std::string::npos);
  CHECK(auto_entry("add_rmsnorm", DType::F16, 2048, 32768).find("_loop<") == std::string::npos);
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 2048, 32768).find("_loop<") == std::string::npos);
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 512, 32768).find("_loop<") == std::string::npos);
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 1000, 8192).find("_loop<") == std::string::npos);
  // An explicit schedule=auto streams too; any key that shapes the schedule keeps auto's other
  // kernels, and an explicit schedule wins.
  CHECK(auto_entry("rmsnorm", DType::BF16, 16384, 4096, {{"schedule", "auto"}}) == "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 128>");
  CHECK(auto_entry("rmsnorm", DType::BF16, 16384, 4096, {{"stage_weight", "0"}}).find("_loop<") == std::string::npos);
  CHECK(auto_entry("add_rmsnorm", DType::BF16, 8192, 8192, {{"items", "2"}}).find("_loop<") == std::string::npos);
  CHECK(auto_entry("rmsnorm", DType::BF16, 2048, 32768, {{"schedule", "staged"}}).find("_staged<") != std::string::npos);
  CHECK(auto_entry("rmsnorm", DType::BF16, 16384, 4096, {{"strided", "odd"}}).find("_loop<") == std::string::npos);
  // The loop keys still need an explicit schedule=loop.
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"loop_threads", "256"}}}, 16384, 4096));
}

TEST_CASE("affine=gamma|beta: a LayerNorm with one weight passes it and a null pointer for the other",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto has_buffer = [](const ladder::KernelLaunch& L, const char* name) { return find_buffer(L, name) != nullptr; };
  for (const char* schedule : {"auto", "loop", "row", "bulk", "packed", "wide"}) {
    CAPTURE(schedule);
    const auto g = entry_of({"layernorm", DType::BF16, {{"schedule", schedule}, {"affine", "gamma"}}}, 2048, 32768);
    CHECK(has_buffer(g, "gamma"));
    CHECK_FALSE(has_buffer(g, "beta"));
    CHECK(g.args[2].is_buffer);
    CHECK(g.args[2].buffer == "gamma");
    CHECK_FALSE(g.args[3].is_buffer);
    const auto b = entry_of({"layernorm", DType::BF16, {{"schedule", schedule}, {"affine", "beta"}}}, 2048, 32768);
    CHECK_FALSE(has_buffer(b, "gamma"));
    CHECK(has_buffer(b, "beta"));
    CHECK_FALSE(b.args[2].is_buffer);
    CHECK(b.args[3].buffer == "beta");
  }
  // One weight stays schedule-neutral: auto's streamed and bulk kernels still take the rows.
  CHECK(entry_of({"layernorm", DType::BF16, {{"affine", "gamma"}}}, 4096, 16384).entry ==
        "ladder::layernorm_fwd_loop<__nv_bfloat16, 512, 3>");
  // The row kernel stages weights only when it has both.
  CHECK(entry_of({"layernorm", DType::BF16, {{"schedule", "row"}, {"affine", "beta"}}}, 2000, 16384).shared_bytes == 0);
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"affine", "delta"}}}, 16, 64));
}
