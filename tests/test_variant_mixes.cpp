// The verify grid runs each op's variants one at a time. A user may combine them: these are
// seeded random mixes of the grid's variant keys and values over awkward shapes, on both the
// H200's and the A100's limits. Every mix must either be refused by name (std::invalid_argument)
// or plan launches that pass the checks every planned launch passes (tests/plan_helpers.h) and
// fit the device's shared memory. A failure names the seed, the mix and the shape.
#include <random>
#include <set>

#include "harness/cli/verify_grid.h"
#include "tests/plan_helpers.h"

using namespace ladder;
using namespace ladder_test;

namespace {

using KeyValue = std::pair<std::string, std::string>;

// Every key=value the grid's variants of `op` use, plus "auto" for each key.
std::vector<KeyValue> grid_pairs(const std::string& op) {
  std::set<KeyValue> pairs;
  for (const auto& variant : cli::variants_of(op))
    for (const auto& [key, value] : variant) {
      pairs.emplace(key, value);
      pairs.emplace(key, "auto");
    }
  return {pairs.begin(), pairs.end()};
}

}  // namespace

TEST_CASE("mixed variants plan sane launches or are refused by name", "[kernels][robustness]") {
  const std::vector<std::int64_t> rows = {0, 1, 7, 83, 1024, 4096, 65536, 2147483647};
  const std::vector<std::int64_t> widths = {1, 2, 3, 8, 769, 1025, 2049, 4096, 5125, 16384, 16385, 32768, 65536};
  ladder::register_builtin_oracles();
  const auto device = GENERATE(DeviceLimits::h200(), DeviceLimits::a100());
  std::size_t planned = 0, refused = 0;
  for (const auto& op : kernels::ops()) {
    const auto pairs = grid_pairs(op);
    if (pairs.empty()) continue;  // helper kernels the grid does not vary
    for (std::uint64_t seed = 0; seed < 4000; ++seed) {
      std::mt19937_64 g(seed);
      KernelRef ref{op, std::vector<DType>{DType::F32, DType::F16, DType::BF16}[g() % 3], {}};
      const int count = 1 + static_cast<int>(g() % 4);
      for (int k = 0; k < count; ++k) {
        const auto& [key, value] = pairs[g() % pairs.size()];
        ref.variant[key] = value;
      }
      const Case c{{"rows", rows[g() % rows.size()]}, {"d", widths[g() % widths.size()]}};
      INFO("seed " << seed << ": " << describe(ref, c) << " on sm_" << device.compute_capability);
      std::vector<KernelLaunch> launches;
      try {
        launches = kernels::plan(ref, c, kEps, device);
      } catch (const std::invalid_argument&) {
        ++refused;
        continue;
      } catch (const std::exception& e) {
        FAIL_CHECK("not refused by name: " << e.what());
        continue;
      }
      ++planned;
      REQUIRE(!launches.empty());
      for (std::size_t i = 0; i < launches.size(); ++i) {
        check_launch(ref, c, launches[i], i == 0);
        CHECK(launches[i].shared_bytes <= device.shared_per_block_optin - kernels::kStaticSharedReserve);
      }
    }
  }
  // Both outcomes occur: the mixes are neither all refused nor all accepted.
  CHECK(planned > 500);
  CHECK(refused > 100);
}
