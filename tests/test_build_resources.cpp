// The table of every build's registers and local memory (kernels/README.md, `ladder bench
// --resources --every-build`): one row a template, its builds, register range and the builds
// that hold local memory, the most first; and two such documents compared build by build.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
      build("plain_kernel", 20, 0),                            build("probe<4>", 30, 0),
      build("ladder::plain_spill", 24, 8)};
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
  CHECK_THAT(md, has_substr("| `plain_spill` | 1 | 24 | 1 (up to 8 B a thread): `plain_spill` 8 B |\n"));
  // Rows in name order.
  CHECK(md.find("`column_sum`") < md.find("`rmsnorm_fwd`"));
  CHECK(md.find("`rmsnorm_fwd`") < md.find("`rmsnorm_fwd_rows`"));
}

TEST_CASE("two tables of every build differ where a template, a count or a spill does, or registers by more than the slack",
          "[report][resources]") {
  using ladder::report::build_table_differences;
  auto table = [](int lo, int hi, int builds, int spill) {
    return ladder::report::build_resources_markdown([&] {
      std::vector<ladder::report::BuildResources> b{build("ladder::column_sum<float>", 56, 0)};
      for (int i = 0; i < builds; ++i)
        b.push_back(build("ladder::rmsnorm_fwd<float, " + std::to_string(i + 1) + ">", i == 0 ? lo : hi,
                          i == 0 ? spill : 0));
      return b;
    }());
  };
  const std::string documented = table(44, 85, 3, 0);
  CHECK(build_table_differences(documented, documented, 4) == "");
  // ptxas's jitter: the same source two registers apart.
  CHECK(build_table_differences(documented, table(44, 87, 3, 0), 4) == "");
  CHECK(build_table_differences(documented, table(42, 85, 3, 0), 4) == "");
  // Real changes.
  CHECK_THAT(build_table_differences(documented, table(44, 90, 3, 0), 4),
             has_substr("rmsnorm_fwd`: registers 44–85 documented, 44–90 compiled"));
  CHECK_THAT(build_table_differences(documented, table(44, 85, 3, 8), 4), has_substr("local memory"));
  CHECK_THAT(build_table_differences(documented, table(44, 85, 4, 0), 4), has_substr("3 builds documented, 4 compiled"));
  CHECK(build_table_differences(documented, table(44, 87, 3, 0), 0) != "");  // no slack: exact
  // A template only one side has, and a row that is not the table's.
  const std::string one = ladder::report::build_resources_markdown({build("ladder::column_sum<float>", 56, 0)});
  CHECK_THAT(build_table_differences(documented, one, 4), has_substr("rmsnorm_fwd`: documented, not compiled"));
  CHECK_THAT(build_table_differences(one, documented, 4), has_substr("rmsnorm_fwd`: compiled, not documented"));
  CHECK_THAT(build_table_differences(documented + "| `broken` | x |\n", documented, 4),
             has_substr("documented table, line 5: expected"));
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

namespace {
nlohmann::json every_build_doc(const std::string& nvrtc, nlohmann::json builds) {
  return {{"tool", "ladder-bench"}, {"every_build", true}, {"arch", "sm_90"}, {"nvrtc_version", nvrtc},
          {"commit", "abc"},        {"builds", std::move(builds)}};
}
nlohmann::json one(const std::string& entry, int registers, int local, const std::string& code = "") {
  nlohmann::json b = {{"entry", entry}, {"registers", registers}, {"local_bytes", local}, {"static_shared_bytes", 256}};
  if (!code.empty()) b["code"] = code;
  return b;
}
}  // namespace

TEST_CASE("two every-build documents: the builds that moved, went or came", "[report][resources]") {
  const auto before = every_build_doc("12.9", {one("k<1>", 40, 0), one("k<2>", 64, 0), one("k<3>", 32, 0), one("gone<1>", 10, 0)});
  const auto after = every_build_doc("13.0", {one("k<1>", 40, 0), one("k<2>", 64, 16), one("k<3>", 30, 0), one("new<1>", 10, 0)});
  const auto changes = ladder::report::compare_builds(before, after);
  REQUIRE(changes.size() == 4);
  const std::string table = ladder::report::build_compare_table(changes, before, after);
  INFO(table);
  CHECK_THAT(table, has_substr("2 builds moved, 1 only before, 1 only after"));
  CHECK_THAT(table, has_substr("| `k<2>` | 64 | **0 -> 16** B | 256 B |"));
  CHECK_THAT(table, has_substr("| `k<3>` | **32 -> 30** | 0 B | 256 B |"));
  CHECK_THAT(table, has_substr("- `gone<1>`: only before (not compiled after: compare fails)"));
  CHECK_THAT(table, has_substr("- `new<1>`: only after"));
  CHECK(table.find("`k<1>`") == std::string::npos);
  CHECK(std::count_if(changes.begin(), changes.end(), [](const auto& c) { return c.lost(); }) == 1);
  CHECK_THROWS_WITH(ladder::report::compare_builds(every_build_doc("13.0", {{{"entry", "k<1>"}}}), after),
                    has_substr("builds[0].registers"));
}

TEST_CASE("two every-build documents: the builds whose machine code changed, with or without a move",
          "[report][resources]") {
  const auto before = every_build_doc("13.0", {one("ladder::k<1>", 40, 0, "c1"), one("ladder::k<2>", 64, 0, "c2"),
                                               one("ladder::k<3>", 32, 0, "c3"), one("ladder::j<1>", 10, 0, "d1"),
                                               one("ladder::gone<1>", 10, 0, "g")});
  const auto after = every_build_doc("13.0", {one("ladder::k<1>", 40, 0, "c1"), one("ladder::k<2>", 64, 0, "c2x"),
                                              one("ladder::k<3>", 30, 0, "c3x"), one("ladder::j<1>", 10, 0, "d1")});
  const auto code = ladder::report::compare_code(before, after);
  REQUIRE(code.size() == 2);  // j and k: a build only one side has is not compared
  CHECK(code[1].name == "ladder::k");
  CHECK(code[1].same == 1);
  CHECK(code[1].changed == std::vector<std::string>{"ladder::k<2>", "ladder::k<3>"});
  const std::string table = ladder::report::code_compare_table(code);
  INFO(table);
  CHECK_THAT(table, has_substr("2 builds the same, 2 changed\n"));
  CHECK_THAT(table, has_substr("| `ladder::k` | 3 | 2 | `<2>`, `<3>` |"));
  CHECK(table.find("`ladder::j`") == std::string::npos);
  // k<2> changed code and nothing else: compare_builds, which looks at resources, does not list it.
  const auto moved = ladder::report::compare_builds(before, after);
  CHECK(std::none_of(moved.begin(), moved.end(), [](const auto& c) { return c.entry == "ladder::k<2>"; }));
  // A document from before the digests: its builds are counted as not compared, never as the same.
  const auto old = every_build_doc("13.0", {one("ladder::k<1>", 40, 0), one("ladder::k<2>", 64, 0)});
  const std::string unknown = ladder::report::code_compare_table(ladder::report::compare_code(old, after));
  CHECK_THAT(unknown, has_substr("0 builds the same, 0 changed, 2 not compared"));
  CHECK_THROWS_WITH(ladder::report::compare_code(every_build_doc("13.0", {{{"entry", "k<1>"}, {"registers", 1},
                                                                           {"local_bytes", 0}, {"static_shared_bytes", 0},
                                                                           {"code", 7}}}), after),
                    has_substr("builds[0].code: expected a string"));
}

TEST_CASE("ladder compare on every-build documents: exit 1 only for a build lost", "[report][resources][cli]") {
  const std::string a = temp_path("every-a.json"), b = temp_path("every-b.json"), c = temp_path("every-c.json"),
                    bench = temp_path("every-bench.json");
  std::ofstream(a) << every_build_doc("12.9", {one("k<1>", 40, 0), one("k<2>", 64, 0)}).dump();
  std::ofstream(b) << every_build_doc("13.0", {one("k<1>", 48, 0), one("k<2>", 64, 0), one("k<3>", 64, 0)}).dump();
  std::ofstream(c) << every_build_doc("13.0", {one("k<1>", 40, 0)}).dump();
  std::ofstream(bench) << nlohmann::json{{"tool", "ladder-bench"}, {"results", nlohmann::json::array()}}.dump();
  const Outcome moved = run_ladder("compare " + a + " " + b);
  INFO(moved.output);
  CHECK(moved.exit_code == 0);
  CHECK_THAT(moved.output, has_substr("| `k<1>` | **40 -> 48** |"));
  CHECK_THAT(moved.output, has_substr("machine code (each kernel's .text digest): 0 builds the same, 0 changed, 2 not compared"));
  const Outcome lost = run_ladder("compare " + a + " " + c);
  CHECK(lost.exit_code == 1);
  CHECK_THAT(lost.output, has_substr("`k<2>`: only before"));
  const Outcome mixed = run_ladder("compare " + a + " " + bench);
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.output, has_substr(bench + ": not an every-build document"));
}

TEST_CASE("ladder bench --every-build names a kernel source it cannot read, and compiles nothing", "[report][resources][cli]") {
  const std::string empty = temp_path("every-build-no-kernels");
  std::filesystem::create_directories(empty);
  const Outcome o = run_command("LADDER_KERNELS_DIR=" + empty + " " + LADDER_BINARY + " bench --resources --every-build");
  INFO(o.output);
  if (o.output.find("NVRTC not available") != std::string::npos) {
    WARN("NVRTC not available: the source is never read");
    return;
  }
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.output, has_substr("cannot read kernel source " + empty + "/"));
  CHECK(o.output.find("error:") == std::string::npos);  // no build was compiled from an empty text
}
