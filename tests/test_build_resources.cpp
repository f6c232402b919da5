// The table of every build's registers and local memory (kernels/README.md, `ladder bench
// --resources --every-build`): one row a template, its builds, register range and the builds
// that hold local memory, the most first.
#include <string>
#include <vector>

#include "harness/report/build_resources.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;

namespace {
ladder::report::BuildResources build(const std::string& entry, int registers, int local) {
  return {entry, {registers, local, 0}};
}
}  // namespace

TEST_CASE("every build's resources: a row a template, ranges, and the builds with local memory", "[report][resources]") {
  const std::vector<ladder::report::BuildResources> builds{
      build("ladder::rmsnorm_fwd<float, 4>", 40, 0),          build("ladder::rmsnorm_fwd<float, 8>", 64, 24),
      build("ladder::rmsnorm_fwd<__half, 8, 256, true>", 80, 16), build("ladder::column_sum<float>", 56, 0),
      build("ladder::column_sum<__half>", 56, 0),             build("ladder::rmsnorm_fwd_rows<float, 8, 4>", 64, 952),
      build("ladder::rmsnorm_fwd_rows<float, 6, 4>", 64, 736), build("ladder::rmsnorm_fwd_rows<float, 4, 4>", 64, 100),
      build("ladder::rmsnorm_fwd_rows<float, 2, 4>", 62, 8),   build("ladder::rmsnorm_fwd_rows<float, 1, 4>", 32, 0),
      build("plain_kernel", 20, 0),                            build("probe<4>", 30, 0)};
  const std::string md = ladder::report::build_resources_markdown(builds);
  INFO(md);
  CHECK(md.rfind("| kernel | builds | registers | builds with local memory |\n| --- | --- | --- | --- |\n", 0) == 0);
  CHECK_THAT(md, has_substr("| `column_sum` | 2 | 56 | none |\n"));
  CHECK_THAT(md, has_substr("| `rmsnorm_fwd` | 3 | 40–80 | 2 (up to 24 B a thread): `<float, 8>` 24 B, "
                            "`<__half, 8, 256, true>` 16 B |\n"));
  CHECK_THAT(md, has_substr("| `rmsnorm_fwd_rows` | 5 | 32–64 | 4 (up to 952 B a thread): `<float, 8, 4>` 952 B, "
                            "`<float, 6, 4>` 736 B, `<float, 4, 4>` 100 B, 1 more |\n"));
  // Names without a namespace or without arguments.
  CHECK_THAT(md, has_substr("| `plain_kernel` | 1 | 20 | none |\n"));
  CHECK_THAT(md, has_substr("| `probe` | 1 | 30 | none |\n"));
  // Rows in name order.
  CHECK(md.find("`column_sum`") < md.find("`rmsnorm_fwd`"));
  CHECK(md.find("`rmsnorm_fwd`") < md.find("`rmsnorm_fwd_rows`"));
}

TEST_CASE("ladder bench --every-build takes every build and nothing else", "[report][resources][cli]") {
  const Outcome alone = run_ladder("bench --every-build");
  CHECK(alone.exit_code == 2);
  CHECK_THAT(alone.output, has_substr("--resources"));
  const Outcome shaped = run_ladder("bench --resources --every-build --shape 4x8");
  CHECK(shaped.exit_code == 2);
  CHECK_THAT(shaped.output, has_substr("--every-build takes every build"));
  const Outcome op = run_ladder("bench rmsnorm --resources --every-build");
  CHECK(op.exit_code == 2);
}
