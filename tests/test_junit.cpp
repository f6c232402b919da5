#include "harness/report/printers.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;

namespace {
RungResult rung(const std::string& name, Verdict v, std::optional<FailReason> reason, std::string evidence) {
  RungResult r;
  r.name = name;
  r.verdict = v;
  r.reason = reason;
  r.evidence = std::move(evidence);
  r.wall_ms = 1500;
  return r;
}
}  // namespace

TEST_CASE("JUnit XML keeps the verdicts apart: failures, errors, skips and expected failures", "[report]") {
  RunDocument doc;
  doc.ladder_name = "demo";
  doc.wall_ms = 4000;
  doc.rungs = {rung("ok", Verdict::Pass, std::nullopt, "fine"),
               rung("bad", Verdict::Fail, FailReason::Mismatch, "y: 3 of 4 over <bound> & \"worse\""),
               rung("surprise", Verdict::XPass, std::nullopt, "passed, expected crash"),
               rung("expected", Verdict::XFail, FailReason::Crash, "CUDA_ERROR_ILLEGAL_ADDRESS"),
               rung("broken", Verdict::Unresolved, std::nullopt, "child sent garbage\x01"),
               rung("nogpu", Verdict::Skipped, std::nullopt, "no CUDA device")};
  const std::string xml = junit_xml(doc);
  CHECK(xml.find("tests=\"6\" failures=\"2\" errors=\"1\" skipped=\"1\" time=\"4.000\"") != std::string::npos);
  CHECK(xml.find("name=\"ok\" time=\"1.500\"></testcase>") != std::string::npos);
  CHECK(xml.find("<failure type=\"FAIL (mismatch)\" message=\"FAIL (mismatch) at stage source\">y: 3 of 4 over &lt;bound&gt; &amp; &quot;worse&quot;</failure>") != std::string::npos);
  CHECK(xml.find("<failure type=\"XPASS\"") != std::string::npos);
  CHECK(xml.find("<system-out>expected failure (crash): CUDA_ERROR_ILLEGAL_ADDRESS</system-out>") != std::string::npos);
  CHECK(xml.find("<error type=\"UNRESOLVED\" message=\"harness could not decide\">child sent garbage\\x01</error>") != std::string::npos);
  CHECK(xml.find("<skipped message=\"SKIPPED: no CUDA device\"/>") != std::string::npos);
}

TEST_CASE("run --junit writes the XML beside the table", "[cli]") {
  using namespace ladder_test;
  const std::string xml_path = temp_path("run.xml");
  const auto o = run_ladder("run --compile-only --ladder " + source_path("probes/selftest.json") + " --junit " + xml_path);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  std::ifstream in(xml_path);
  const std::string xml((std::istreambuf_iterator<char>(in)), {});
  CHECK(xml.find("<testsuite name=\"selftest\"") != std::string::npos);
  CHECK(xml.find("name=\"st_compile_error\"") != std::string::npos);
  CHECK(xml.find("<system-out>expected failure (compile)") != std::string::npos);
  CHECK(xml.find("failures=\"0\" errors=\"0\"") != std::string::npos);
}
