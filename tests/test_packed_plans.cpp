// The packed-span schedule (kernels/packed_norm.cuh): where auto takes it, its block, spans and
// shared memory, and the variant keys that pin them. No GPU needed.
#include <cstdint>
#include <string>

#include "harness/kernels/catalog.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

// The span_rows argument: the last one of a packed launch.
std::int64_t span_rows_of(const KernelLaunch& L) {
  REQUIRE(!L.args.empty());
  return static_cast<std::int64_t>(L.args.back().value);
}

bool packed(const KernelLaunch& L) { return L.entry.find("_packed<") != std::string::npos; }

}  // namespace

TEST_CASE("packed schedule: auto takes it only where it measured faster", "[kernels]") {
  ladder::register_builtin_oracles();
  // 16-bit add_rmsnorm rows off the 16-byte grid up to d = 1024, and fp32 layernorm ones up to
  // 4096 (with the weight alone: SHIFTED_WEIGHT false), where schedule=phase does not take them
  // first (16-bit rows from 769, fp32 LayerNorm rows from 1025: plan_phase.cpp).
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 8192, 767).entry ==
        "ladder::add_rmsnorm_fwd_packed<__nv_bfloat16, false>");
  CHECK(entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}}}, 16384, 767).entry ==
        "ladder::add_rmsnorm_fwd_packed<__half, true>");
  CHECK(entry_of({"layernorm", DType::F32, {}}, 16384, 1023).entry ==
        "ladder::layernorm_fwd_packed<float, false>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 8192, 769).entry.find("_phase<") != std::string::npos);
  CHECK(entry_of({"layernorm", DType::F32, {}}, 16384, 2049).entry.find("_phase<") != std::string::npos);
  // Not where it tied or lost: add_rmsnorm rows wider than 1024 (2049: the OFF_GRID register
  // kernel), rmsnorm, 16-bit layernorm, fp32 rmsnorm and add_rmsnorm (staged), rows on the grid.
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 2048, 2049).entry ==
        "ladder::add_rmsnorm_fwd<__nv_bfloat16, 3, false, 1024, false, true>");
  CHECK(!packed(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 1025)));
  CHECK(packed(entry_of({"add_rmsnorm", DType::BF16, {}}, 16384, 767)));
  CHECK(!packed(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 2049)));
  CHECK(!packed(entry_of({"rmsnorm", DType::F16, {}}, 16384, 769)));
  CHECK(!packed(entry_of({"layernorm", DType::BF16, {}}, 16384, 2049)));
  CHECK(!packed(entry_of({"rmsnorm", DType::F32, {}}, 16384, 2049)));
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 16384, 2049).entry.find("_staged<") != std::string::npos);
  CHECK(!packed(entry_of({"layernorm", DType::F32, {}}, 4096, 5125)));
  CHECK(packed(entry_of({"layernorm", DType::F32, {}}, 4096, 1023)));
  CHECK(!packed(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4096)));
  // Rows: from 4096.
  CHECK(!packed(entry_of({"add_rmsnorm", DType::BF16, {}}, 4095, 767)));
  CHECK(packed(entry_of({"add_rmsnorm", DType::BF16, {}}, 4096, 767)));
  CHECK(packed(entry_of({"layernorm", DType::F32, {}}, 4096, 769)));
  CHECK(!packed(entry_of({"layernorm", DType::F32, {}}, 4095, 769)));
  // Strided rows are not one run of memory; schedule=regs and items= keep the register kernel.
  const Case c{{"rows", 16384}, {"d", 769}};
  CHECK(!packed(plan_checked({"add_rmsnorm", DType::BF16, {{"strided", "1"}}}, c).front()));
  CHECK(!packed(plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "regs"}}}, c).front()));
  CHECK(!packed(plan_checked({"add_rmsnorm", DType::BF16, {{"items", "2"}}}, c).front()));
}

TEST_CASE("packed schedule: spans on the 16-byte grid, whole-warp blocks, memory that fits",
          "[kernels]") {
  ladder::register_builtin_oracles();
  for (const DeviceLimits& device : {DeviceLimits::h200(), DeviceLimits::a100()}) {
    for (const char* op : {"rmsnorm", "add_rmsnorm", "layernorm"}) {
      for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
        for (std::int64_t d : {8, 33, 769, 2049, 3000}) {
          const Case c{{"rows", 1000}, {"d", d}};
          // Shifted weight copies take VEC times the weight's memory: on an A100 an fp32
          // add_rmsnorm span of 2049 no longer fits beside them; the weight alone fits everywhere.
          const bool a100 = device.sm_count == DeviceLimits::a100().sm_count;
          const auto L = plan_checked({op, dt, {{"schedule", "packed"}, {"weight_copies", a100 ? "one" : "shifted"}}},
                                      c, device).front();
          INFO(op << " " << ladder::label(dt) << " d=" << d << " " << L.entry);
          REQUIRE(packed(L));
          const std::int64_t span = span_rows_of(L);
          CHECK(span * d * static_cast<std::int64_t>(ladder::size_of(dt)) % 16 == 0);
          CHECK(L.block[0] % 32 == 0);
          CHECK(L.block[1] == 1);
          // At least the two stages of every staged input.
          const std::int64_t inputs = std::string(op) == "add_rmsnorm" ? 2 : 1;
          CHECK(std::int64_t{L.shared_bytes} >= 2 * inputs * span * d * static_cast<std::int64_t>(ladder::size_of(dt)));
          CHECK(std::int64_t{L.shared_bytes} + 1024 <= device.shared_per_block_optin);
          CHECK(L.grid[0] <= static_cast<std::uint32_t>(32 * device.sm_count));
        }
      }
    }
  }
  // The grid is about the resident blocks: 512-thread blocks of 104 KiB, two an SM by registers
  // (64 a thread) and by shared memory; 1024-thread blocks one an SM by registers, where the
  // threads alone would allow two.
  CHECK(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "packed"}}}, {{"rows", 16384}, {"d", 2049}})
            .front()
            .grid[0] == 2u * 132);
  const auto wide_block = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "packed"}, {"packed_threads", "1024"}}},
                                       {{"rows", 100000}, {"d", 769}}).front();
  CHECK(wide_block.block[0] == 1024);
  CHECK(wide_block.grid[0] == 132);
  // The weight alone takes less memory than VEC shifted copies of it.
  const Case c{{"rows", 1000}, {"d", 2049}};
  const auto shifted = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "packed"}, {"weight_copies", "shifted"}}}, c).front();
  const auto one = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "packed"}, {"weight_copies", "one"}}}, c).front();
  CHECK(shifted.entry == "ladder::rmsnorm_fwd_packed<__nv_bfloat16>");
  CHECK(one.entry == "ladder::rmsnorm_fwd_packed<__nv_bfloat16, false>");
  CHECK(one.shared_bytes + 7u * 2 * 2049 <= shifted.shared_bytes);
  // Rows shorter than a chunk, strided rows and spans over the shared memory run the register
  // kernel, as schedule=staged does where it cannot stage.
  CHECK(!packed(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "packed"}}}, {{"rows", 9}, {"d", 7}}).front()));
  CHECK(!packed(plan_checked({"rmsnorm", DType::BF16, {{"schedule", "packed"}, {"strided", "odd"}}}, c).front()));
  CHECK(!packed(plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "packed"}}}, {{"rows", 64}, {"d", 32768}}).front()));
}

TEST_CASE("packed schedule: its keys are checked", "[kernels]") {
  ladder::register_builtin_oracles();
  const Case c{{"rows", 64}, {"d", 2049}};
  auto plan_of = [&](const std::map<std::string, std::string>& v) {
    return ladder::kernels::plan({"rmsnorm", DType::BF16, v}, c, kEps);
  };
  // A bf16 span of an odd d must be a multiple of 8 rows to start on the 16-byte grid.
  CHECK_THROWS_WITH(plan_of({{"schedule", "packed"}, {"span_rows", "4"}}),
                    has_substr("not a multiple of 8"));
  CHECK(span_rows_of(plan_of({{"schedule", "packed"}, {"span_rows", "16"}}).front()) == 16);
  CHECK(plan_of({{"schedule", "packed"}, {"packed_threads", "128"}}).front().block[0] == 128);
  // Keys of the packed kernels on another schedule, and keys of others on this one, are errors.
  CHECK_THROWS_WITH(plan_of({{"schedule", "regs"}, {"weight_copies", "one"}}),
                    has_substr("packed kernels only"));
  CHECK_THROWS_WITH(plan_of({{"schedule", "packed"}, {"rpb", "2"}}), has_substr("no rpb"));
  CHECK_THROWS_WITH(plan_of({{"schedule", "packed"}, {"items", "2"}}), has_substr("no items"));
  CHECK_THROWS_WITH(plan_of({{"schedule", "packed"}, {"span_rows", "7"}}),
                    has_substr("span_rows=7"));
}
