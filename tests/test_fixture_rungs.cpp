// `ladder verify` on the fixture cases: every committed case maps to kernel rungs (or is skipped
// with a reason), the fixture-backed buffers hold exactly the fixture's values, and bad fixture
// references fail with messages naming the file, the case and what was expected. No GPU needed.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "harness/device/fixture_inputs.h"
#include "harness/device/generators.h"
#include "harness/fixtures/fixture_rungs.h"
#include "harness/isolate/plan.h"
#include "harness/kernels/plan_builder.h"
#include "harness/ladder/serialize.h"
#include "oracles/half.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;
using nlohmann::json;

namespace {

bool is_input(const ConcreteBuffer& b) {
  return (b.role == BufferRole::Input || b.role == BufferRole::InOut) && b.alias_of.empty();
}

// The bits `dt` stores for an exactly representable v, computed without store_element.
std::vector<std::byte> expected_bits(DType dt, double v) {
  std::vector<std::byte> out(size_of(dt));
  if (dt == DType::F32) {
    const float f = static_cast<float>(v);
    std::memcpy(out.data(), &f, 4);
  } else {
    const std::uint16_t h = dt == DType::F16 ? oracles::to_f16_bits(static_cast<float>(v))
                                             : oracles::to_bf16_bits(static_cast<float>(v));
    std::memcpy(out.data(), &h, 2);
  }
  return out;
}

// A small valid fixture file: rmsnorm f16, 2 x 4, weight plain, with the given eps per case.
std::string tiny_fixture(const std::string& name, const std::vector<double>& eps_per_case) {
  json cases = json::array();
  for (std::size_t k = 0; k < eps_per_case.size(); ++k) {
    json ref = {{"library", "test"}, {"call", "none"}, {"stored_as", {{"y", "f16"}}},
                {"outputs", {{"y", std::vector<double>(8, 0.5)}}}};
    cases.push_back({{"id", "rmsnorm/f16/tiny-" + std::to_string(k)}, {"op", "rmsnorm"}, {"dtype", "f16"},
                     {"rows", 2}, {"d", 4}, {"eps", eps_per_case[k]}, {"weight", "plain"},
                     {"inputs", {{"x", {1.0, -2.0, 10000.0, -0.0, 0.5, 0.25, -65504.0, 3.0}}, {"w", {1, 2, 0.5, -1}}}},
                     {"references", {{"torch", ref}}}});
  }
  json doc = {{"schema_version", 1},
              {"provenance", {{"generator", "test"}, {"torch", "-"}, {"fla", "-"}, {"python", "-"}, {"platform", "-"},
                              {"date", "-"}, {"command", "-"}, {"seed", 1}}},
              {"cases", cases}};
  const std::string path = ladder_test::temp_path(name);
  std::ofstream(path) << doc.dump();
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("every committed fixture case maps to verify rungs or is skipped with a reason", "[fixtures][verify]") {
  const auto paths = fixtures::fixture_paths(false);
  REQUIRE(paths.size() == 3);  // add_rmsnorm, layernorm, rmsnorm; fixtures/gpu/ is left out
  const auto fx = fixtures::load_fixture_rungs(paths);
  std::size_t cases = 0, fused_forward = 0;
  for (const auto& p : paths) {
    const auto f = fixtures::load_fixture(p);
    cases += f.cases.size();
    for (const auto& c : f.cases) fused_forward += c.op == fixtures::Op::AddRmsNorm;
  }
  CHECK(fx.cases == cases);
  CHECK(fx.cases == 146);
  for (const auto& s : fx.skipped) CHECK_FALSE(s.reason.empty());
  CHECK(fx.mapped_cases + fx.skipped.size() == fx.cases);
  CHECK(fx.skipped.empty());  // every committed case has a kernel equivalent today
  // One rung per case, plus a second convention for each fused-add forward case (A and B).
  CHECK(fx.rungs.size() == fx.mapped_cases + fused_forward);

  std::set<std::string> names, ops;
  bool saw_empty = false;
  for (const auto& r : fx.rungs) {
    INFO(r.name);
    CHECK(names.insert(r.name).second);
    CHECK(std::regex_match(r.name, std::regex("fixture_[A-Za-z0-9_]+")));
    REQUIRE(r.kernel);
    ops.insert(r.kernel->op);
    REQUIRE(r.cases.size() == 1);
    saw_empty |= r.cases[0].at("rows") == 0;
    // What the child will run: every kernel input comes from the fixture, or from a fixture
    // input (layernorm_bwd's saved statistics, from x); nothing is random.
    const auto plans = isolate::plan_case(r, r.cases[0]);
    for (const auto& b : plans.front().buffers) {
      if (!is_input(b)) continue;
      if (is_derived_init(b.init)) {
        CHECK(r.kernel->op == "layernorm_bwd");
        CHECK(b.init.find(":x") != std::string::npos);
      } else {
        CHECK(is_fixture_init(b.init));
      }
    }
    if (r.kernel->op == "add_rmsnorm_bwd") CHECK(r.kernel->variant.at("dh") == "1");
    if (r.kernel->op == "add_rmsnorm") CHECK(r.kernel->variant.count("convention") == 1);
    if (r.kernel->op == "layernorm_bwd") CHECK(r.kernel->inits.count("beta") == 0);
  }
  CHECK(saw_empty);  // the rows = 0 cases run as the kernel's no-op
  CHECK(ops == std::set<std::string>{"rmsnorm", "add_rmsnorm", "layernorm", "rmsnorm_bwd", "add_rmsnorm_bwd",
                                     "layernorm_bwd"});
}

TEST_CASE("a fixture case the kernel refuses is skipped with the kernel's reason", "[fixtures][verify]") {
  const auto fx = fixtures::load_fixture_rungs({tiny_fixture("eps0.json", {1e-5, 0.0})});
  CHECK(fx.cases == 2);
  CHECK(fx.mapped_cases == 1);
  REQUIRE(fx.rungs.size() == 1);
  CHECK(fx.rungs[0].name == "fixture_rmsnorm_f16_tiny_0");
  REQUIRE(fx.skipped.size() == 1);
  CHECK(fx.skipped[0].case_id == "rmsnorm/f16/tiny-1");
  CHECK(fx.skipped[0].reason.find("the kernel refuses it") != std::string::npos);
  CHECK(fx.skipped[0].reason.find("eps") != std::string::npos);
}

TEST_CASE("fixture-backed buffers hold exactly the fixture's values", "[fixtures][verify]") {
  const auto fx = fixtures::load_fixture_rungs(fixtures::fixture_paths(false));
  std::size_t checked = 0, large = 0;
  for (const auto& r : fx.rungs) {
    // The specials and one sweep case per op keep this quick while covering every dtype and input.
    if (r.name.find("specials") == std::string::npos && r.name.find("d8x1") == std::string::npos) continue;
    const auto plans = isolate::plan_case(r, r.cases[0]);
    for (const auto& b : plans.front().buffers) {
      if (!is_input(b) || is_derived_init(b.init)) continue;  // derived: test_generators.cpp
      INFO(r.name << " " << b.name);
      const auto& values = fixture_input_values(parse_fixture_init(b.init));
      const auto bytes = generate(b, 1), again = generate(b, 99);
      CHECK(bytes == again);  // the seed plays no part
      REQUIRE(bytes.size() == values.size() * size_of(b.dtype));
      for (std::size_t k = 0; k < values.size(); ++k) {
        large += std::fabs(values[k]) >= 1e4;
        const auto want = expected_bits(b.dtype, values[k]);
        if (std::memcmp(bytes.data() + k * want.size(), want.data(), want.size()) != 0) {
          FAIL_CHECK("element " << k << " = " << values[k] << " not stored bit-exactly");
          break;
        }
      }
      ++checked;
    }
  }
  CHECK(checked > 50);
  CHECK(large > 0);  // the special rows (+-1e4, overflowing sums) travel too
}

TEST_CASE("fixture values land in strided storage with zero gaps", "[fixtures][verify]") {
  const std::string file = tiny_fixture("strided.json", {1e-5});
  const ConcreteBuffer b = ladder::kernels::detail::matrix("x", BufferRole::Input, DType::F16, 2, 4, 7,
                                                           fixture_init(file, "rmsnorm/f16/tiny-0", "x"));
  const auto bytes = generate(b, 0);
  REQUIRE(bytes.size() == (7 + 4) * 2u);
  const auto values = logical_values(b, bytes);
  CHECK(values == std::vector<double>{1.0, -2.0, 10000.0, -0.0, 0.5, 0.25, -65504.0, 3.0});
  CHECK(std::signbit(values[3]));  // -0.0 keeps its sign
  for (std::size_t k = 4; k < 7; ++k) CHECK((bytes[2 * k] == std::byte{0} && bytes[2 * k + 1] == std::byte{0}));
}

TEST_CASE("bad fixture references give errors naming file, case and what was expected", "[fixtures][verify]") {
  const std::string file = tiny_fixture("errors.json", {1e-5});
  ConcreteBuffer b = ladder::kernels::detail::matrix("x", BufferRole::Input, DType::F16, 2, 4, 4, "normal");
  auto fill = [&](const std::string& init, DType dt = DType::F16) {
    b.init = init;
    b.dtype = dt;
    return error_of([&] { generate(b, 0); });
  };
  CHECK(fill("fixture:" + file).find("expected fixture:FILE#CASE_ID/INPUT") != std::string::npos);
  CHECK(fill("fixture:" + file + "#rmsnorm/f16/tiny-0/").find("expected fixture:FILE#CASE_ID/INPUT") != std::string::npos);
  const std::string missing = fill(fixture_init("/no/such/file.json", "c", "x"));
  CHECK(missing.find("/no/such/file.json") != std::string::npos);
  CHECK(missing.find("readable file") != std::string::npos);
  const std::string no_case = fill(fixture_init(file, "rmsnorm/f16/nope", "x"));
  CHECK(no_case.find(file) != std::string::npos);
  CHECK(no_case.find("a case with id 'rmsnorm/f16/nope'") != std::string::npos);
  const std::string no_input = fill(fixture_init(file, "rmsnorm/f16/tiny-0", "dy"));
  CHECK(no_input.find("case 'rmsnorm/f16/tiny-0'") != std::string::npos);
  CHECK(no_input.find("an input named 'dy' (it has: w, x)") != std::string::npos);
  const std::string wrong_dtype = fill(fixture_init(file, "rmsnorm/f16/tiny-0", "x"), DType::F32);
  CHECK(wrong_dtype.find("expected a f16 buffer") != std::string::npos);
  b.cols = 3;
  const std::string wrong_size = fill(fixture_init(file, "rmsnorm/f16/tiny-0", "x"));
  CHECK(wrong_size.find("expected 6 values for a 2 x 3 buffer; the input has 8") != std::string::npos);

  // A malformed file: a value f16 cannot hold, named by its JSON pointer.
  json doc = json::parse(std::ifstream(file));
  doc["cases"][0]["inputs"]["x"][1] = 0.1;
  const std::string bad = ladder_test::temp_path("malformed.json");
  std::ofstream(bad) << doc.dump();
  b.cols = 4;
  const std::string malformed = fill(fixture_init(bad, "rmsnorm/f16/tiny-0", "x"));
  CHECK(malformed.find(bad) != std::string::npos);
  CHECK(malformed.find("/cases/0/inputs/x/1") != std::string::npos);
  CHECK(error_of([&] { fixtures::load_fixture_rungs({bad}); }).find("/cases/0/inputs/x/1") != std::string::npos);
}

TEST_CASE("kernel init overrides survive the rung's JSON and must name an input", "[fixtures][verify]") {
  const std::string file = tiny_fixture("roundtrip.json", {1e-5});
  auto fx = fixtures::load_fixture_rungs({file});
  REQUIRE(fx.rungs.size() == 1);
  const Rung& r = fx.rungs[0];
  const auto back = parse_ladder(single_rung_manifest(r), "<test>", "").rungs.at(0);
  REQUIRE(back.kernel);
  CHECK(back.kernel->inits == r.kernel->inits);
  CHECK(back.kernel->inits.at("w") == fixture_init(file, "rmsnorm/f16/tiny-0", "w"));

  Rung wrong = r;
  wrong.kernel->inits["beta"] = "ones";
  const std::string e = error_of([&] { isolate::plan_case(wrong, wrong.cases[0]); });
  CHECK(e.find("'beta'") != std::string::npos);
  CHECK(e.find("its inputs: x, w") != std::string::npos);
}

TEST_CASE("verify --fixtures-only --compile-only runs the fixture rungs and prints skips", "[cli][verify]") {
  const std::string file = tiny_fixture("cli.json", {1e-5, 0.0});
  const auto o = ladder_test::run_ladder("verify --compile-only --fixtures-only --fixtures " + file);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  CHECK(o.output.find("fixture cases: 2 read, 1 mapped to 1 rungs (1 selected), 1 skipped") != std::string::npos);
  CHECK(o.output.find("skipped fixture case rmsnorm/f16/tiny-1") != std::string::npos);
  CHECK(o.output.find("1 rungs: PASS 0, FAIL 0, XFAIL 0, XPASS 0, SKIPPED 1") != std::string::npos);

  const auto bad = ladder_test::run_ladder("verify --compile-only --fixtures-only --fixtures /no/such.json");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("/no/such.json") != std::string::npos);
}
