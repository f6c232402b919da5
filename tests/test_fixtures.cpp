// The committed fixtures against the oracles, the sweep they must cover, the splits they must
// show, and `ladder fixtures check` on good, disagreeing and malformed files.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "harness/fixtures/fixture_check.h"
#include "harness/fixtures/fixture_report.h"
#include "tests/catch.h"

using namespace ladder::fixtures;
using ladder::oracles::Precision;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<FixtureFile>& committed() {
  static const std::vector<FixtureFile> files = [] {
    std::vector<FixtureFile> out;
    for (const auto& path : fixture_paths(true)) out.push_back(load_fixture(path));
    return out;
  }();
  return files;
}

const FixtureFile& committed_file(const std::string& stem) {
  for (const auto& f : committed()) {
    if (fs::path(f.path).stem() == stem && fs::path(f.path).parent_path().filename() == "fixtures") return f;
  }
  FAIL("no committed fixtures/" << stem << ".json");
  throw std::logic_error("unreachable");
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// A scratch folder for files the checker reads and writes; removed with the test.
struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("ladder_fixtures_" + std::to_string(::getpid()) + "_" +
                                       std::to_string(counter()++));
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const json& doc) const {
    const auto path = (dir / name).string();
    std::ofstream(path) << doc.dump();
    return path;
  }
  static int& counter() { static int n = 0; return n; }
};

// A one-case document cut from the committed rmsnorm fixtures: small, valid, easy to break.
json small_document() {
  json doc = read_json(committed_file("rmsnorm").path);
  for (const auto& c : doc["cases"]) {
    if (c["dtype"] == "f16" && c["weight"] == "plain" && c["rows"].get<int>() > 0 &&
        c["d"].get<int>() <= 8) {
      doc["cases"] = json::array({c});
      return doc;
    }
  }
  FAIL("no small f16 case in fixtures/rmsnorm.json");
  return doc;
}

std::string malformed_message(const json& doc) {
  try {
    parse_fixture(doc, "doc.json");
  } catch (const FixtureError& e) {
    return e.what();
  }
  return "";
}

int ladder_exit_code(const std::string& args) {
  const int status = std::system((std::string(LADDER_BINARY) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("every fixture column agrees with the fp64 oracles within the policy", "[fixtures]") {
  REQUIRE(committed().size() >= 3);
  for (const auto& file : committed()) {
    const FileCheck check = check_fixture(file);
    REQUIRE(check.case_count > 0);
    for (const auto& col : check.checks) {
      for (const auto& out : col.outputs) {
        INFO(file.path << " " << col.case_id << " " << col.column << " " << out.output << ": "
                       << out.comparison.summary());
        CHECK(out.comparison.ok);
      }
    }
    CHECK(check.ok());
    for (const auto& s : check.summaries) CHECK(s.outputs > 0);  // every column was compared
  }
}

TEST_CASE("the fixtures cover the sweep the policy was written for", "[fixtures]") {
  std::set<std::size_t> sizes, rows;
  std::set<double> eps;
  std::set<std::string> patterns, op_dtype, weights, conventions, libraries;
  for (const auto& file : committed()) {
    for (const auto& c : file.cases) {
      sizes.insert(c.d);
      rows.insert(c.rows);
      eps.insert(c.eps);
      patterns.insert(c.row_patterns.begin(), c.row_patterns.end());
      op_dtype.insert(std::string(label(c.op)) + "/" + ladder::oracles::label(c.dtype));
      weights.insert(forward_of(c.op) == Op::LayerNorm ? (c.affine ? "affine" : "bare")
                                                       : ladder::oracles::label(c.weight));
      for (const auto& col : c.references) {
        if (col.convention) conventions.insert(ladder::oracles::label(*col.convention));
        libraries.insert(col.library.substr(0, col.library.find(' ')));
      }
    }
  }
  for (std::size_t d : {1, 2, 3, 4, 8, 511, 512, 513, 768, 1024, 2049, 4096, 8192}) CHECK(sizes.count(d));
  for (std::size_t n : {0, 1, 2, 7, 83, 257}) CHECK(rows.count(n));
  for (double e : {1e-5, 1e-6, std::ldexp(1.0, -23), 0.1}) CHECK(eps.count(e));
  for (const char* p : {"zero", "constant", "near_constant", "pm1e4", "sum_overflow", "sum_65519",
                        "sum_65520", "lost_256_plus_1"}) {
    CHECK(patterns.count(p));
  }
  for (const char* op : {"rmsnorm", "add_rmsnorm", "layernorm", "rmsnorm_backward",
                         "add_rmsnorm_backward", "layernorm_backward"}) {
    for (const char* dt : {"f32", "f16", "bf16"}) CHECK(op_dtype.count(std::string(op) + "/" + dt));
  }
  for (const char* w : {"none", "plain", "gemma", "affine", "bare"}) CHECK(weights.count(w));
  CHECK(conventions == std::set<std::string>{"A", "B"});
  CHECK(libraries.count("torch"));
  CHECK(libraries.count("fla-core"));
}

TEST_CASE("Gemma fixtures carry weights near -1", "[fixtures]") {
  std::size_t near_minus_one = 0;
  for (const auto& file : committed()) {
    for (const auto& c : file.cases) {
      if (c.weight != ladder::oracles::WeightMode::Gemma) continue;
      for (double w : c.input("w")) near_minus_one += std::fabs(w + 1.0) < 0.25;
    }
  }
  CHECK(near_minus_one > 100);
}

TEST_CASE("the known splits between references are named as findings", "[fixtures]") {
  const FileCheck add = check_fixture(committed_file("add_rmsnorm"));
  CHECK(add.ok());  // a split is a finding, never a failure
  auto find = [&](const std::string& kind, const std::string& columns, const std::string& output) {
    for (const auto& f : add.findings) {
      if (f.kind == kind && f.columns == columns && f.output == output) return &f;
    }
    return static_cast<const Finding*>(nullptr);
  };
  const Finding* ab = find("convention split", "torch_a vs torch_b", "y");
  REQUIRE(ab != nullptr);
  CHECK(ab->example.find("sum_overflow") != std::string::npos);  // NaN under B, finite under A
  bool bf16_lost_sum = false;
  for (const auto& id : ab->case_ids) bf16_lost_sum |= id.find("bf16/d16x9/specials") != std::string::npos;
  CHECK(bf16_lost_sum);  // 256 + 1
  CHECK(find("convention split", "fla_ref vs torch_b", "y") != nullptr);
  CHECK(find("storage split", "fla_ref vs torch_a", "h") != nullptr);  // FLA returns h in fp32
  CHECK(find("convention split", "fla_ref vs torch_a", "y") == nullptr);  // both A: no split
  const FileCheck ln = check_fixture(committed_file("layernorm"));
  bool accumulation = false;
  for (const auto& f : ln.findings) accumulation |= f.kind == "accumulation split";
  CHECK(accumulation);
  CHECK(check_fixture(committed_file("rmsnorm")).findings.empty());
}

TEST_CASE("fixtures record their provenance and the pinned versions", "[fixtures]") {
  std::ifstream req(std::string(LADDER_SOURCE_DIR) + "/scripts/requirements-fixtures.txt");
  REQUIRE(req);
  std::string line, torch_pin, fla_pin;
  while (std::getline(req, line)) {
    if (line.rfind("torch==", 0) == 0) torch_pin = line.substr(7);
    if (line.rfind("fla-core==", 0) == 0) fla_pin = line.substr(10);
  }
  REQUIRE_FALSE(torch_pin.empty());
  REQUIRE_FALSE(fla_pin.empty());
  for (const auto& file : committed()) {
    const auto& p = file.provenance;
    INFO(file.path);
    CHECK(p["generator"] == "scripts/gen_fixtures.py");
    CHECK(p["torch"].get<std::string>().rfind(torch_pin, 0) == 0);
    CHECK(p["fla"] == fla_pin);
    CHECK(p["command"].get<std::string>().find("gen_fixtures.py") != std::string::npos);
    CHECK(file.schema_version == kSchemaVersion);
  }
}

TEST_CASE("a malformed fixture names the file, the JSON pointer and what was expected", "[fixtures]") {
  const json good = small_document();
  REQUIRE(malformed_message(good).empty());
  struct Breakage { const char* pointer; json value; const char* expected_text; };
  const Breakage cases[] = {
      {"/cases/0/inputs/x/1", true, "doc.json: /cases/0/inputs/x/1: expected a number or"},
      {"/cases/0/inputs/x/1", 0.1, "/cases/0/inputs/x/1: expected a value that f16 represents exactly"},
      {"/cases/0/inputs/w", json::array({1.0}), "/cases/0/inputs/w: expected an array of"},
      {"/cases/0/op", "rms", "/cases/0/op: expected one of"},
      {"/cases/0/dtype", "fp8", "/cases/0/dtype: expected \"f32\", \"f16\" or \"bf16\""},
      {"/schema_version", 2, "/schema_version: expected schema_version 1"},
      {"/cases/0/references/torch/stored_as/y", "f8", "/cases/0/references/torch/stored_as/y: expected"},
      {"/cases/0/eps", "1e-5", "/cases/0/eps: expected a finite number >= 0"},
  };
  for (const auto& b : cases) {
    json doc = good;
    doc[json::json_pointer(b.pointer)] = b.value;
    const std::string msg = malformed_message(doc);
    INFO(msg);
    CHECK(msg.find(b.expected_text) != std::string::npos);
  }
  json missing = good;
  missing["cases"][0]["inputs"].erase("x");
  CHECK(malformed_message(missing).find("/cases/0/inputs/x: expected a member \"x\"") != std::string::npos);
  json duplicate = good;
  duplicate["cases"].push_back(good["cases"][0]);
  CHECK(malformed_message(duplicate).find("/cases/1/id: expected an id no other case") != std::string::npos);
  json extra = good;
  extra["cases"][0]["references"]["torch"]["outputs"]["z"] = json::array();
  CHECK(malformed_message(extra).find("/cases/0/references/torch/outputs/z") != std::string::npos);
}

TEST_CASE("fixtures check exits 0 clean, 1 on disagreement, 2 on malformed input", "[fixtures]") {
  Scratch scratch;
  const json good = small_document();
  json off = good;
  off["cases"][0]["references"]["fla_ref"]["outputs"]["y"][0] = 1000.0;  // exact in f16, wrong
  json broken = good;
  broken["cases"][0]["rows"] = -1;
  const auto good_path = scratch.write("good.json", good);
  const auto off_path = scratch.write("off.json", off);
  const auto broken_path = scratch.write("broken.json", broken);
  std::ostringstream sink;
  CHECK(run_fixtures_check({good_path}, "", sink) == 0);
  CHECK(run_fixtures_check({good_path, off_path}, "", sink) == 1);
  CHECK(sink.str().find("OVER fla_ref") != std::string::npos);
  CHECK(run_fixtures_check({good_path, off_path, broken_path}, "", sink) == 2);
  CHECK(sink.str().find("MALFORMED " + broken_path + ": /cases/0/rows") != std::string::npos);
  CHECK(run_fixtures_check({(scratch.dir / "absent.json").string()}, "", sink) == 2);

  const auto report = (scratch.dir / "out" / "check.json").string();
  CHECK(run_fixtures_check({good_path, off_path}, report, sink) == 1);
  const json doc = read_json(report);
  CHECK(doc["exit_code"] == 1);
  REQUIRE(doc["files"].size() == 2);
  CHECK(doc["files"][1]["over"].size() == 1);
  CHECK(doc["files"][1]["over"][0]["column"] == "fla_ref");
  for (const auto& entry : fs::directory_iterator(scratch.dir / "out")) {
    CHECK(entry.path().filename() == "check.json");  // the temporary was renamed away
  }
}

TEST_CASE("the ladder binary runs fixtures check with the documented exit codes", "[fixtures][cli]") {
  Scratch scratch;
  json broken = small_document();
  broken["cases"][0]["inputs"]["x"][0] = "one";
  const auto broken_path = scratch.write("broken.json", broken);
  CHECK(ladder_exit_code("fixtures check " + committed_file("rmsnorm").path) == 0);
  CHECK(ladder_exit_code("fixtures check " + broken_path) == 2);
}
