// Zero rows are a no-op for the row outputs, and the weight column_outputs of no rows are zeros. The
// verify grid runs zero rows for every variant on the GPU; here, with no GPU, every variant's
// plan at zero rows and its oracle: what the oracle expects is what the device is held to.
#include <algorithm>

#include "harness/checks/oracle_registry.h"
#include "harness/cli/verify_grid.h"
#include "harness/device/generators.h"
#include "tests/plan_helpers.h"

using namespace ladder;
using namespace ladder_test;
using ladder_test::has_substr;

TEST_CASE("at zero rows every variant plans, and its oracle expects zero column sums", "[kernels]") {
  register_builtin_oracles();
  const auto dtype = GENERATE(DType::F32, DType::F16, DType::BF16);
  const auto d = GENERATE(as<std::int64_t>{}, 1, 2049, 4096);
  std::size_t column_outputs = 0;
  for (const auto& op : kernels::ops()) {
    auto variants = cli::variants_of(op);
    variants.insert(variants.begin(), cli::Variant{});  // the default
    for (const auto& variant : variants) {
      const KernelRef ref{op, dtype, variant};
      const Case c{{"rows", 0}, {"d", d}};
      INFO(describe(ref, c));
      std::vector<KernelLaunch> launches;
      try {
        launches = kernels::plan(ref, c, kEps);
      } catch (const std::invalid_argument& e) {
        // A variant may refuse a width (d = 1 below its chunk); never zero rows as such.
        CHECK_THAT(std::string(e.what()), !has_substr("rows"));
        continue;
      }
      REQUIRE(!launches.empty());
      const KernelLaunch& first = launches.front();
      if (first.oracle == "none") continue;  // helper kernels: checked through their op
      const auto inputs = generate_inputs(first.buffers, [](const ConcreteBuffer&) { return 1u; });
      OracleInput in{first, {}};
      for (const auto& b : first.buffers)
        if (b.is_filled_input()) in.initial.emplace(b.name, HostTensor{b, logical_values(b, inputs.at(b.name))});
      const auto expected = (*find_oracle(first.oracle))(in);
      for (const auto& b : first.buffers) {
        if (b.role != BufferRole::Output && b.role != BufferRole::InOut) continue;
        const auto it = expected.find(b.name);
        if (it == expected.end()) continue;
        INFO("output " << b.name);
        CHECK(it->second.values.size() == static_cast<std::size_t>(b.logical_elements()));
        // A row output of no rows is empty; a column output (a weight gradient, column_sum's
        // sums) sums over no rows: zeros.
        if (b.logical_elements() == 0) continue;
        ++column_outputs;
        CHECK(b.logical_elements() == d);
        CHECK(std::count(it->second.values.begin(), it->second.values.end(), 0.0) == d);
      }
    }
  }
  CHECK(column_outputs > 0);
}
