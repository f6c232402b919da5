// `ladder compare` on two bench documents: each case's times before and after, matched on op,
// dtype, shape, implementation and variant (or across variants), and the launches whose registers
// or memory moved.
#include <filesystem>

#include "harness/report/bench_compare.h"
#include "harness/report/run_document.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using nlohmann::json;
using namespace ladder_test;

namespace {
json result(const std::string& op, long long d, double cold, json variant = json::object()) {
  return {{"type", "result"}, {"op", op}, {"dtype", "bf16"}, {"rows", 4096}, {"d", d}, {"impl", "ladder"},
          {"variant", variant}, {"cold_us", cold}, {"hot_us", cold * 0.9}};
}
json bench(double copy) {
  return {{"tool", "ladder-bench"}, {"date", "2026-12-04"}, {"commit", "abc"}, {"copy", {{"gbps", copy}}},
          {"results", json::array()}};
}
// `doc` written to a temporary file of this name; its path.
std::string written(const std::string& name, const json& doc) {
  const std::string path = temp_path(name);
  ladder::write_file_atomic(path, doc.dump());
  return path;
}
const ladder::BenchChange& find(const std::vector<ladder::BenchChange>& v, const std::string& op, long long d,
                                const std::string& variant = "") {
  for (const auto& c : v)
    if (c.op == op && c.d == d && c.variant == variant) return c;
  throw std::out_of_range(op);
}
}  // namespace

TEST_CASE("compare matches bench cases and gives each its times before and after", "[compare]") {
  json a = bench(4200), b = bench(4210);
  a["results"] = {result("rmsnorm", 4096, 70.0), result("rmsnorm", 4096, 80.0, {{"loop_passes", "2"}}),
                  result("layernorm", 4096, 72.0), result("layernorm", 8192, 75.0)};
  b["results"] = {result("rmsnorm", 4096, 63.0), result("rmsnorm", 4096, 81.0, {{"loop_passes", "2"}}),
                  result("layernorm", 4096, 0.0), result("add_rmsnorm", 4096, 128.0)};
  b["results"][2]["error"] = "CUDA_ERROR_ILLEGAL_ADDRESS";
  a["results"][0]["kernels"] = {{{"entry", "ladder::k<1>"}, {"registers", 40}, {"local_bytes", 0},
                                 {"static_shared_bytes", 256}, {"blocks_per_sm", 12}}};
  b["results"][0]["kernels"] = {{{"entry", "ladder::k<1>"}, {"registers", 48}, {"local_bytes", 16},
                                 {"static_shared_bytes", 256}, {"blocks_per_sm", 10}}};
  const auto changes = ladder::compare_benches(a, b);
  REQUIRE(changes.size() == 5);
  const auto& faster = find(changes, "rmsnorm", 4096);
  CHECK(*faster.cold_after / *faster.cold_before == Approx(0.9));
  CHECK_FALSE(faster.lost());
  REQUIRE(faster.resource_changes.size() == 1);
  CHECK(faster.resource_changes[0] == "ladder::k<1>: registers 40 -> 48, local 0 -> 16 B, blocks/SM 12 -> 10");
  // The variant keeps its own row.
  CHECK(*find(changes, "rmsnorm", 4096, "loop_passes=2").cold_after == Approx(81.0));
  CHECK(find(changes, "layernorm", 4096).lost());  // timed before, an error after
  CHECK(find(changes, "layernorm", 8192).lost());  // timed before, absent after
  CHECK_FALSE(find(changes, "add_rmsnorm", 4096).lost());  // new: nothing lost
  const std::string table = ladder::bench_compare_table(changes, a, b);
  CHECK(table.find("copy ceiling 4200 GB/s") != std::string::npos);
  CHECK(table.find("kernel sources") == std::string::npos);  // documents without them
  // Documents that name their kernel sources show them; the same tree twice is pointed out.
  a["kernels"] = {{"dir", "/k"}, {"from_env", false}, {"digest", "0123456789abcdef0123456789abcdef"}};
  b["kernels"] = {{"dir", "/t"}, {"from_env", true}, {"digest", "fedcba9876543210fedcba9876543210"}};
  const std::string named = ladder::bench_compare_table(changes, a, b);
  CHECK(named.find("kernel sources `/k`, digest 0123456789ab") != std::string::npos);
  CHECK(named.find("kernel sources `/t` (LADDER_KERNELS_DIR), digest fedcba987654") != std::string::npos);
  CHECK(named.find("same kernel sources") == std::string::npos);
  b["kernels"]["digest"] = a["kernels"]["digest"];
  b["commit"] = a.value("commit", "");
  CHECK(ladder::bench_compare_table(changes, a, b).find("note: both runs compiled the same kernel sources") !=
        std::string::npos);
  CHECK(table.find("70.00 -> 63.00 (0.900)") != std::string::npos);
  CHECK(table.find("ladder [loop_passes=2]") != std::string::npos);
  CHECK(table.find("LOST: CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);
  CHECK(table.find("5 cases compared, 2 timed before and not after, 1 with launches") != std::string::npos);
}

TEST_CASE("compare points out runs on different shares of the SMs, and is silent on equal ones", "[compare]") {
  json a = bench(4200), b = bench(3000);
  a["results"] = {result("layernorm", 4096, 72.0)};
  b["results"] = {result("layernorm", 4096, 75.0)};
  const auto changes = ladder::compare_benches(a, b);
  CHECK(ladder::bench_compare_table(changes, a, b).find("shares of the SMs") == std::string::npos);
  b["toolchain"] = {{"gpu", "H100"}, {"sm_count", 96}, {"device_sm_count", 132}, {"sms_asked", 92}, {"sms_seen", 96}};
  const std::string table = ladder::bench_compare_table(changes, a, b);
  CHECK_THAT(table, has_substr("note: the runs had different shares of the SMs: before the whole GPU; after timed on 96 "
                               "of the GPU's 132 SMs"));
  a["toolchain"] = b["toolchain"];  // the same share both times: nothing to point out
  CHECK(ladder::bench_compare_table(changes, a, b).find("shares of the SMs") == std::string::npos);
}

TEST_CASE("ladder compare takes two bench documents, exits 1 when a case is lost, 2 for a mixed pair",
          "[compare][cli]") {
  json a = bench(4200), b = bench(4200);
  a["results"] = {result("rmsnorm", 4096, 70.0)};
  b["results"] = {result("rmsnorm", 4096, 71.0)};
  const std::string pa = written("bench-a.json", a), pb = written("bench-b.json", b),
                    run = written("a-run.json", ladder::to_json(ladder::RunDocument{}));
  b["results"][0]["error"] = "timeout";
  const std::string pc = written("bench-c.json", b);
  const auto same = run_ladder("compare " + pa + " " + pb);
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(same.output.find("70.00 -> 71.00 (1.014)") != std::string::npos);
  CHECK(run_ladder("compare " + pa + " " + pc).exit_code == 1);
  const auto mixed = run_ladder("compare " + pa + " " + run);
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.output.find(run + ": not a bench document") != std::string::npos);
  // A directory where a document was expected: named as such, a usage error.
  const std::string dir = temp_path("compare-dir");
  std::filesystem::create_directories(dir);
  const auto folder = run_ladder("compare " + dir + " " + pa);
  CHECK(folder.exit_code == 2);
  CHECK(folder.output.find(dir + ": a directory, not a JSON document") != std::string::npos);
}

TEST_CASE("compare across variants lines up one schedule against another on the same shapes", "[compare]") {
  json a = bench(4200), b = bench(4200);
  a["results"] = {result("layernorm", 16384, 72.5), result("layernorm", 32768, 81.4)};
  b["results"] = {result("layernorm", 16384, 70.0, {{"loop_passes", "2"}, {"schedule", "loop"}}),
                  result("layernorm", 32768, 81.4)};
  // Matched on the variant, nothing of the first shape lines up.
  const auto apart = ladder::compare_benches(a, b);
  CHECK(apart.size() == 3);
  const auto across = ladder::compare_benches(a, b, true);
  REQUIRE(across.size() == 2);
  const auto& c = find(across, "layernorm", 16384, "loop_passes=2,schedule=loop");
  REQUIRE(c.variant_before);
  CHECK(c.variant_before->empty());
  CHECK(*c.cold_after / *c.cold_before == Approx(70.0 / 72.5));
  CHECK_FALSE(find(across, "layernorm", 32768).variant_before);  // the same variant both sides
  const std::string table = ladder::bench_compare_table(across, a, b);
  CHECK(table.find("ladder [auto -> loop_passes=2,schedule=loop]") != std::string::npos);
  CHECK(table.find("72.50 -> 70.00 (0.966)") != std::string::npos);
  // Two cases of one shape in a run: which to match would be a guess.
  b["results"].push_back(result("layernorm", 16384, 71.0));
  CHECK_THROWS_WITH(ladder::compare_benches(a, b, true),
                    has_substr("the second run has two cases of layernorm bf16 4096x16384"));
}

TEST_CASE("ladder compare --across-variants: bench documents only", "[compare][cli]") {
  json a = bench(4200), b = bench(4200);
  a["results"] = {result("rmsnorm", 4096, 70.0)};
  b["results"] = {result("rmsnorm", 4096, 66.5, {{"schedule", "loop"}})};
  const std::string pa = written("across-a.json", a), pb = written("across-b.json", b),
                    run = written("across-run.json", ladder::to_json(ladder::RunDocument{}));
  const auto lined = run_ladder("compare --across-variants " + pa + " " + pb);
  INFO(lined.output);
  CHECK(lined.exit_code == 0);
  CHECK(lined.output.find("70.00 -> 66.50 (0.950)") != std::string::npos);
  // Without the flag the case is lost (timed in the first run only): exit 1.
  CHECK(run_ladder("compare " + pa + " " + pb).exit_code == 1);
  const auto runs = run_ladder("compare --across-variants " + run + " " + run);
  CHECK(runs.exit_code == 2);
  CHECK(runs.output.find("--across-variants compares bench documents") != std::string::npos);
}

TEST_CASE("compare by fractions: each case against its own run's copy ceiling, for runs on other cards",
          "[compare]") {
  json a = bench(4200), b = bench(3000);
  a["toolchain"] = {{"gpu", "NVIDIA H200"}};
  b["toolchain"] = {{"gpu", "NVIDIA H100 80GB HBM3"}, {"sm_count", 96}, {"device_sm_count", 132},
                    {"sms_asked", 96}, {"sms_seen", 96}};
  // 268435456 bytes: 4200 GB/s * 0.894 takes 71.49 us; 3000 GB/s * 0.925, 96.74 us. The second run
  // stores its fraction, the first leaves it to be worked out from its bytes and its ceiling.
  a["results"] = {result("layernorm", 16384, 268435456.0 / (4200e3 * 0.894))};
  b["results"] = {result("layernorm", 16384, 96.74)};
  a["results"][0]["bytes"] = 268435456.0;
  b["results"][0]["cold_fraction"] = 0.925;
  b["results"][0]["hot_fraction"] = 0.95;
  const auto changes = ladder::compare_benches(a, b);
  const auto& c = find(changes, "layernorm", 16384);
  REQUIRE(c.cold_fraction_before);
  CHECK(*c.cold_fraction_before == Approx(0.894));
  CHECK(*c.cold_fraction_after == Approx(0.925));
  CHECK(*c.hot_fraction_before == Approx(0.894 / 0.9));  // hot_us is cold_us * 0.9
  const std::string by_time = ladder::bench_compare_table(changes, a, b);
  CHECK_THAT(by_time, has_substr("note: the runs are on different GPUs (NVIDIA H200 and NVIDIA H100 80GB HBM3)"));
  CHECK_THAT(by_time, has_substr("note: --fractions compares each case's fraction"));
  const std::string by_fraction = ladder::bench_compare_table(changes, a, b, ladder::CompareBy::Fraction);
  CHECK_THAT(by_fraction, has_substr("cold / copy before -> after"));
  CHECK_THAT(by_fraction, has_substr("0.894 -> 0.925 (+0.031)"));
  CHECK_THAT(by_fraction, has_substr("0.993 -> 0.950 (-0.043)"));
  CHECK(by_fraction.find("note: --fractions") == std::string::npos);  // already compared so
  // A case without its bytes, in a document without its fraction: no figure rather than a wrong one.
  a["results"][0].erase("bytes");
  const auto bare = ladder::compare_benches(a, b);
  CHECK_FALSE(find(bare, "layernorm", 16384).cold_fraction_before);
  CHECK_THAT(ladder::bench_compare_table(bare, a, b, ladder::CompareBy::Fraction), has_substr("- -> 0.925"));
  // One card, one share: no note.
  b["toolchain"] = a["toolchain"];
  CHECK(ladder::bench_compare_table(changes, a, b).find("note: ") == std::string::npos);
}

TEST_CASE("ladder compare --fractions: bench documents only", "[compare][cli]") {
  json a = bench(4200), b = bench(3000);
  a["results"] = {result("rmsnorm", 4096, 70.0)};
  b["results"] = {result("rmsnorm", 4096, 90.0)};
  a["results"][0]["cold_fraction"] = 0.91;
  b["results"][0]["cold_fraction"] = 0.93;
  const std::string pa = written("fractions-a.json", a), pb = written("fractions-b.json", b),
                    run = written("fractions-run.json", ladder::to_json(ladder::RunDocument{}));
  const auto out = run_ladder("compare --fractions " + pa + " " + pb);
  INFO(out.output);
  CHECK(out.exit_code == 0);
  CHECK_THAT(out.output, has_substr("0.910 -> 0.930 (+0.020)"));
  const auto runs = run_ladder("compare --fractions " + run + " " + run);
  CHECK(runs.exit_code == 2);
  CHECK_THAT(runs.output, has_substr("--fractions compares bench documents"));
}
