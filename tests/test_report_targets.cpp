// The report's "Against the targets" section: targets as data, judged from bench and peers
// documents; a malformed targets document is an error that names the target and the member.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/bench_markdown.h"
#include "harness/report/targets.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;
using nlohmann::json;

namespace {

// A bench result moving `bytes` in `cold_us` (hot and clean alike), against a 1000 GB/s ceiling.
json result(const std::string& op, long rows, long d, double bytes, double cold_us, const std::string& impl = "ladder") {
  return {{"op", op},       {"dtype", "bf16"},   {"rows", rows},          {"d", d},
          {"impl", impl},   {"bytes", bytes},    {"cold_us", cold_us},    {"hot_us", cold_us},
          {"cold_clean_us", cold_us}};
}

json bench_doc(json results) {
  return {{"commit", "abc1234"}, {"copy", {{"gbps", 1000.0}}}, {"results", std::move(results)}};
}

std::string render(const json& targets, const json& bench, const json& peers = json::object()) {
  return ladder::report::targets_markdown(ladder::report::parse_targets(targets), "t.json",
                                          {{"b.json", ladder::bench::annotate(bench)}}, peers,
                                          peers.empty() ? std::vector<std::string>{} : std::vector<std::string>{"p.json"});
}

void rejects(const json& targets, const std::string& fragment) {
  INFO(targets.dump());
  CHECK_THROWS_WITH(ladder::report::parse_targets(targets), has_substr(fragment));
}

}  // namespace

TEST_CASE("targets: each row judged against its bound, short rows by how much", "[report][targets]") {
  // 2e8 bytes at 1000 GB/s: 200 us is the whole ceiling; 210.5 us is 0.950 of it, 222.2 us 0.900.
  json first = result("rmsnorm", 100, 1024, 2e8, 210.5);
  first["copy_same_us"] = 208.4;  // a copy of the same bytes: 0.990 of this case's time
  const json bench = bench_doc({first, result("layernorm", 100, 1024, 2e8, 222.2),
                                result("rmsnorm", 100, 1024, 2e8, 400.0, "unfused add + rmsnorm"),
                                result("rmsnorm", 100, 2049, 2e8, 250.0), result("rmsnorm", 10, 1024, 2e6, 10.0)});
  const json targets = {{"targets",
                         {{{"text", "forward 0.93"},
                           {"metric", "cold_fraction"},
                           {"at_least", 0.93},
                           {"ops", {"rmsnorm", "layernorm"}},
                           {"d", {1024}},
                           {"min_bytes", 1.28e8}}}}};
  const std::string md = render(targets, bench);
  INFO(md);
  CHECK_THAT(md, has_substr("### forward 0.93: 1 of 2 reached (**short**)"));
  CHECK_THAT(md, has_substr("| rmsnorm | bf16 | 100×1024 | 200 | 0.950 | 0.990 | reached |"));
  CHECK_THAT(md, has_substr("| layernorm | bf16 | 100×1024 | 200 | 0.900 | — | **short** by 0.030 |"));
  // Other impls, other widths and working sets under min_bytes are not the target's rows.
  CHECK(md.find("400.0") == std::string::npos);
  CHECK(md.find("100×2049") == std::string::npos);
  CHECK(md.find("10×1024") == std::string::npos);
  CHECK_THAT(md, has_substr("`b.json` (commit abc1234, copy ceiling 1000 GB/s)"));
}

TEST_CASE("targets: a short row says what reaching it takes against a same-size copy", "[report][targets]") {
  // 250 us for 2e8 bytes is 0.800 of the 1000 GB/s ceiling; the same-size copy took 232.558 us,
  // 0.860 of it. 0.93 of the ceiling is 0.93 / 0.86 = 1.081 of that copy's rate: faster than it.
  json slow = result("rmsnorm", 100, 1024, 2e8, 250.0);
  slow["copy_same_us"] = 232.558;
  // 0.900 against a copy at 0.990: reaching 0.93 takes 0.939 of the copy's rate.
  json near = result("layernorm", 100, 1024, 2e8, 222.2);
  near["copy_same_us"] = 202.02;
  const json targets = {{"targets", {{{"text", "fwd"}, {"metric", "cold_fraction"}, {"at_least", 0.93}}}}};
  const std::string md = render(targets, bench_doc({slow, near}));
  INFO(md);
  CHECK_THAT(md, has_substr("| 0.800 | 0.930 | **short** by 0.130; reaching it takes 1.081 of a same-size copy's rate |"));
  CHECK_THAT(md, has_substr("| 0.900 | 0.909 | **short** by 0.030; reaching it takes 0.939 of a same-size copy's rate |"));
}

TEST_CASE("targets: a case the bench could not time counts as not reached", "[report][targets]") {
  json failed = result("rmsnorm", 100, 1024, 2e8, 0.0);
  failed.erase("cold_us");
  failed["error"] = "launch failed";
  const json bench = bench_doc({result("rmsnorm", 200, 1024, 2e8, 210.5), failed});
  const json targets = {{"targets", {{{"text", "fwd"}, {"metric", "cold_fraction"}, {"at_least", 0.93}}}}};
  const std::string md = render(targets, bench);
  INFO(md);
  CHECK_THAT(md, has_substr("### fwd: 1 of 2 reached (**short**)"));
  CHECK_THAT(md, has_substr("| rmsnorm | bf16 | 100×1024 | 200 | — | — | **not timed**: launch failed |"));
}

TEST_CASE("targets: every row reached reads as reached; a target no row matches is not judged", "[report][targets]") {
  const json bench = bench_doc({result("rmsnorm_bwd", 100, 1024, 2e8, 210.5)});
  const json targets = {{"targets",
                         {{{"text", "backward"}, {"metric", "cold_fraction"}, {"at_least", 0.75}, {"ops", {"rmsnorm_bwd"}}},
                          {{"text", "nothing here"}, {"metric", "cold_fraction"}, {"at_least", 0.75}, {"ops", {"layernorm_bwd"}}}}}};
  const std::string md = render(targets, bench);
  INFO(md);
  CHECK_THAT(md, has_substr("### backward: 1 of 1 reached\n"));
  CHECK_THAT(md, has_substr("### nothing here: **not judged**: no row of the documents matches it"));
  // A document that timed nothing (--resources) gives no rows.
  json resources = bench;
  resources["resources_only"] = true;
  const std::string none = ladder::report::targets_markdown(ladder::report::parse_targets(targets), "t.json",
                                                            {{"r.json", resources}}, json::object(), {});
  CHECK_THAT(none, has_substr("### backward: **not judged**"));
  CHECK_THAT(none, has_substr("no timed bench document"));
}

TEST_CASE("targets: ours against the fastest peer at each case, both flushes", "[report][targets]") {
  const json bench = bench_doc({result("add_rmsnorm", 512, 32768, 1e8, 40.0), result("rmsnorm", 512, 4096, 1e8, 50.0),
                                result("layernorm", 512, 4096, 1e8, 50.0)});
  const json peers = {{"peers",
                       {{{"op", "add_rmsnorm"}, {"dtype", "bf16"}, {"rows", 512}, {"d", 32768}, {"impl", "triton_row"},
                         {"us", 39.0}, {"us_clean", 41.0}},
                        {{"op", "add_rmsnorm"}, {"dtype", "bf16"}, {"rows", 512}, {"d", 32768}, {"impl", "torch_compile"},
                         {"us", 60.0}, {"us_clean", 58.0}},
                        {{"op", "rmsnorm"}, {"dtype", "bf16"}, {"rows", 512}, {"d", 4096}, {"impl", "torch_compile"},
                         {"us", 80.0}, {"us_clean", 79.0}}}}};
  const json targets = {{"targets", {{{"text", "peers"}, {"metric", "peers"}, {"at_most", 1.0}}}}};
  const std::string md = render(targets, bench, peers);
  INFO(md);
  CHECK_THAT(md, has_substr("### peers: 1 of 2 reached (**short**)"));
  CHECK_THAT(md, has_substr("| 40.00 | 39.00 (triton_row) | **behind by 2.6%** | 40.00 against 41.00 (triton_row): ahead by 2.4% |"));
  CHECK_THAT(md, has_substr("| 50.00 | 80.00 (torch_compile) | ahead by 37.5% |"));
  // A case no peer timed is not a peer row.
  CHECK(md.find("layernorm") == std::string::npos);
}

TEST_CASE("targets: several peers documents, each case against the fastest peer of any", "[report][targets]") {
  const json bench = bench_doc({result("add_rmsnorm", 512, 32768, 1e8, 40.0), result("rmsnorm", 512, 4096, 1e8, 50.0)});
  auto peer = [](const std::string& op, long d, const std::string& impl, double us) {
    return json{{"op", op}, {"dtype", "bf16"}, {"rows", 512}, {"d", d}, {"impl", impl}, {"us", us}, {"us_clean", us}};
  };
  const json older = {{"peers", {peer("add_rmsnorm", 32768, "triton_row", 41.0), peer("rmsnorm", 4096, "torch_compile", 45.0)}}};
  const json newer = {{"peers", {peer("add_rmsnorm", 32768, "triton_row", 39.0)}}};
  const json merged = ladder::merge_peer_documents({{"old.json", older}, {"new.json", newer}});
  REQUIRE(merged["peers"].size() == 3);
  CHECK(merged["peers"][2]["document"] == "new.json");
  const json targets = {{"targets", {{{"text", "peers"}, {"metric", "peers"}, {"at_most", 1.0}}}}};
  const std::string md = ladder::report::targets_markdown(ladder::report::parse_targets(targets), "t.json",
                                                          {{"b.json", ladder::bench::annotate(bench)}}, merged,
                                                          {"old.json", "new.json"});
  INFO(md);
  // The later document's faster Triton and the earlier document's torch.compile both count.
  CHECK_THAT(md, has_substr("| 40.00 | 39.00 (triton_row) | **behind by 2.6%** |"));
  CHECK_THAT(md, has_substr("| 50.00 | 45.00 (torch_compile) | **behind by 11.1%** |"));
  CHECK_THAT(md, has_substr("### peers: 0 of 2 reached (**short**)"));
  CHECK_THAT(md, has_substr("and `old.json`, `new.json`:"));
  // A row that is not an object is an error naming its document.
  CHECK_THROWS_WITH(ladder::merge_peer_documents({{"bad.json", json{{"peers", {7}}}}}), has_substr("bad.json: \"peers\": expected objects"));
  CHECK(ladder::merge_peer_documents({}).empty());
}

TEST_CASE("targets: judged elsewhere lists its rows and says where it is judged", "[report][targets]") {
  const json bench = bench_doc({result("rmsnorm", 1, 4096, 16384, 4.5)});
  const json targets = {{"targets",
                         {{{"text", "decode"}, {"metric", "elsewhere"}, {"judged_by", "Nsight Compute"},
                           {"rows", {1}}, {"d", {4096}}}}}};
  const std::string md = render(targets, bench);
  INFO(md);
  CHECK_THAT(md, has_substr("### decode: judged elsewhere: Nsight Compute"));
  CHECK_THAT(md, has_substr("| rmsnorm | bf16 | 1×4096 | 0.02 | 4.50 | 4.50 |"));
}

TEST_CASE("targets: a malformed document names the target and the member", "[report][targets]") {
  rejects(json::array(), "\"targets\" array");
  rejects({{"targets", json::array()}}, "\"targets\" is empty");
  rejects({{"targets", {7}}}, "targets[0]");
  rejects({{"targets", {{{"metric", "cold_fraction"}, {"at_least", 0.9}}}}}, "targets[0].text");
  rejects({{"targets", {{{"text", "x"}, {"metric", "speed"}}}}}, "targets[0].metric: expected cold_fraction, peers or elsewhere");
  rejects({{"targets", {{{"text", "x"}, {"metric", "cold_fraction"}}}}}, "targets[0].at_least");
  rejects({{"targets", {{{"text", "x"}, {"metric", "cold_fraction"}, {"at_least", "0.9"}}}}}, "targets[0].at_least: expected a number");
  rejects({{"targets", {{{"text", "x"}, {"metric", "cold_fraction"}, {"at_least", -1}}}}}, "targets[0].at_least");
  rejects({{"targets", {{{"text", "x"}, {"metric", "peers"}}}}}, "targets[0].at_most");
  rejects({{"targets", {{{"text", "x"}, {"metric", "elsewhere"}}}}}, "targets[0].judged_by");
  rejects({{"targets", {{{"text", "x"}, {"metric", "peers"}, {"at_most", 1}, {"at_least", 1}}}}}, "targets[0].at_least");
  rejects({{"targets", {{{"text", "x"}, {"metric", "peers"}, {"at_most", 1}, {"opz", {"a"}}}}}}, "targets[0].opz: unknown member");
  rejects({{"targets", {{{"text", "x"}, {"metric", "peers"}, {"at_most", 1}, {"ops", "rmsnorm"}}}}}, "targets[0].ops");
  rejects({{"targets", {{{"text", "x"}, {"metric", "peers"}, {"at_most", 1}, {"d", {1.5}}}}}}, "targets[0].d: expected integers");
  rejects({{"targets", {{{"text", "ok"}, {"metric", "peers"}, {"at_most", 1}},
                        {{"text", "x"}, {"metric", "peers"}, {"at_most", 1}, {"min_bytes", -1}}}}},
          "targets[1].min_bytes");
}

TEST_CASE("ladder report --targets puts the section first, and names a malformed targets file", "[report][targets][cli]") {
  const std::string bench = temp_path("targets-bench.json"), good = temp_path("targets-good.json"),
                    broken = temp_path("targets-broken.json"), out = temp_path("targets-report.md");
  std::ofstream(bench) << bench_doc({result("rmsnorm", 100, 1024, 2e8, 210.5)}).dump();
  std::ofstream(good) << json{{"targets", {{{"text", "fwd"}, {"metric", "cold_fraction"}, {"at_least", 0.93}}}}}.dump();
  std::ofstream(broken) << json{{"targets", {{{"text", "fwd"}, {"metric", "fast"}}}}}.dump();
  const Outcome ok = run_ladder("report --targets " + good + " --bench " + bench + " -o " + out);
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  std::ifstream in(out);
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto targets_at = md.find("## Against the targets"), bench_at = md.find("## Benchmarks");
  CHECK(targets_at != std::string::npos);
  CHECK(targets_at < bench_at);
  CHECK_THAT(md, has_substr("### fwd: 1 of 1 reached"));
  const Outcome bad = run_ladder("report --targets " + broken + " --bench " + bench + " -o " + out);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, has_substr(broken + ": targets[0].metric"));
}

TEST_CASE("the report's own targets document parses, and covers the issue's targets", "[report][targets]") {
  std::ifstream in(source_path("reports/h200/targets.json"));
  REQUIRE(in);
  const auto targets = ladder::report::parse_targets(json::parse(in));
  CHECK(targets.size() >= 5);
  int fractions = 0, peers = 0, elsewhere = 0;
  for (const auto& t : targets) {
    fractions += t.metric == ladder::report::TargetMetric::ColdFraction;
    peers += t.metric == ladder::report::TargetMetric::Peers;
    elsewhere += t.metric == ladder::report::TargetMetric::Elsewhere;
  }
  CHECK(fractions == 3);
  CHECK(peers == 1);
  CHECK(elsewhere == 1);
}

TEST_CASE("targets: a bench on a share of the SMs is refused, naming the document", "[report][targets]") {
  json bench = bench_doc({result("rmsnorm", 100, 1024, 2e8, 210.5)});
  bench["toolchain"] = {{"gpu", "H100"}, {"sm_count", 96}, {"device_sm_count", 132}, {"sms_asked", 96}};
  const json targets = {{"targets",
                         {{{"text", "forward 0.93"}, {"metric", "cold_fraction"}, {"at_least", 0.93},
                           {"ops", {"rmsnorm"}}, {"d", {1024}}, {"min_bytes", 1.28e8}}}}};
  CHECK_THROWS_WITH(render(targets, bench), has_substr("b.json: timed on 96 of the GPU's 132 SMs"));
  bench["toolchain"].erase("device_sm_count");  // the whole GPU: judged
  CHECK_THAT(render(targets, bench), has_substr("1 of 1 reached"));
}
