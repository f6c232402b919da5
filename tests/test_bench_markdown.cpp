// The bench document's derived figures: GB/s and the fractions of the ceiling and of a
// same-size copy, computed from the times the child measured.
#include "harness/report/bench_markdown.h"

#include "tests/catch.h"

using namespace ladder_test;
using nlohmann::json;

namespace {
json document() {
  json doc;
  doc["copy"] = {{"gbps", 4000.0}};
  doc["results"] = json::array();
  // 300 MB in 100 us cold: 3000 GB/s, 0.75 of the ceiling; a 90 us copy of the same bytes.
  doc["results"].push_back({{"op", "rmsnorm"}, {"dtype", "bf16"}, {"rows", 8}, {"d", 8}, {"impl", "ladder"},
                            {"bytes", 3.0e8}, {"cold_us", 100.0}, {"hot_us", 80.0}, {"copy_same_us", 90.0}});
  // No same-size copy timed: no fraction of it.
  doc["results"].push_back({{"op", "layernorm"}, {"dtype", "f32"}, {"rows", 8}, {"d", 8}, {"impl", "ladder"},
                            {"bytes", 4.0e8}, {"cold_us", 200.0}, {"hot_us", 200.0}});
  return doc;
}
}  // namespace

TEST_CASE("bench annotate derives GB/s and both fractions from the measured times", "[bench]") {
  const json doc = ladder::bench::annotate(document());
  const auto& a = doc["results"][0];
  CHECK(a["cold_gbps"].get<double>() == Approx(3000.0));
  CHECK(a["hot_gbps"].get<double>() == Approx(3750.0));
  CHECK(a["cold_fraction"].get<double>() == Approx(0.75));
  CHECK(a["cold_of_same_size_copy"].get<double>() == Approx(0.9));
  CHECK_FALSE(doc["results"][1].contains("cold_of_same_size_copy"));
}

TEST_CASE("bench tables show the same-size copy's fraction, or a dash where none was timed", "[bench]") {
  const json doc = ladder::bench::annotate(document());
  const std::string md = ladder::bench_markdown(doc, "bench.json", json::object());
  CHECK(md.find("| 0.750 | 0.938 | 0.900 |") != std::string::npos);
  CHECK(md.find("| 1.000 | 1.000 | — |") == std::string::npos);  // 0.5 of the ceiling, not 1
  CHECK(md.find("| 0.500 | 0.500 | — |") != std::string::npos);
  const std::string table = ladder::bench::bench_terminal_table(doc);
  CHECK(table.find("0.900") != std::string::npos);
  CHECK(table.find("same-size") != std::string::npos);
}

TEST_CASE("bench tables carry the clean-flush times beside the dirty ones, ours and the best peer's", "[bench]") {
  json doc = document();
  // 300 MB in 75 us with a clean L2: 4000 GB/s, the whole ceiling.
  doc["results"][0]["cold_clean_us"] = 75.0;
  doc = ladder::bench::annotate(doc);
  CHECK(doc["results"][0]["cold_clean_gbps"].get<double>() == Approx(4000.0));
  CHECK(doc["results"][0]["cold_clean_fraction"].get<double>() == Approx(1.0));
  CHECK_FALSE(doc["results"][1].contains("cold_clean_fraction"));
  json peers;
  peers["peers"] = json::array();
  peers["peers"].push_back({{"op", "rmsnorm"}, {"dtype", "bf16"}, {"rows", 8}, {"d", 8}, {"impl", "triton"},
                            {"us", 95.0}, {"us_clean", 80.0}});
  peers["peers"].push_back({{"op", "rmsnorm"}, {"dtype", "bf16"}, {"rows", 8}, {"d", 8}, {"impl", "torch_compile"},
                            {"us", 90.0}, {"us_clean", 85.0}});
  const std::string md = ladder::bench_markdown(doc, "bench.json", peers);
  // Each column takes its own fastest peer: torch_compile dirty, triton clean.
  CHECK(md.find("| 90.00 (torch_compile) | 75.00 | 80.00 (triton) |") != std::string::npos);
  CHECK(md.find("| — | — | — |") != std::string::npos);  // layernorm: no peer, no clean time
  CHECK(ladder::peers_markdown(peers).find("| 95.00 | 0 | 0.000 | 80.00 |") != std::string::npos);
  const std::string table = ladder::bench::bench_terminal_table(doc);
  CHECK(table.find("clean us") != std::string::npos);
  CHECK(table.find("75.00  1.000") != std::string::npos);
}

TEST_CASE("a bench on a share of the SMs says so in both tables; the whole GPU's says nothing", "[bench]") {
  json doc = document();
  doc["toolchain"] = {{"gpu", "H100"}, {"sm_count", 132}};
  CHECK(ladder::sm_share_text(doc).empty());
  CHECK(ladder::bench::bench_terminal_table(ladder::bench::annotate(doc)).find("green context") == std::string::npos);
  doc["toolchain"] = {{"gpu", "H100"}, {"sm_count", 96}, {"device_sm_count", 132}, {"sms_asked", 92}, {"sms_seen", 96}};
  const std::string says = "timed on 96 of the GPU's 132 SMs (a green context, `--sms 92`; a launch in it ran on 96)";
  CHECK_THAT(ladder::sm_share_text(doc), has_substr(says));
  CHECK_THAT(ladder::bench::bench_terminal_table(ladder::bench::annotate(doc)), has_substr(says));
  CHECK_THAT(ladder::bench_markdown(ladder::bench::annotate(doc), "b.json", json::object()), has_substr("- " + says));
}
