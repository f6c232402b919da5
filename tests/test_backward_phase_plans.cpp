// The backward's schedule=phase (kernels/backward_phase.cuh): where auto takes it and at which
// ITEMS, its block, grid, shared memory and weight-gradient partials, the keys that pin them, and
// the broken launches the selftest makes of it. No GPU needed.
#include <cstdint>
#include <string>

#include "harness/kernels/catalog.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

bool phase(const KernelLaunch& L) { return L.entry.find("_bwd_phase<") != std::string::npos; }

KernelLaunch first_of(const std::string& op, DType dt, std::map<std::string, std::string> variant,
                      std::int64_t rows, std::int64_t d) {
  return plan_checked({op, dt, std::move(variant)}, {{"rows", rows}, {"d", d}}).front();
}

}  // namespace

TEST_CASE("backward phase schedule: auto takes 16-bit rows off the grid at the widths measured faster",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // The table of plan_backward_phase.cpp, one width each side of every span.
  CHECK(entry_of({"add_rmsnorm_bwd", DType::BF16, {}}, 8192, 2049).entry ==
        "ladder::add_rmsnorm_bwd_phase<__nv_bfloat16, 1, true>");
  CHECK(entry_of({"add_rmsnorm_bwd", DType::F16, {}}, 16384, 1025).entry ==
        "ladder::add_rmsnorm_bwd_phase<__half, 1, true>");
  struct Span {
    std::int64_t first, last;
    int items;
  };
  auto check_spans = [](const std::string& op, std::initializer_list<Span> spans) {
    for (const Span& span : spans) {
      INFO(op << " " << span.first << ".." << span.last);
      const std::string items = std::to_string(span.items);
      for (std::int64_t d : {span.first, span.last}) {
        const auto L = entry_of({op, DType::BF16, {}}, 8192, d);
        CHECK(L.entry.find(op + "_phase<__nv_bfloat16, " + items + ", ") != std::string::npos);
      }
      CHECK(!phase(entry_of({op, DType::BF16, {}}, 8192, span.first - 1)));
      CHECK(!phase(entry_of({op, DType::BF16, {}}, 8192, span.last + 1)));
    }
  };
  check_spans("add_rmsnorm_bwd", {{762, 3321, 1}, {3578, 3833, 1}});
  check_spans("rmsnorm_bwd", {{1530, 1785, 2}, {2554, 2809, 2}, {3066, 3321, 2}, {3578, 3833, 2}});
  check_spans("layernorm_bwd", {{1018, 1273, 1}, {1530, 1785, 1}, {2554, 2809, 2}, {3066, 3321, 2}, {3578, 3833, 2}});
  CHECK(entry_of({"layernorm_bwd", DType::BF16, {}}, 16384, 1025).entry ==
        "ladder::layernorm_bwd_phase<__nv_bfloat16, 1, false, true>");
  CHECK(entry_of({"layernorm_bwd", DType::BF16, {}}, 8192, 3073).entry ==
        "ladder::layernorm_bwd_phase<__nv_bfloat16, 2, false, true>");
  CHECK(first_of("layernorm_bwd", DType::BF16, {{"stats", "recompute"}}, 8192, 3073).entry ==
        "ladder::layernorm_bwd_phase<__nv_bfloat16, 2, true, true>");
  CHECK(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 8192, 3073).entry ==
        "ladder::rmsnorm_bwd_phase<__nv_bfloat16, 2, true>");
  // The register kernel keeps 2049 and 5125 for rmsnorm_bwd and layernorm_bwd.
  CHECK(!phase(entry_of({"layernorm_bwd", DType::BF16, {}}, 8192, 2049)));
  CHECK(!phase(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 8192, 2049)));
  CHECK(!phase(entry_of({"rmsnorm_bwd", DType::BF16, {}}, 4096, 5125)));
  CHECK(!phase(entry_of({"add_rmsnorm_bwd", DType::BF16, {}}, 4096, 5125)));
  // Not: fewer than 4096 rows, rows on the grid, fp32, strides on different phases, and where
  // shift, items or another schedule is asked for.
  CHECK(!phase(entry_of({"add_rmsnorm_bwd", DType::BF16, {}}, 4095, 2049)));
  CHECK(phase(entry_of({"add_rmsnorm_bwd", DType::BF16, {}}, 4096, 2049)));
  CHECK(!phase(entry_of({"add_rmsnorm_bwd", DType::BF16, {}}, 8192, 2048)));
  CHECK(!phase(entry_of({"add_rmsnorm_bwd", DType::F32, {}}, 8192, 2049)));
  CHECK(!phase(first_of("add_rmsnorm_bwd", DType::BF16, {{"strided", "odd"}}, 8192, 2048)));
  CHECK(!phase(first_of("add_rmsnorm_bwd", DType::BF16, {{"shift", "1"}}, 8192, 2049)));
  CHECK(!phase(first_of("add_rmsnorm_bwd", DType::BF16, {{"items", "1"}}, 8192, 2049)));
  CHECK(!phase(first_of("add_rmsnorm_bwd", DType::BF16, {{"schedule", "regs"}}, 8192, 2049)));
  CHECK(!phase(first_of("add_rmsnorm_bwd", DType::BF16, {{"broken_launch", "short_shared"}}, 8192, 2049)));
}

TEST_CASE("backward phase schedule: one tile at any phase, whole phases, the sums' and the weight's slots, one partial row a block",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // rmsnorm_bwd bf16 3073 at ITEMS 2: 385 chunks at any phase over 224 threads; dw's sums
  // (16 values a thread, 4 bytes each) then w's slots (2 chunks a thread).
  const auto launches = plan_checked({"rmsnorm_bwd", DType::BF16, {}}, {{"rows", 8192}, {"d", 3073}});
  const auto& L = launches.front();
  CHECK(L.source.find("backward_phase.cuh") != std::string::npos);
  CHECK(L.block[0] == 224);
  CHECK(L.block[1] == 1);
  CHECK(L.shared_bytes == 224u * (16 * 4 + 2 * 16));
  CHECK(L.grid[0] % 8 == 0);
  // 64 registers a thread: four blocks of 224 an SM.
  CHECK(L.grid[0] == 4 * 132);
  // The partial rows: one a block, all of them added by column_sum.
  const ConcreteBuffer* partial = find_buffer(L, "dw_partial");
  REQUIRE(partial != nullptr);
  CHECK(partial->rows == L.grid[0]);
  REQUIRE(launches.size() == 2);
  CHECK(launches[1].entry == "ladder::column_sum<__nv_bfloat16>");
  // No weight: no slots. LayerNorm: dgamma's and dbeta's sums, then gamma's slots.
  CHECK(first_of("rmsnorm_bwd", DType::BF16, {{"weight", "none"}, {"schedule", "phase"}}, 8192, 3073).shared_bytes == 0);
  CHECK(first_of("layernorm_bwd", DType::BF16, {}, 8192, 3073).shared_bytes == 224u * (2 * 16 * 4 + 2 * 16));
  CHECK(first_of("layernorm_bwd", DType::BF16, {{"affine", "0"}, {"schedule", "phase"}}, 8192, 3073).shared_bytes == 0);
  CHECK(first_of("add_rmsnorm_bwd", DType::BF16, {}, 8192, 2049).shared_bytes == 288u * (8 * 4 + 16));
  // Few rows: no more blocks than the rows need, still whole phases (fp32: four).
  CHECK(first_of("rmsnorm_bwd", DType::BF16, {{"schedule", "phase"}}, 7, 2049).grid[0] == 8);
  CHECK(first_of("layernorm_bwd", DType::F32, {{"schedule", "phase"}}, 7, 2049).grid[0] % 4 == 0);
  // Asked for: the most ITEMS the op holds unless phase_items (or items) pins it; phase_grid=8
  // pins the grid, phase_blocks_per_sm the blocks an SM (132 SMs, whole phases).
  CHECK(first_of("rmsnorm_bwd", DType::BF16, {{"schedule", "phase"}}, 8192, 2049).entry ==
        "ladder::rmsnorm_bwd_phase<__nv_bfloat16, 2, true>");
  CHECK(first_of("rmsnorm_bwd", DType::BF16, {{"schedule", "phase"}, {"phase_items", "1"}}, 8192, 2049).entry ==
        "ladder::rmsnorm_bwd_phase<__nv_bfloat16, 1, true>");
  CHECK(first_of("layernorm_bwd", DType::BF16, {{"schedule", "phase"}, {"items", "1"}}, 8192, 2049).entry ==
        "ladder::layernorm_bwd_phase<__nv_bfloat16, 1, false, true>");
  CHECK(first_of("rmsnorm_bwd", DType::BF16, {{"schedule", "phase"}, {"phase_grid", "8"}}, 8192, 2049).grid[0] == 8);
  CHECK(first_of("rmsnorm_bwd", DType::BF16, {{"schedule", "phase"}, {"phase_blocks_per_sm", "3"}}, 8192, 2049)
            .grid[0] == 3 * 132 / 8 * 8);
  // Rows no tile of 1024 threads covers take the register kernel, as the forward's do.
  CHECK(!phase(first_of("rmsnorm_bwd", DType::BF16, {{"schedule", "phase"}}, 2, 65536)));
}

TEST_CASE("phase_prefetch: a row ahead asked of the L2, in the entry's PREFETCH", "[kernels]") {
  ladder::register_builtin_oracles();
  auto entry_with = [](const std::string& op, DType dt, const std::string& prefetch,
                       std::map<std::string, std::string> more = {}) {
    more["schedule"] = "phase";
    if (!prefetch.empty()) more["phase_prefetch"] = prefetch;
    return first_of(op, dt, std::move(more), 8192, 2049).entry;
  };
  // The backward: the next row asked for unless pinned; 0 leaves the default out of the entry,
  // and LayerNorm names RECOMPUTE before PREFETCH.
  CHECK(entry_with("rmsnorm_bwd", DType::BF16, "") == "ladder::rmsnorm_bwd_phase<__nv_bfloat16, 2, true>");
  CHECK(entry_with("rmsnorm_bwd", DType::BF16, "0") == "ladder::rmsnorm_bwd_phase<__nv_bfloat16, 2>");
  CHECK(entry_with("add_rmsnorm_bwd", DType::F16, "1") == "ladder::add_rmsnorm_bwd_phase<__half, 1, true>");
  CHECK(entry_with("layernorm_bwd", DType::BF16, "0") == "ladder::layernorm_bwd_phase<__nv_bfloat16, 2>");
  CHECK(entry_with("layernorm_bwd", DType::BF16, "0", {{"stats", "recompute"}}) ==
        "ladder::layernorm_bwd_phase<__nv_bfloat16, 2, true>");
  CHECK(entry_with("layernorm_bwd", DType::BF16, "1", {{"stats", "recompute"}}) ==
        "ladder::layernorm_bwd_phase<__nv_bfloat16, 2, true, true>");
  // The forward: fp32 LayerNorm asks for a row ahead by default, the rest do not. Their entries
  // differ from the others only in a last ", true".
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  const std::string ln_f32_none = entry_with("layernorm", DType::F32, "0");
  CHECK(ln_f32_none.find("ladder::layernorm_fwd_phase<float, ") == 0);
  CHECK(entry_with("layernorm", DType::F32, "") == ln_f32_none.substr(0, ln_f32_none.size() - 1) + ", true>");
  CHECK(entry_with("layernorm", DType::BF16, "") == entry_with("layernorm", DType::BF16, "0"));
  const std::string rms_none = entry_with("rmsnorm", DType::BF16, "0");
  CHECK(entry_with("rmsnorm", DType::BF16, "") == rms_none);
  CHECK(entry_with("rmsnorm", DType::BF16, "1") == rms_none.substr(0, rms_none.size() - 1) + ", true>");
  CHECK(ends_with(entry_with("add_rmsnorm", DType::BF16, "1", {{"convention", "B"}}), ", true, true>"));
  CHECK(ends_with(entry_with("add_rmsnorm", DType::BF16, ""), ", false>"));
  // Asked of another schedule, or out of range: plan errors.
  auto plan_of = [](const std::string& op, std::map<std::string, std::string> variant) {
    return ladder::kernels::plan({op, DType::BF16, std::move(variant)}, {{"rows", 300}, {"d", 2049}}, kEps);
  };
  CHECK_THROWS_WITH(plan_of("rmsnorm_bwd", {{"phase_prefetch", "1"}}), has_substr("phase_prefetch=1 needs schedule=phase"));
  CHECK_THROWS_WITH(plan_of("layernorm", {{"schedule", "regs"}, {"phase_prefetch", "1"}}),
                    has_substr("phase_prefetch=1 needs schedule=phase"));
  CHECK_THROWS_WITH(plan_of("add_rmsnorm_bwd", {{"schedule", "phase"}, {"phase_prefetch", "2"}}),
                    has_substr("phase_prefetch"));
}

TEST_CASE("backward phase schedule: bad keys are plan errors that name the key", "[kernels]") {
  ladder::register_builtin_oracles();
  auto plan_of = [](const std::string& op, std::map<std::string, std::string> variant,
                    std::int64_t d = 2049) {
    return ladder::kernels::plan({op, DType::BF16, std::move(variant)}, {{"rows", 300}, {"d", d}}, kEps);
  };
  CHECK_THROWS_WITH(plan_of("rmsnorm_bwd", {{"phase_grid", "8"}}), has_substr("phase_grid=8 needs schedule=phase"));
  CHECK_THROWS_WITH(plan_of("layernorm_bwd", {{"phase_items", "2"}}), has_substr("needs schedule=phase"));
  CHECK_THROWS_WITH(plan_of("add_rmsnorm_bwd", {{"schedule", "phase"}, {"phase_items", "2"}}),
                    has_substr("at most 1 chunks a thread"));
  CHECK_THROWS_WITH(plan_of("rmsnorm_bwd", {{"schedule", "phase"}, {"shift", "1"}}), has_substr("drop shift"));
  CHECK_THROWS_WITH(plan_of("add_rmsnorm_bwd", {{"schedule", "phase"}, {"broken_launch", "short_shared"}}),
                    has_substr("drop shift, broken_launch and partial_rows"));
  CHECK_THROWS_AS(plan_of("rmsnorm_bwd", {{"schedule", "phase"}, {"phase_items", "3"}}), std::invalid_argument);
  CHECK_THROWS_WITH(plan_of("rmsnorm_bwd", {{"phase_blocks_per_sm", "2"}}), has_substr("needs schedule=phase"));
}

TEST_CASE("broken_phase_launch: the backward's broken phase launches break exactly what the kernels guard",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto launch_of = [](const std::string& op, const std::string& broken, std::int64_t d = 2049) {
    const KernelRef ref{op, DType::BF16, {{"schedule", "phase"}, {"broken_phase_launch", broken}}};
    return ladder::kernels::plan(ref, {{"rows", 300}, {"d", d}}, kEps).front();
  };
  for (const std::string op : {"rmsnorm_bwd", "add_rmsnorm_bwd", "layernorm_bwd"}) {
    INFO(op);
    const auto planned = launch_of(op, "none");
    REQUIRE(phase(planned));
    const auto off = launch_of(op, "grid_off_vec");
    CHECK(off.entry == planned.entry);
    CHECK(off.grid[0] == planned.grid[0] + 1);
    CHECK(off.grid[0] % 8 != 0);
    const auto narrow = launch_of(op, "narrow_tile");
    CHECK(narrow.block[0] == planned.block[0] - 32);
    const int items = std::stoi(planned.entry.substr(planned.entry.find(", ") + 2));
    CHECK(std::int64_t{narrow.block[0]} * items * 8 < 2049 + 7);
    const auto short_weight = launch_of(op, "short_weight");
    CHECK(short_weight.shared_bytes + 16 == planned.shared_bytes);
    CHECK(short_weight.grid[0] == planned.grid[0]);
  }
  CHECK_THROWS_WITH(launch_of("rmsnorm_bwd", "narrow_tile", 65536), has_substr("needs a row schedule=phase takes"));
  CHECK_THROWS_WITH(ladder::kernels::plan({"rmsnorm_bwd", DType::BF16,
                                           {{"schedule", "phase"}, {"weight", "none"}, {"broken_phase_launch", "short_weight"}}},
                                          {{"rows", 300}, {"d", 2049}}, kEps),
                    has_substr("short_weight needs a weight"));
}
