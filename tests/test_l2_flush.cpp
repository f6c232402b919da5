// The bench's L2 flush (harness/bench/l2_flush.h): its read kernel compiles for both target
// archs and reads in 16-byte chunks; the SM census of `--sms` (sm_census.h) compiles too; the
// clean timing and the green context come back from real bench runs ([gpu]).
#include <initializer_list>
#include <string>

#include "harness/bench/l2_flush.h"
#include "harness/bench/sm_census.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;

namespace {

// `source` compiles to PTX for sm_90 and sm_80, with entry `entry` and every text of `wants`.
void check_compiles(const char* file, const char* source, const std::string& entry,
                    std::initializer_list<const char*> wants) {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  for (const char* arch : {"compute_90", "compute_80"}) {
    ladder::toolchain::CompileRequest req;
    req.source_path = file;
    req.source_text = source;
    req.arch = arch;
    req.want = ladder::toolchain::ImageKind::Ptx;
    const auto r = nvrtc.compile(req);
    INFO(arch << ": " << r.error << "\n" << r.log);
    REQUIRE(r.ok);
    CHECK(r.image.find(".entry " + entry) != std::string::npos);
    for (const char* want : wants) CHECK(r.image.find(want) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("the L2 flush's read kernel compiles for sm_90 and sm_80, reading 16-byte chunks", "[nvrtc]") {
  check_compiles("ladder_l2_read.cu", ladder::bench::l2_read_source(), "ladder_l2_read", {"ld.global.v4"});
}

TEST_CASE("the SM census kernel compiles for sm_90 and sm_80, reading %smid", "[nvrtc]") {
  check_compiles("ladder_sm_census.cu", ladder::bench::sm_census_source(), "ladder_sm_census", {"%smid"});
}

TEST_CASE("ladder bench --sms times on a green context no wider than asked, and says so", "[gpu]") {
  const std::string json = temp_path("gpu-bench-sms.json");
  const auto o = run_ladder("bench rmsnorm --dtype bf16 --shape 64x1024 --iters 4 --sms 16 --json " + json);
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  const auto doc = read_json(json);
  const auto& t = doc.at("toolchain");
  CHECK(t.at("sm_count").get<int>() >= 16);
  CHECK(t.at("sm_count").get<int>() < t.at("device_sm_count").get<int>());
  CHECK(t.at("sms_seen").get<int>() <= t.at("sm_count").get<int>());
  CHECK(t.at("sms_seen").get<int>() > 0);
  CHECK(o.output.find("green context") != std::string::npos);
  REQUIRE(!doc.at("results").empty());
  CHECK(doc.at("results")[0].at("cold_us").get<double>() > 0);
}

TEST_CASE("ladder bench times every case cold both ways, the clean flush included", "[gpu]") {
  const std::string json = temp_path("gpu-bench-clean.json");
  const auto o = run_ladder("bench layernorm --dtype bf16 --shape 64x1024 --iters 4 --json " + json);
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  const auto doc = read_json(json);
  REQUIRE(!doc.at("results").empty());
  for (const auto& r : doc.at("results")) {
    INFO(r.dump());
    CHECK(r.at("cold_us").get<double>() > 0);
    CHECK(r.at("cold_clean_us").get<double>() > 0);
    CHECK(r.at("cold_clean_fraction").get<double>() > 0);
  }
}
