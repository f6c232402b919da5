#include "harness/ladder/manifest.h"

#include <filesystem>
#include <sstream>

#include "harness/core/text.h"
#include "harness/ladder/launch.h"
#include "harness/ladder/serialize.h"
#include "tests/catch.h"

using namespace ladder;
using ladder_test::has_substr;

namespace {
const char* kGood = R"json({
  "schema_version": 1, "ladder": "t",
  "defaults": {"block": [128, 1, 1]},
  "rungs": [{
    "name": "r0", "adds": "a multiply", "features": ["f"], "source": "k.cu", "entry": "k",
    "scalars": {"eps": 0.5},
    "buffers": [{"name": "x", "role": "input", "dtype": "bf16", "shape": ["rows", "d"]},
                {"name": "y", "role": "output", "dtype": "f32", "shape": ["rows", "d"], "row_stride": "d + 3"}],
    "args": ["x", "y", {"i32": "d"}, {"f32": "eps"}],
    "grid": ["ceil_div(rows*d, 128)"], "oracle": "mul", "expect": "mismatch",
    "cases": [{"rows": [1, 2], "d": {"range": [3, 5]}}, {"rows": 9, "d": 9}]
  }]})json";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}
}  // namespace

TEST_CASE("a manifest parses into rungs, with defaults and case products", "[manifest]") {
  const Ladder lad = parse_ladder(kGood, "t.json", "/base");
  REQUIRE(lad.rungs.size() == 1);
  const Rung& r = lad.rungs[0];
  CHECK(r.source == "/base/k.cu");
  CHECK(r.block[0] == "128");
  CHECK(r.expect == FailReason::Mismatch);
  CHECK(r.cases.size() == 2 * 3 + 1);
  CHECK(r.buffers[0].dtype == DType::BF16);
  CHECK(r.args[3].type == DType::F32);
}

TEST_CASE("a rung resolves per case", "[manifest]") {
  const Ladder lad = parse_ladder(kGood, "t.json", "/base");
  const auto k = resolve_launch(lad.rungs[0], {{"rows", 2}, {"d", 5}});
  CHECK(k.grid[0] == 1);
  CHECK(k.block[0] == 128);
  CHECK(k.buffers[1].row_stride == 8);
  CHECK(k.buffers[1].storage_elements() == 8 + 5);
  CHECK(k.args[2].value == 5);
  CHECK(k.args[3].value == 0.5);
}

TEST_CASE("serialized rungs parse back to the same rung", "[manifest]") {
  const Rung r = parse_ladder(kGood, "t.json", "/base").rungs[0];
  const Rung back = parse_ladder(single_rung_manifest(r), "<child>", "").rungs[0];
  CHECK(back.name == r.name);
  CHECK(back.source == r.source);
  CHECK(back.cases == r.cases);
  CHECK(back.expect == r.expect);
  CHECK(back.seed == r.seed);
  CHECK(back.args.size() == r.args.size());
  CHECK(back.buffers[1].row_stride == r.buffers[1].row_stride);
}

TEST_CASE("malformed manifests name the file, the JSON path and what was expected", "[manifest]") {
  struct Bad {
    std::string from, to, path, expected;
  };
  const auto bad = GENERATE(
      Bad{R"("dtype": "bf16")", R"("dtype": "bf17")", "/rungs/0/buffers/0/dtype", "expected a dtype"},
      Bad{R"("role": "input")", R"("role": "sideways")", "/rungs/0/buffers/0/role", "expected one of input"},
      Bad{R"("expect": "mismatch")", R"("expect": "wrong")", "/rungs/0/expect", "failure reason"},
      Bad{R"({"i32": "d"})", R"({"f16": "d"})", "/rungs/0/args/2", "expected a scalar type"},
      Bad{R"("x", "y", {)", R"("x", "z", {)", "/rungs/0/args/1", "'z' is not declared"},
      Bad{R"("range": [3, 5])", R"("range": [5, 3])", "/rungs/0/cases/0/d/range", "lo <= hi"},
      Bad{R"("name": "r0")", R"("name": "r 0")", "/rungs/0/name", "letters, digits"},
      Bad{R"("source": "k.cu")", R"("source": "k.txt")", "/rungs/0/source", ".cu, .cuh, .ptx"},
      Bad{R"("oracle": "mul",)", R"("oracle": "mul", "colour": 3,)", "/rungs/0/colour", "unknown field 'colour'"},
      Bad{R"("cases": [)", R"("cases": 3, "x": [)", "/rungs/0/x", "unknown field 'x'"});
  const std::string text = replace(kGood, bad.from, bad.to);
  try {
    parse_ladder(text, "t.json", "/base");
    FAIL("expected a ManifestError for " << bad.to);
  } catch (const ManifestError& e) {
    CHECK(e.file == "t.json");
    CHECK(e.json_path == bad.path);
    CHECK_THAT(std::string(e.what()), has_substr(bad.expected));
  }
}

TEST_CASE("broken JSON and missing files are manifest errors, not crashes", "[manifest]") {
  CHECK_THROWS_AS(parse_ladder("{ not json", "t.json", ""), ManifestError);
  CHECK_THROWS_WITH(parse_ladder("[]", "t.json", ""), has_substr("expected an object"));
  CHECK_THROWS_WITH(load_ladder("/no/such/ladder.json"), has_substr("/no/such/ladder.json"));
}

TEST_CASE("shapes that are negative or huge are refused before allocation", "[manifest]") {
  Rung r = parse_ladder(kGood, "t.json", "/base").rungs[0];
  CHECK_THROWS_WITH(resolve_launch(r, {{"rows", -1}, {"d", 5}}), has_substr("expected 0.."));
  CHECK_THROWS_WITH(resolve_launch(r, {{"rows", 1 << 20}, {"d", 1 << 20}}), has_substr("limit"));
  CHECK_THROWS_WITH(resolve_launch(r, {{"rows", 1}}), has_substr("unknown name 'd'"));
}

TEST_CASE("the built-in ladders parse", "[manifest]") {
  const std::string probes = std::string(LADDER_SOURCE_DIR) + "/probes/";
  for (const char* f : {"ladder.json", "selftest.json"}) {
    const Ladder lad = load_ladder(probes + f);
    CHECK(!lad.rungs.empty());
    for (const auto& r : lad.rungs) {
      CHECK(!r.adds.empty());
      if (!r.kernel) CHECK(std::filesystem::exists(r.source));
    }
  }
  const Ladder lad = load_ladder(probes + "ladder.json");
  // p9 must be expected to be caught racing.
  bool p9 = false;
  for (const auto& r : lad.rungs)
    if (r.name == "p9_tree_no_barrier") p9 = r.expect == FailReason::Mismatch;
  CHECK(p9);
}

// probes/README.md gives the manifest format: every field the parser knows, at every level,
// must be named there. The parser's own error for an unknown field lists the known ones.
TEST_CASE("probes/README.md names every manifest field the parser knows", "[manifest][docs]") {
  const std::string readme = ladder::read_file(std::string(LADDER_SOURCE_DIR) + "/probes/README.md");
  auto known_fields = [](const std::string& manifest) {
    std::string message;
    try {
      parse_ladder(manifest, "t.json", "/base");
    } catch (const std::exception& e) {
      message = e.what();
    }
    const auto at = message.find("(known: ");
    INFO(message);
    REQUIRE(at != std::string::npos);
    std::vector<std::string> out;
    std::string list = message.substr(at + 8, message.find(')', at) - at - 8), item;
    std::istringstream items(list);
    while (std::getline(items, item, ',')) out.push_back(item.substr(item.find_first_not_of(' ')));
    return out;
  };
  const std::vector<std::pair<std::string, std::string>> levels{
      {"the file", replace(kGood, R"("ladder": "t",)", R"("ladder": "t", "zz_unknown": 1,)")},
      {"a rung", replace(kGood, R"("name": "r0",)", R"("name": "r0", "zz_unknown": 1,)")},
      {"a buffer", replace(kGood, R"({"name": "x",)", R"({"name": "x", "zz_unknown": 1,)")},
      {"a kernel", replace(replace(kGood, R"("source": "k.cu", "entry": "k",)",
                                   R"("kernel": {"op": "rmsnorm", "dtype": "f32", "zz_unknown": 1},)"),
                           R"("args": ["x", "y", {"i32": "d"}, {"f32": "eps"}],)", "")}};
  std::size_t fields = 0;
  for (const auto& [level, manifest] : levels)
    for (const auto& field : known_fields(manifest)) {
      ++fields;
      INFO("probes/README.md does not name " << level << "'s field " << field);
      CHECK((readme.find("`" + field + "`") != std::string::npos || readme.find("\"" + field + "\"") != std::string::npos));
    }
  CHECK(fields >= 30);
}
