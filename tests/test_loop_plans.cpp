// schedule=loop (kernels/layernorm_loop.cuh): its entry, block and grid, the keys that pin them,
// and the keys it refuses. No GPU needed.
#include <string>

#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

TEST_CASE("schedule=loop: layernorm a block a row, streamed, at the width and passes asked for",
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
  // Narrow rows take the 256-thread floor, wide ones the 1024-thread ceiling.
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "loop"}}}, 7, 769).block[0] == 256);
  CHECK(entry_of({"layernorm", DType::F32, {{"schedule", "loop"}}}, 2, 65536).block[0] == 1024);
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
        "ladder::layernorm_fwd_loop<__nv_bfloat16, 256, 3>");

  // The loop keys need schedule=loop; unknown values are refused.
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"loop_threads", "256"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "row"}, {"loop_passes", "2"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_threads", "64"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_passes", "1"}}}, 7, 769));
  CHECK_THROWS(entry_of({"layernorm", DType::BF16, {{"schedule", "loop"}, {"loop_grid", "7"}}}, 7, 769));
  // rmsnorm has no loop schedule.
  CHECK_THROWS(entry_of({"rmsnorm", DType::BF16, {{"schedule", "loop"}}}, 7, 769));
  // auto does not take it (it has not measured faster anywhere yet).
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 4096, 16384).entry.find("_loop<") == std::string::npos);
}
