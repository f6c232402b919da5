// The CLI end to end, device-independent: --compile-only never touches a GPU, so these give the
// same answers on the CPU machine and on the H200.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "harness/toolchain/nvrtc.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;

TEST_CASE("run --compile-only: the selftest's compile error is XFAIL (compile), the rest compile", "[cli]") {
  const std::string json = temp_path("selftest.json");
  const auto o = run_ladder("run --compile-only --ladder " + source_path("probes/selftest.json") + " --json " + json);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  const auto doc = read_json(json);
  const auto* compile = rung(doc, "st_compile_error");
  REQUIRE(compile != nullptr);
  CHECK(compile->at("verdict") == "XFAIL");
  CHECK(compile->at("reason") == "compile");
  CHECK(compile->at("nvrtc_log").get<std::string>().find("error") != std::string::npos);
  for (const auto& r : doc.at("rungs")) {
    if (r.at("name") == "st_compile_error") continue;
    CHECK(r.at("verdict") == "SKIPPED");  // compiled; GPU stages not run
    CHECK(r.at("stage") == "image");
  }
  CHECK(doc.at("counts").at("SKIPPED") == doc.at("rungs").size() - 1);
  CHECK(doc.at("toolchain").at("nvrtc_version").get<std::string>().size() >= 3);
  CHECK(o.output.find("SKIPPED") != std::string::npos);
}

TEST_CASE("run --compile-only compiles every rung of both built-in ladders", "[cli]") {
  const std::string json = temp_path("both.json");
  const auto o = run_ladder("run --compile-only --jobs 2 --json " + json);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  const auto doc = read_json(json);
  std::size_t compiled = 0, with_resources = 0, without = 0;
  for (const auto& r : doc.at("rungs")) {
    if (r.at("name") == "st_compile_error") continue;
    CHECK(r.at("verdict") == "SKIPPED");
    CHECK(r.at("stage") == "image");
    ++compiled;
    // Each compiled kernel's registers and memory, read from its cubin, for `ladder compare`;
    // a PTX source (st_load_error) has none.
    without += r.value("images", nlohmann::json::array()).empty() ? 1 : 0;
    for (const auto& i : r.value("images", nlohmann::json::array())) {
      INFO(r.at("name") << ": " << i.dump());
      CHECK_FALSE(i.at("entry").get<std::string>().empty());  // which kernel, for compare to match
      CHECK(i.at("registers").get<int>() > 0);
      CHECK(i.at("local_bytes").get<int>() >= 0);
      ++with_resources;
    }
  }
  CHECK(with_resources >= compiled - 1);
  CHECK(without == 1);
  CHECK(compiled >= 20);
  CHECK(doc.at("counts").at("UNRESOLVED") == 0);
}

TEST_CASE("the memcheck demo compiles, and --bare-allocations reaches the document and the table", "[cli]") {
  const std::string json = temp_path("memcheck-demo.json");
  const auto o = run_ladder("run --compile-only --bare-allocations --ladder " + source_path("probes/memcheck_demo.json") +
                            " --json " + json);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  const auto doc = read_json(json);
  CHECK(doc.at("options").at("bare_allocations") == true);
  const auto* demo = rung(doc, "st_reads_past_end");
  REQUIRE(demo != nullptr);
  CHECK(demo->at("verdict") == "SKIPPED");
  CHECK(demo->at("stage") == "image");
  CHECK(o.output.find("bare allocations: no redzones") != std::string::npos);
  // Without the flag the document says so too, and the table carries no such line.
  const auto plain = run_ladder("run --compile-only --ladder " + source_path("probes/memcheck_demo.json") + " --json " + json);
  CHECK(read_json(json).at("options").at("bare_allocations") == false);
  CHECK(plain.output.find("bare allocations") == std::string::npos);
}

TEST_CASE("the synccheck demo's two kernels compile through NVRTC", "[cli]") {
  const std::string json = temp_path("synccheck-demo.json");
  const auto o = run_ladder("run --compile-only --ladder " + source_path("probes/synccheck_demo.json") + " --json " + json);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  const auto doc = read_json(json);
  CHECK(doc.at("rungs").size() == 2);
  for (const char* name : {"st_barrier_skipped", "st_barrier_divergent"}) {
    const auto* demo = rung(doc, name);
    REQUIRE(demo != nullptr);
    CHECK(demo->at("verdict") == "SKIPPED");
    CHECK(demo->at("stage") == "image");
  }
}

TEST_CASE("a repeatable option takes one value a flag, so a kernel or rung named after it is not swallowed", "[cli]") {
  // bench: the op after --shape is the op timed, not a second shape.
  const std::string json = temp_path("one-value-bench.json");
  const auto bench = run_ladder("bench --resources --dtype bf16 --shape 64x4096 rmsnorm --variant items=4 layernorm --json " + json);
  INFO(bench.output);
  REQUIRE(bench.exit_code == 0);
  std::set<std::string> ops;
  const auto doc = read_json(json);
  for (const auto& c : doc.at("results")) ops.insert(c.at("op").get<std::string>());
  CHECK(ops == std::set<std::string>{"rmsnorm", "layernorm"});
  // Two values after one flag: the second is a positional, and an unknown kernel says so.
  const auto two = run_ladder("bench --resources --dtype bf16 --shape 64x4096 128x4096 rmsnorm");
  CHECK(two.exit_code == 2);
  CHECK(two.output.find("unknown kernel '128x4096'") != std::string::npos);
  // verify: the op after --fixtures FILE is the op verified.
  const std::string vjson = temp_path("one-value-verify.json");
  const auto verify = run_ladder("verify --compile-only --fixtures-only --fixtures " + source_path("fixtures/rmsnorm.json") +
                                 " rmsnorm --dtype f32 --json " + vjson);
  INFO(verify.output);
  REQUIRE(verify.exit_code == 0);
  const auto rungs = read_json(vjson).at("rungs");
  CHECK(!rungs.empty());
  for (const auto& r : rungs) CHECK(r.at("name").get<std::string>().rfind("fixture_", 0) == 0);
  // sweep: the rung after --dim is the rung swept.
  const auto sweep = run_ladder("sweep --dim d=1..2 p0_three_buffers --compile-only");
  INFO(sweep.output);
  CHECK(sweep.exit_code == 0);
}

TEST_CASE("a warm compile cache reports hits", "[cli]") {
  const std::string cache = temp_path("cache");
  const std::string args = "run --compile-only --cache-dir " + cache + " p0_three_buffers --json ";
  run_ladder(args + temp_path("cold.json"));
  run_ladder(args + temp_path("warm.json"));
  const auto cold = read_json(temp_path("cold.json")), warm = read_json(temp_path("warm.json"));
  CHECK(rung(cold, "p0_three_buffers")->at("cache_hit") == false);
  CHECK(rung(warm, "p0_three_buffers")->at("cache_hit") == true);
}

TEST_CASE("a malformed manifest is a harness error naming file and path", "[cli]") {
  const std::string bad = temp_path("bad.json");
  std::ofstream(bad) << R"({"rungs": [{"name": "a", "source": "x.cu", "entry": "k", "cases": [{"d": "four"}]}]})";
  const auto o = run_ladder("run --ladder " + bad);
  CHECK(o.exit_code == 2);
  CHECK(o.output.find(bad) != std::string::npos);
  CHECK(o.output.find("/rungs/0/cases/0/d") != std::string::npos);
}

TEST_CASE("a missing source file is UNRESOLVED, not a crash or a pass", "[cli]") {
  const std::string m = temp_path("missing.json");
  std::ofstream(m) << R"({"rungs": [{"name": "a", "source": "no_such.cu", "entry": "k", "cases": [{"d": 4}]}]})";
  const std::string json = temp_path("missing-out.json");
  const auto o = run_ladder("run --compile-only --ladder " + m + " --json " + json);
  CHECK(o.exit_code == 2);
  const auto doc = read_json(json);
  const auto* r = rung(doc, "a");
  REQUIRE(r != nullptr);
  CHECK(r->at("verdict") == "UNRESOLVED");
  CHECK(r->at("evidence").get<std::string>().find("no_such.cu") != std::string::npos);
}

TEST_CASE("an unknown rung glob is a usage error", "[cli]") {
  const auto o = run_ladder("run --compile-only no_such_rung_*");
  CHECK(o.exit_code == 2);
  CHECK(o.output.find("no rung matches") != std::string::npos);
  CHECK(o.output.find("--ladder") == std::string::npos);
}

TEST_CASE("a manifest path given as a rung glob is pointed at --ladder", "[cli]") {
  const auto o = run_ladder("run --compile-only " + source_path("probes/sweep_demo.json"));
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.output, ladder_test::has_substr("sweep_demo.json' (a manifest is given with --ladder FILE)"));
}

TEST_CASE("rung names may follow --ladder, which takes one path each time", "[cli]") {
  const std::string json = temp_path("cli-names-after-ladder.json");
  const auto o = run_ladder("run --compile-only --ladder " + source_path("probes/selftest.json") +
                            " --ladder " + source_path("probes/ladder.json") +
                            " st_crash p0_three_buffers --json " + json);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  const auto doc = read_json(json);
  REQUIRE(doc.at("rungs").size() == 2);
  CHECK(rung(doc, "st_crash") != nullptr);
  CHECK(rung(doc, "p0_three_buffers") != nullptr);
}

TEST_CASE("git-bisect mode maps a toolchain problem to skip (125)", "[cli]") {
  // An NVRTC that cannot be opened is a toolchain problem, not a bad commit.
  const auto o = run_ladder("run --compile-only --git-bisect --nvrtc /no/such/libnvrtc.so p0_three_buffers");
  INFO(o.output);
  CHECK(o.exit_code == 125);
}

TEST_CASE("list shows every rung with what it adds", "[cli]") {
  const auto o = run_ladder("list");
  CHECK(o.exit_code == 0);
  CHECK(o.output.find("p9_tree_no_barrier") != std::string::npos);
  CHECK(o.output.find("expect mismatch") != std::string::npos);
}

TEST_CASE("a --dtype no kernel has is a usage error, and fp16 means f16", "[cli]") {
  for (const char* cmd : {"verify --compile-only --dtype fp16x rmsnorm", "bench --dtype half16 rmsnorm"}) {
    const auto o = run_ladder(cmd);
    INFO(cmd << "\n" << o.output);
    CHECK(o.exit_code == 2);
    CHECK(o.output.find("expected f32, f16 or bf16") != std::string::npos);
  }
  // The manifests' spelling selects the same rungs as the label.
  const auto fp16 = run_ladder("verify --compile-only --quick --no-fixtures --dtype fp16 layernorm");
  const auto f16 = run_ladder("verify --compile-only --quick --no-fixtures --dtype f16 layernorm");
  INFO(fp16.output);
  CHECK(fp16.exit_code == 0);
  CHECK(fp16.output.find("layernorm_f16") != std::string::npos);
  CHECK(fp16.output.find("layernorm_bf16") == std::string::npos);
  CHECK(std::count(fp16.output.begin(), fp16.output.end(), '\n') ==
        std::count(f16.output.begin(), f16.output.end(), '\n'));
}

TEST_CASE("bench: a bad --shape is a usage error that says what is wrong", "[cli]") {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"0x4096", "at least 1"},        {"16x0", "at least 1"},     {"-4x4096", "at least 1"},
      {"4096", "ROWSxD"},              {"16x4096abc", "ROWSxD"},   {"x4096", "ROWSxD"},
      {"3000000000x8", "at most 2147483647"}};
  for (const auto& [shape, says] : bad) {
    const auto o = run_ladder("bench rmsnorm --shape " + shape);
    INFO(shape << ": " << o.output);
    CHECK(o.exit_code == 2);
    CHECK(o.output.find("--shape '" + shape + "'") != std::string::npos);
    CHECK(o.output.find(says) != std::string::npos);
  }
}

TEST_CASE("bench --sms: a whole number of SMs, and only where something is timed", "[cli]") {
  for (const char* bad : {"bench rmsnorm --sms 0", "bench rmsnorm --sms -4", "bench rmsnorm --sms many"}) {
    const auto o = run_ladder(bad);
    INFO(bad << ": " << o.output);
    CHECK(o.exit_code != 0);
    CHECK(o.output.find("--sms") != std::string::npos);
  }
  const auto resources = run_ladder("bench rmsnorm --resources --sms 96");
  INFO(resources.output);
  CHECK(resources.exit_code == 2);
  CHECK(resources.output.find("--resources times nothing") != std::string::npos);
  const auto every = run_ladder("bench --resources --every-build --sms 96");
  INFO(every.output);
  CHECK(every.exit_code == 2);
  CHECK(every.output.find("--every-build takes every build") != std::string::npos);
}

TEST_CASE("arch_number reads the arch spellings the compiler and --arch take, and no other", "[cli]") {
  using ladder::toolchain::arch_number;
  CHECK(arch_number("sm_90") == "90");
  CHECK(arch_number("sm_90a") == "90a");
  CHECK(arch_number("compute_80") == "80");
  CHECK(arch_number("sm_100f") == "100f");
  for (const char* bad : {"90", "sm90", "sm_9", "sm_9000", "sm_90x", "compute90", "foo", "", " sm_90"})
    CHECK_FALSE(arch_number(bad));
}

TEST_CASE("--arch takes a GPU arch, and a typo is a usage error rather than every rung failing", "[cli]") {
  for (const char* cmd : {"bench rmsnorm --resources --arch foo", "bench rmsnorm --resources --arch 90",
                          "run --compile-only --arch sm90", "verify --compile-only --quick --arch compute90 rmsnorm"}) {
    const auto o = run_ladder(cmd);
    INFO(cmd << ": " << o.output);
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.output, has_substr("--arch: expected an arch such as sm_90"));
  }
  // The compiler's other spelling of an arch is an arch too.
  const auto virt = run_ladder("bench rmsnorm --dtype bf16 --shape 64x1024 --resources --arch compute_90");
  INFO(virt.output);
  CHECK(virt.exit_code == 0);
  CHECK_THAT(virt.output, has_substr("ladder::rmsnorm_fwd_decode<__nv_bfloat16>"));
}

TEST_CASE("bench --resources: a launch that does not compile is the case's error; no compiler is UNRESOLVED",
          "[cli]") {
  // sm_99 is spelled as an arch but no NVRTC compiles for it: the case says which launch failed.
  const auto bad_arch = run_ladder("bench rmsnorm --dtype bf16 --shape 64x1024 --resources --arch sm_99");
  INFO(bad_arch.output);
  CHECK(bad_arch.exit_code == 1);
  CHECK_THAT(bad_arch.output, has_substr("did not compile for sm_99"));
  // No compiler at all: the harness cannot judge any case (exit 2), not a failure of each.
  const auto no_nvrtc =
      run_ladder("bench rmsnorm --dtype bf16 --shape 64x1024 --resources --nvrtc /nonexistent/libnvrtc.so");
  INFO(no_nvrtc.output);
  CHECK(no_nvrtc.exit_code == 2);
  CHECK_THAT(no_nvrtc.output, has_substr("UNRESOLVED: NVRTC unavailable"));
}

TEST_CASE("bench: a dtype the default list lacks needs --shape, and is then timed", "[cli]") {
  // rmsnorm f16 is not in the default list: without shapes there is nothing to time, said so.
  const auto none = run_ladder("bench rmsnorm --dtype f16");
  INFO(none.output);
  CHECK(none.exit_code == 2);
  CHECK(none.output.find("no case to time") != std::string::npos);
  // With --shape it is a case (here skipped for want of a GPU, or timed on one): not an error.
  const auto shaped = run_ladder("bench rmsnorm --dtype f16 --shape 64x1024");
  INFO(shaped.output);
  CHECK(shaped.exit_code != 2);
  CHECK(shaped.output.find("no case to time") == std::string::npos);
}

TEST_CASE("verify --worst-from reprints a finished run's worst-error tables, and names a bad file", "[cli]") {
  const std::string doc = ladder_test::temp_path("verify-worst.json");
  const auto run = ladder_test::run_ladder("verify rmsnorm --dtype f32 --quick --no-fixtures --compile-only --json " + doc);
  REQUIRE(run.exit_code == 0);
  const auto table = ladder_test::run_ladder("verify --worst-from " + doc);
  INFO(table.output);
  CHECK(table.exit_code == 0);
  CHECK(table.output.find("rmsnorm_f32\n") != std::string::npos);
  CHECK(table.output.find("skip") != std::string::npos);  // compile-only: every case skipped
  CHECK(table.output.find("rmsnorm_f16") == std::string::npos);
  const std::string bad = ladder_test::temp_path("not-a-run.json");
  { std::ofstream(bad) << "{\"x\": 1}"; }
  const auto refused = ladder_test::run_ladder("verify --worst-from " + bad);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find(bad) != std::string::npos);
  // A ladder run's document is a run document too, but has no grid to tabulate.
  const std::string ladder_doc = ladder_test::temp_path("ladder-run.json");
  REQUIRE(ladder_test::run_ladder("run --compile-only p0_three_buffers --json " + ladder_doc).exit_code == 0);
  const auto not_verify = ladder_test::run_ladder("verify --worst-from " + ladder_doc);
  CHECK(not_verify.exit_code == 2);
  CHECK(not_verify.output.find("not of ladder verify") != std::string::npos);
}

TEST_CASE("results never overwrite the command's own inputs", "[cli]") {
  const std::string manifest = temp_path("cli-own-input.json");
  std::filesystem::copy_file(source_path("probes/selftest.json"), manifest,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string before = read_json(manifest).dump();
  for (const std::string option : {"--json", "--junit", "--trace"}) {
    INFO(option);
    const auto o = run_ladder("run --compile-only --ladder " + manifest + " " + option + " " + manifest);
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.output, ladder_test::has_substr(option + " " + manifest + " is an input of this command"));
  }
  const auto sweep = run_ladder("sweep st_off_by_one --dim d=1..2 --compile-only --ladder " + manifest + " --json " + manifest);
  CHECK(sweep.exit_code == 2);
  CHECK_THAT(sweep.output, ladder_test::has_substr("is an input of this command"));
  const auto bisect = run_ladder("bisect --compile-only --ladder " + manifest + " --json " + manifest);
  CHECK(bisect.exit_code == 2);
  CHECK_THAT(bisect.output, ladder_test::has_substr("is an input of this command"));
  const std::string fixture = temp_path("cli-own-fixture.json");
  std::filesystem::copy_file(source_path("fixtures/layernorm.json"), fixture,
                             std::filesystem::copy_options::overwrite_existing);
  const auto verify = run_ladder("verify layernorm --fixtures-only --compile-only --fixtures " + fixture + " --json " + fixture);
  CHECK(verify.exit_code == 2);
  CHECK_THAT(verify.output, ladder_test::has_substr("is an input of this command"));
  CHECK(read_json(manifest).dump() == before);  // untouched
}

