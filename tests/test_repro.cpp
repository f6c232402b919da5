// ladder repro: the reproducer folder, and its program built and run here. Without a GPU the
// program stops after the compile stage (exit 3); with one it runs the case (tests/test_gpu.cpp).
#include <filesystem>
#include <fstream>

#include "harness/core/result.h"
#include "harness/device/generators.h"
#include "harness/isolate/plan.h"
#include "harness/ladder/manifest.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;
namespace fs = std::filesystem;

namespace {
std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_path(name);
  fs::remove_all(dir);
  return dir;
}
Outcome build_and_run(const std::string& dir, const std::string& args = "") {
  const Outcome built = run_command("cd " + dir + " && ./build.sh");
  INFO(built.output);
  REQUIRE(built.exit_code == 0);
  return run_command("cd " + dir + " && ./repro " + args);
}
}  // namespace

TEST_CASE("repro writes the sources, the case's inputs, the reference and the plan, and its program builds", "[cli][repro]") {
  const std::string dir = fresh_dir("repro-p0");
  const auto o = run_ladder("repro p0_three_buffers --set rows=4 --set d=300 --out " + dir);
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK(fs::file_size(dir + "/data/x.bin") == 4 * 300 * sizeof(float));
  CHECK(fs::file_size(dir + "/data/w.bin") == 300 * sizeof(float));
  CHECK(fs::file_size(dir + "/data/y.expected.f64") == 4 * 300 * sizeof(double));
  CHECK(fs::exists(dir + "/src/p0_three_buffers.cu"));
  std::ifstream inc(dir + "/case.inc");
  const std::string plan((std::istreambuf_iterator<char>(inc)), {});
  CHECK(plan.find("{\"x\", 4800, kInput") != std::string::npos);
  CHECK(plan.find("{5, 1, 1}, {256, 1, 1}") != std::string::npos);  // ceil_div(1200, 256) blocks
  // The inputs are the bytes the harness's child generates for this case.
  const auto lad = ladder::load_ladder(source_path("probes/ladder.json"));
  const ladder::Case shape{{"rows", 4}, {"d", 300}};
  const auto launches = ladder::isolate::plan_case(lad.rungs.front(), shape);
  const auto seed = ladder::mix_seed(launches.front().seed, ladder::shape_text(shape));
  const auto inputs = ladder::generate_inputs(launches.front().buffers, [&](const auto&) { return seed; });
  for (const auto& [name, bytes] : inputs) {
    std::ifstream in(dir + "/data/" + name + ".bin", std::ios::binary);
    const std::string file((std::istreambuf_iterator<char>(in)), {});
    INFO(name);
    CHECK(file == std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  const Outcome run = build_and_run(dir);
  INFO(run.output);
  CHECK(run.output.find("compiled p0_three_buffers for sm_") != std::string::npos);
  if (run.exit_code == 3) CHECK(run.output.find("compile stage above is all that ran") != std::string::npos);
  else CHECK(run.exit_code == 0);
}

TEST_CASE("a compile error reproduces without a GPU: the program prints NVRTC's log and exits 1", "[cli][repro]") {
  const std::string dir = fresh_dir("repro-compile");
  REQUIRE(run_ladder("repro st_compile_error --out " + dir).exit_code == 0);
  const Outcome run = build_and_run(dir);
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK(run.output.find("NVRTC failed to compile") != std::string::npos);
  CHECK(run.output.find("cannot be used to initialize") != std::string::npos);
}

TEST_CASE("repro refuses a folder in use, a case past the rung's, and an unknown symbol", "[cli][repro]") {
  const std::string dir = fresh_dir("repro-refuse");
  REQUIRE(run_ladder("repro p0_three_buffers --out " + dir).exit_code == 0);
  const auto again = run_ladder("repro p0_three_buffers --out " + dir);
  CHECK(again.exit_code == 2);
  CHECK(again.output.find("not empty") != std::string::npos);
  CHECK(run_ladder("repro p0_three_buffers --case 99 --out " + fresh_dir("r2")).output.find("past them") != std::string::npos);
  CHECK(run_ladder("repro p0_three_buffers --set q=1 --out " + fresh_dir("r3")).exit_code == 2);
  CHECK(run_ladder("repro no_such_rung --out " + fresh_dir("r4")).exit_code == 2);
  // A malformed value names the option it came from.
  const auto bad = run_ladder("repro p0_three_buffers --set rows=abc --out " + fresh_dir("r5"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--set 'rows=abc': expected an integer") != std::string::npos);
}

TEST_CASE("verify --write-ladder hands its rungs to repro and sweep: a backward case with two launches", "[cli][repro]") {
  const std::string ladder = temp_path("verify-ladder.json");
  const auto w = run_ladder("verify layernorm_bwd --dtype bf16 --no-fixtures --write-ladder " + ladder);
  INFO(w.output);
  REQUIRE(w.exit_code == 0);
  CHECK(run_ladder("list --ladder " + ladder).output.find("layernorm_bwd_bf16") != std::string::npos);
  // Every written rung keeps verify's child time (300 s, or --timeout's), which `ladder run`
  // then gives it in place of its own default.
  for (const auto& [timeout, expected] : {std::pair<std::string, double>{"", 300.0}, {" --timeout 45", 45.0}}) {
    REQUIRE(run_ladder("verify layernorm_bwd --dtype bf16 --no-fixtures" + timeout + " --write-ladder " + ladder).exit_code == 0);
    const auto written = read_json(ladder);
    REQUIRE(!written.at("rungs").empty());
    for (const auto& r : written.at("rungs")) CHECK(r.value("timeout_s", 0.0) == expected);
  }
  const std::string dir = fresh_dir("repro-bwd");
  REQUIRE(run_ladder("repro layernorm_bwd_bf16 --ladder " + ladder + " --set rows=83 --set d=769 --out " + dir).exit_code == 0);
  const Outcome run = build_and_run(dir);
  INFO(run.output);
  CHECK(run.output.find("compiled ladder::layernorm_bwd<") != std::string::npos);
  CHECK(run.output.find("compiled ladder::column_sum_pair<") != std::string::npos);  // the dgamma and dbeta reduces
  if (run.exit_code != 3) CHECK(run.exit_code == 0);
  const auto sweep = run_ladder("sweep layernorm_bwd_bf16 --ladder " + ladder + " --dim rows=1..2 --dim d=1..4 --compile-only");
  CHECK(sweep.exit_code == 0);
  CHECK(sweep.output.find("8 skipped") != std::string::npos);
}
