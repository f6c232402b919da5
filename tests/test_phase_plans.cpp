// schedule=phase (kernels/phase_rows.cuh): where auto takes it and at which ITEMS, its block,
// grid and shared memory, and where it steps aside. No GPU needed.
#include <cstdint>
#include <string>

#include "harness/kernels/catalog.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

bool phase(const KernelLaunch& L) { return L.entry.find("_fwd_phase<") != std::string::npos; }

}  // namespace

TEST_CASE("phase schedule: auto takes 16-bit rows off the grid of 769-8193 at the ITEMS measured fastest",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // The table of plan_phase.cpp, one width each side of every step.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 769).entry == "ladder::rmsnorm_fwd_phase<__nv_bfloat16, 4>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1017).entry == "ladder::rmsnorm_fwd_phase<__nv_bfloat16, 4>");
  // warp; 1025 (and the other widths flat_rows.cuh is built for, up to 1281) takes schedule=flat.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1027).entry.find(", 256, false, true>") != std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 1275).entry == "ladder::rmsnorm_fwd_phase<__nv_bfloat16, 4>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 65536, 1025).entry == "ladder::add_rmsnorm_fwd_phase<__nv_bfloat16, 2, false>");
  CHECK(entry_of({"rmsnorm", DType::F16, {}}, 16384, 1537).entry == "ladder::rmsnorm_fwd_phase<__half, 4>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2049).entry == "ladder::rmsnorm_fwd_phase<__nv_bfloat16, 3>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 8192, 8193).entry == "ladder::rmsnorm_fwd_phase<__nv_bfloat16, 4>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 3073).entry ==
        "ladder::add_rmsnorm_fwd_phase<__nv_bfloat16, 2, false>");
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}}}, 8192, 5125).entry ==
        "ladder::add_rmsnorm_fwd_phase<__half, 3, true>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 16384, 1537).entry == "ladder::layernorm_fwd_phase<__nv_bfloat16, 2>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 16384, 2049).entry == "ladder::layernorm_fwd_phase<__nv_bfloat16, 3>");
  CHECK(phase(entry_of({"layernorm", DType::F32, {}}, 16384, 2049)));
  // Odd strides that keep every tensor on one phase (in place: one stride) take it too.
  CHECK(phase(plan_checked({"rmsnorm", DType::BF16, {{"inplace", "y_x"}, {"strided", "odd"}}},
                           {{"rows", 16384}, {"d", 2048}}).front()));
  // Not: below 4096 rows, rows on the grid, widths outside the measured range, fp32 RMSNorm and
  // add_rmsnorm, tensors whose strides put them on different phases, and any other key.
  CHECK(!phase(entry_of({"rmsnorm", DType::BF16, {}}, 4095, 2049)));
  CHECK(phase(entry_of({"rmsnorm", DType::BF16, {}}, 4096, 2049)));
  CHECK(!phase(entry_of({"layernorm", DType::BF16, {}}, 16384, 2048)));
  CHECK(!phase(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 767)));
  CHECK(!phase(entry_of({"rmsnorm", DType::BF16, {}}, 8192, 8201)));
  CHECK(!phase(entry_of({"rmsnorm", DType::F32, {}}, 16384, 2049)));
  CHECK(!phase(entry_of({"add_rmsnorm", DType::F32, {}}, 16384, 2049)));
  CHECK(!phase(entry_of({"layernorm", DType::F32, {}}, 16384, 1023)));
  CHECK(!phase(plan_checked({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, {{"rows", 16384}, {"d", 2048}}).front()));
  CHECK(!phase(plan_checked({"rmsnorm", DType::BF16, {{"items", "3"}}}, {{"rows", 16384}, {"d", 2049}}).front()));
  CHECK(!phase(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, {{"rows", 16384}, {"d", 2049}}).front()));
}

TEST_CASE("phase schedule: one tile at any phase, a grid of whole phases, the weights' shared memory",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // layernorm bf16 2049 at ITEMS 3: 258 chunks at any phase over 96 threads; gamma and beta.
  const auto ln = entry_of({"layernorm", DType::BF16, {}}, 16384, 2049);
  CHECK(ln.block[0] == 96);
  CHECK(ln.block[1] == 1);
  CHECK(ln.shared_bytes == 2u * 3 * 96 * 16);
  CHECK(ln.grid[0] % 8 == 0);
  CHECK(ln.grid[0] <= 16384);
  // One weight (rmsnorm), or none: the slots of one.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2049).shared_bytes == 3u * 96 * 16);
  CHECK(plan_checked({"layernorm", DType::BF16, {{"affine", "beta"}}}, {{"rows", 16384}, {"d", 2049}})
            .front()
            .shared_bytes == 3u * 96 * 16);
  // Few rows: no more blocks than the rows need, still whole phases; fp32 rows of four phases.
  const auto few = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "phase"}}}, {{"rows", 7}, {"d", 2049}}).front();
  CHECK(few.grid[0] == 8);
  CHECK(plan_checked({"rmsnorm", DType::F32, {{"schedule", "phase"}}}, {{"rows", 7}, {"d", 2049}}).front().grid[0] % 4 == 0);
  // Asked for: items=N pins ITEMS; phase_grid=8 pins the grid.
  const auto pinned = plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "phase"}, {"items", "4"}}},
                                   {{"rows", 16384}, {"d", 2049}})
                          .front();
  CHECK(pinned.entry == "ladder::add_rmsnorm_fwd_phase<__nv_bfloat16, 4, false>");
  CHECK(pinned.block[0] == 96);  // ceil(258 / 4) = 65 threads: three warps
  CHECK(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "phase"}, {"phase_grid", "8"}}},
                     {{"rows", 16384}, {"d", 2049}})
            .front()
            .grid[0] == 8);
  // Rows no tile of 1024 threads covers, or whose weights' slots pass a block's shared memory,
  // take the register kernel.
  CHECK(!phase(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "phase"}}}, {{"rows", 2}, {"d", 65536}}).front()));
  CHECK(!phase(plan_checked({"layernorm", DType::F32, {{"schedule", "phase"}}}, {{"rows", 3}, {"d", 32765}}).front()));
  CHECK_THROWS_WITH(plan_checked({"rmsnorm", DType::BF16, {{"phase_grid", "8"}}}, {{"rows", 8}, {"d", 2049}}),
                    has_substr("phase_grid=8 needs schedule=phase"));
}

TEST_CASE("broken_phase_launch: the selftest's phase launches break exactly what the kernels guard",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto launch_of = [](const std::string& op, const std::string& broken,
                      const std::string& schedule = "phase", std::int64_t d = 2049) {
    const KernelRef ref{op, DType::BF16, {{"schedule", schedule}, {"broken_phase_launch", broken}}};
    return ladder::kernels::plan(ref, {{"rows", 300}, {"d", d}}, kEps).front();
  };
  for (const std::string op : {"rmsnorm", "add_rmsnorm", "layernorm"}) {
    INFO(op);
    const auto planned = launch_of(op, "none");
    REQUIRE(phase(planned));
    REQUIRE(planned.grid[0] % 8 == 0);
    // One block more: not a multiple of VEC, so the phases have unequal blocks (the kernel traps).
    const auto off = launch_of(op, "grid_off_vec");
    CHECK(off.entry == planned.entry);
    CHECK(off.grid[0] == planned.grid[0] + 1);
    CHECK(off.grid[0] % 8 != 0);
    CHECK(off.block[0] == planned.block[0]);
    // One warp too narrow: at the worst phase the tile misses the row's end (the kernel traps).
    const auto narrow = launch_of(op, "narrow_tile");
    CHECK(narrow.entry == planned.entry);
    CHECK(narrow.block[0] == planned.block[0] - 32);
    const int items = std::stoi(planned.entry.substr(planned.entry.find(", ") + 2));
    CHECK(std::int64_t{narrow.block[0]} * items * 8 < 2049 + 7);
    CHECK(narrow.grid[0] == planned.grid[0]);
    CHECK(narrow.shared_bytes == planned.shared_bytes);
  }
  // Asked of a launch that does not take the phase kernels, it is a plan error, not a no-op.
  CHECK_THROWS_WITH(launch_of("rmsnorm", "grid_off_vec", "regs"), has_substr("needs schedule=phase"));
  CHECK_THROWS_WITH(launch_of("rmsnorm", "narrow_tile", "phase", 65536), has_substr("needs a shape"));
  CHECK_THROWS_AS(launch_of("rmsnorm", "sideways"), std::invalid_argument);
}
