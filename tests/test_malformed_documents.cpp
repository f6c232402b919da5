// Every document the harness reads, mutated on purpose: fields removed, array elements repeated,
// values replaced by hostile ones (wrong types, 0, -1, int64's ends, 1e300, empty and very long
// strings, bad expressions). Each reader must answer with its own error type, which names the
// file and the place, or accept the document; never another exception, never a crash. The
// mutations are seeded (std::mt19937_64 is specified by the standard), so a failure names a seed
// that reproduces it.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/text.h"
#include "harness/device/generators.h"
#include "harness/fixtures/fixture_check.h"
#include "harness/fixtures/fixture_file.h"
#include "harness/fixtures/fixture_rungs.h"
#include "harness/isolate/plan.h"
#include "harness/ladder/launch.h"
#include "harness/ladder/manifest.h"
#include "harness/report/bench_compare.h"
#include "harness/report/bench_markdown.h"
#include "harness/report/compare.h"
#include "harness/report/run_document.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;
using nlohmann::json;
using ladder_test::has_substr;
using ladder_test::source_path;

namespace {

// Every value's pointer. A long array of numbers (a fixture's data) offers only its ends, so the
// mutations land on the documents' structure rather than mostly on data.
void collect(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect(*it, at / it.key(), out);
  } else if (j.is_array()) {
    bool numbers = j.size() > 4;
    for (const auto& e : j) numbers = numbers && e.is_number();
    if (numbers) {
      out.push_back(at / 0);
      out.push_back(at / (j.size() - 1));
      return;
    }
    for (std::size_t i = 0; i < j.size(); ++i) collect(j[i], at / i, out);
  }
}

json hostile_value(std::mt19937_64& g) {
  static const std::vector<json> values = {
      nullptr, true, 0, -1, 1, 3, 65536, 2147483648LL, 4294967296LL, INT64_MAX, INT64_MIN,
      UINT64_MAX, -0.5, 1e300, -1e300, "", "x", "-1", "1e99", "rows*d*1000000000000", "1/0", "(",
      "ceil_div(rows, 0)", "bf16", "output", json::array(), json::object(), json::array({-1, 5}),
      json::array({"rows", "d"}), json::object({{"range", json::array({INT64_MIN, 64})}}),
      json::object({{"i32", "d"}}), std::string(4096, 'a'), "fixture:missing.json#1/x",
      "constant:1e400"};
  return values[g() % values.size()];
}

// One to three mutations of `doc`, chosen by `seed`.
json mutated(json doc, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const int count = 1 + static_cast<int>(g() % 3);
  for (int k = 0; k < count; ++k) {
    std::vector<json::json_pointer> pointers;
    collect(doc, json::json_pointer(), pointers);
    const json::json_pointer at = pointers[g() % pointers.size()];
    const auto how = g() % 4;
    if (at.empty()) {
      if (how == 0) doc = hostile_value(g);
      continue;
    }
    json& parent = doc[at.parent_pointer()];
    if (how == 0 && parent.is_object()) {
      parent.erase(at.back());
    } else if (how == 0 && parent.is_array()) {
      parent.erase(std::stoul(at.back()));
    } else if (how == 1 && parent.is_array()) {
      parent.push_back(parent[std::stoul(at.back())]);
    } else {
      doc[at] = hostile_value(g);
    }
  }
  return doc;
}

json read_document(const std::string& rel) {
  std::ifstream in(source_path(rel));
  REQUIRE(in);
  return json::parse(in);
}

std::string exception_text(const std::exception& e) { return std::string(typeid(e).name()) + ": " + e.what(); }

}  // namespace

TEST_CASE("a mutated manifest is a ManifestError or a rung whose cases plan or are refused by name",
          "[robustness]") {
  const std::string file = GENERATE(as<std::string>{}, "probes/ladder.json", "probes/selftest.json",
                                    "probes/sweep_demo.json", "probes/bisect_demo.json");
  const json base = read_document(file);
  std::size_t refused = 0, accepted = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    const std::string text = mutated(base, seed).dump();
    INFO(file << " mutation seed " << seed);
    Ladder ladder;
    try {
      ladder = parse_ladder(text, "mutated.json", source_path("probes"));
    } catch (const ManifestError& e) {
      CHECK_THAT(std::string(e.what()), has_substr("mutated.json: at /"));
      ++refused;
      continue;
    } catch (const std::exception& e) {
      FAIL_CHECK("not a ManifestError: " << exception_text(e));
      continue;
    }
    ++accepted;
    for (const auto& rung : ladder.rungs) {
      for (std::size_t i = 0; i < rung.cases.size() && i < 2; ++i) {
        std::vector<KernelLaunch> launches;
        try {
          launches = isolate::plan_case(rung, rung.cases[i], kernels::DeviceLimits::h200());
        } catch (const std::invalid_argument&) {
          continue;  // refused by name: resolve_launch and the catalog's documented error
        } catch (const std::exception& e) {
          FAIL_CHECK("rung " << rung.name << " planned with " << exception_text(e));
          continue;
        }
        for (const auto& launch : launches) {
          std::int64_t elements = 0;
          for (const auto& b : launch.buffers) elements += b.storage_elements();
          if (elements > (1 << 20)) continue;  // generating them is the child's job, not a parser's
          try {
            (void)generate_inputs(launch.buffers, [&](const ConcreteBuffer&) { return launch.seed; });
          } catch (const std::invalid_argument&) {
          } catch (const std::exception& e) {
            FAIL_CHECK("rung " << rung.name << " generated inputs with " << exception_text(e));
          }
        }
      }
    }
  }
  // Both paths ran: the test is not passing by refusing (or accepting) everything.
  CHECK(refused > 40);
  CHECK(accepted > 40);
}

TEST_CASE("a range that spans most of int64 is refused by name, not expanded", "[robustness]") {
  const std::string text = R"({"rungs": [{"name": "r", "source": "p0_three_buffers.cu", "entry": "k",
    "cases": [{"d": {"range": [-9223372036854775808, 64]}}]}]})";
  CHECK_THROWS_WITH(parse_ladder(text, "t.json", source_path("probes")),
                    has_substr("t.json: at /rungs/0/cases/0/d/range: expected a range of at most"));
}

TEST_CASE("a case product too large to hold is refused before it is built", "[robustness]") {
  const std::string text = R"({"rungs": [{"name": "r", "source": "p0_three_buffers.cu", "entry": "k",
    "cases": [{"a": {"range": [1, 99999]}, "b": {"range": [1, 99999]}, "c": {"range": [1, 99999]}}]}]})";
  CHECK_THROWS_WITH(parse_ladder(text, "t.json", source_path("probes")),
                    has_substr("t.json: at /rungs/0/cases/0: expands to more than"));
}

TEST_CASE("a buffer whose element count wraps in int64 is over the size limit, not empty", "[robustness]") {
  const std::string text = R"({"rungs": [{"name": "r", "source": "p0_three_buffers.cu", "entry": "k",
    "buffers": [{"name": "y", "role": "output", "shape": ["rows", "d"]}], "args": ["y"],
    "cases": [{"rows": 4294967296, "d": 4294967296}]}]})";
  const Rung rung = parse_ladder(text, "t.json", source_path("probes")).rungs[0];
  CHECK_THROWS_WITH(resolve_launch(rung, rung.cases[0]), has_substr("bytes is over the"));
}

TEST_CASE("a missing required field is named as the manifest's error", "[robustness]") {
  const std::string text = R"({"rungs": [{"name": "r", "source": "p0_three_buffers.cu", "entry": "k",
    "buffers": [{"role": "output", "shape": ["d"]}], "cases": [{"d": 1}]}]})";
  CHECK_THROWS_WITH(parse_ladder(text, "t.json", source_path("probes")),
                    has_substr("t.json: at /rungs/0/buffers/0: expected a 'name' field"));
}

TEST_CASE("a mutated fixture is a FixtureError or a fixture the checks and rungs take", "[robustness]") {
  const json base = read_document("fixtures/layernorm.json");
  std::size_t refused = 0, accepted = 0;
  for (std::uint64_t seed = 0; seed < 120; ++seed) {
    const json doc = mutated(base, seed);
    INFO("fixtures/layernorm.json mutation seed " << seed);
    fixtures::FixtureFile file;
    try {
      file = fixtures::parse_fixture(doc, "mutated.json");
    } catch (const fixtures::FixtureError& e) {
      CHECK_THAT(std::string(e.what()), has_substr("mutated.json: "));
      ++refused;
      continue;
    } catch (const std::exception& e) {
      FAIL_CHECK("not a FixtureError: " << exception_text(e));
      continue;
    }
    ++accepted;
    try {
      (void)fixtures::check_fixture(file);
      (void)fixtures::fixture_rungs(file);
    } catch (const fixtures::FixtureError&) {
    } catch (const std::exception& e) {
      FAIL_CHECK("an accepted fixture's checks or rungs threw " << exception_text(e));
    }
  }
  CHECK(refused > 20);
  CHECK(accepted > 0);
}

TEST_CASE("a fixture case whose rows x d overflows is refused, not read with empty arrays", "[robustness]") {
  // 2^62 rows of 4 columns: the product wraps to 0 in 64 bits, the length of an empty array.
  json doc = read_document("fixtures/rmsnorm.json");
  json& c = doc["cases"][0];
  c["rows"] = std::uint64_t{1} << 62;
  c["d"] = std::uint64_t{4};
  c.erase("row_patterns");
  c["inputs"]["x"] = json::array();
  c["inputs"]["w"] = json::array({1.0, 1.0, 1.0, 1.0});
  for (auto& [name, reference] : c["references"].items())
    if (reference.contains("outputs")) reference["outputs"]["y"] = json::array();
  CHECK_THROWS_WITH(fixtures::parse_fixture(doc, "big.json"), has_substr("big.json: /cases/0/rows: expected"));
}

TEST_CASE("a mutated run or bench document fails with the place of the value at fault", "[robustness]") {
  // Run and bench documents are the harness's own output, read back by compare and report: any
  // std::exception is their documented error, and the wrapper adds the file's name. What must
  // hold is that the error says where (JSON_DIAGNOSTICS gives the pointer) and nothing crashes.
  const json run = read_document("reports/h200/run.json");
  const json bench = read_document("reports/h200/bench.json");
  std::size_t failed = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    INFO("mutation seed " << seed);
    const json bad_run = mutated(run, seed), bad_bench = mutated(bench, seed);
    try {
      const RunDocument before = run_document_from_json(run), after = run_document_from_json(bad_run);
      (void)compare_table(compare_runs(before, after), before, after);
      (void)compare_table(compare_runs(after, before), after, before);
    } catch (const json::exception& e) {
      ++failed;
      if (bad_run.is_object()) CHECK_THAT(std::string(e.what()), has_substr("(/"));
    } catch (const std::exception&) {
      ++failed;
    }
    try {
      check_bench_document(bad_bench);
      (void)bench_compare_table(compare_benches(bench, bad_bench), bench, bad_bench);
      (void)bench_markdown(bad_bench, "mutated.json", json::object());
    } catch (const json::exception& e) {
      ++failed;
      if (bad_bench.is_object()) CHECK_THAT(std::string(e.what()), has_substr("(/"));
    } catch (const std::exception&) {
      ++failed;
    }
  }
  CHECK(failed > 30);
}

TEST_CASE("compare names the file and the place of a malformed bench document", "[robustness][cli]") {
  json bench = read_document("reports/h200/bench.json");
  const std::string good = ladder_test::temp_path("bench-good.json"), bad = ladder_test::temp_path("bench-bad.json");
  std::ofstream(good) << bench.dump();
  bench["results"][1]["rows"] = "many";
  std::ofstream(bad) << bench.dump();
  const auto out = ladder_test::run_ladder("compare " + good + " " + bad);
  CHECK(out.exit_code == kExitHarness);
  CHECK_THAT(out.output, has_substr(bad + ": "));
  CHECK_THAT(out.output, has_substr("/results/1/rows"));
}

TEST_CASE("a folder given as a manifest, a fixture or a kernel source is named as one, not read as empty", "[robustness]") {
  const std::string folder = ladder_test::temp_path("a-folder");
  std::filesystem::create_directories(folder);
  CHECK_THROWS_WITH(load_ladder(folder), has_substr(folder + ": at /: expected a readable file (it is a folder)"));
  CHECK_THROWS_WITH(ladder::fixtures::load_fixture(folder), has_substr("expected a readable file (it is a folder)"));
  CHECK_THROWS_WITH(ladder::fixtures::load_fixture(folder), has_substr(folder));
  CHECK_THROWS_WITH(read_file(folder, "kernel source"), has_substr("cannot read kernel source " + folder + " (it is a folder)"));
}

TEST_CASE("a --timeout that is not a positive number of seconds is a usage error that says so", "[robustness][cli]") {
  for (const std::string value : {"-1", "0", "abc", "inf", "nan"}) {
    for (const std::string command : {"run --compile-only p0_three_buffers", "bench --resources rmsnorm"}) {
      const auto out = ladder_test::run_ladder(command + " --timeout " + value);
      INFO(command << " --timeout " << value << ": " << out.output);
      CHECK(out.exit_code == kExitHarness);
      CHECK_THAT(out.output, has_substr("--timeout: expected a positive number of seconds, got '" + value + "'"));
    }
  }
}
