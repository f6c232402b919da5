// The bench's L2 flush (harness/bench/l2_flush.h): its read kernel compiles for both target
// archs and reads in 16-byte chunks; the SM census of `--sms` (sm_census.h) compiles too; the
// clean timing and the green context come back from real bench runs ([gpu]).
#include "harness/bench/l2_flush.h"
#include "harness/bench/sm_census.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;

TEST_CASE("the L2 flush's read kernel compiles for sm_90 and sm_80, reading 16-byte chunks", "[nvrtc]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  for (const char* arch : {"compute_90", "compute_80"}) {
    ladder::toolchain::CompileRequest req;
    req.source_path = "ladder_l2_read.cu";
    req.source_text = ladder::bench::l2_read_source();
    req.arch = arch;
    req.want = ladder::toolchain::ImageKind::Ptx;
    const auto r = nvrtc.compile(req);
    INFO(arch << ": " << r.error << "\n" << r.log);
    REQUIRE(r.ok);
    CHECK(r.image.find(".entry ladder_l2_read") != std::string::npos);
    CHECK(r.image.find("ld.global.v4") != std::string::npos);
  }
}

TEST_CASE("the SM census kernel compiles for sm_90 and sm_80, reading %smid", "[nvrtc]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  for (const char* arch : {"compute_90", "compute_80"}) {
    ladder::toolchain::CompileRequest req;
    req.source_path = "ladder_sm_census.cu";
    req.source_text = ladder::bench::sm_census_source();
    req.arch = arch;
    req.want = ladder::toolchain::ImageKind::Ptx;
    const auto r = nvrtc.compile(req);
    INFO(arch << ": " << r.error << "\n" << r.log);
    REQUIRE(r.ok);
    CHECK(r.image.find(".entry ladder_sm_census") != std::string::npos);
    CHECK(r.image.find("%smid") != std::string::npos);
  }
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
