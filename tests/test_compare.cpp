#include "harness/report/compare.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;

namespace {
RungResult rung(const std::string& name, Verdict v, Stage stage, double worst = 0.1, FailReason expected = FailReason::None) {
  RungResult r;
  r.name = name;
  r.verdict = v;
  r.stage = stage;
  r.expected = expected;
  r.wall_ms = 100;
  if (v == Verdict::Fail || v == Verdict::XFail) r.reason = FailReason::Mismatch;
  CaseResult c;
  c.numerics.push_back({"y", "", worst, 0});
  r.cases.push_back(c);
  return r;
}
const RungChange& find(const std::vector<RungChange>& v, const std::string& name) {
  for (const auto& c : v)
    if (c.name == name) return c;
  throw std::out_of_range(name);
}
}  // namespace

TEST_CASE("compare names regressions, improvements, additions and removals", "[compare]") {
  RunDocument before, after;
  before.rungs = {rung("p0", Verdict::Pass, Stage::Done), rung("p1", Verdict::Pass, Stage::Done),
                  rung("p2", Verdict::Fail, Stage::Checks), rung("p3", Verdict::Fail, Stage::Checks),
                  rung("gone", Verdict::Pass, Stage::Done)};
  after.rungs = {rung("p0", Verdict::Pass, Stage::Done, 0.5), rung("p1", Verdict::Fail, Stage::Launch),
                 rung("p2", Verdict::Pass, Stage::Done), rung("p3", Verdict::Fail, Stage::Image),
                 rung("new", Verdict::Pass, Stage::Done)};
  after.rungs[1].reason = FailReason::Crash;
  after.rungs[1].evidence = "CUDA_ERROR_ILLEGAL_ADDRESS";
  const auto changes = compare_runs(before, after);
  CHECK(find(changes, "p0").change == Change::Same);
  CHECK(find(changes, "p0").worst_after == 0.5);
  CHECK(find(changes, "p1").change == Change::Regressed);
  CHECK(find(changes, "p1").after == "FAIL (crash)");
  CHECK(find(changes, "p1").evidence == "CUDA_ERROR_ILLEGAL_ADDRESS");
  CHECK(find(changes, "p2").change == Change::Improved);
  CHECK(find(changes, "p3").change == Change::Regressed);  // still failing, but at an earlier stage
  CHECK(find(changes, "new").change == Change::Added);
  CHECK(find(changes, "gone").change == Change::Removed);
  const auto table = compare_table(changes, before, after);
  CHECK(table.find("6 rungs compared, 2 regressed") != std::string::npos);
}

TEST_CASE("ladder compare exits 1 on a regression and 2 on a bad file", "[compare][cli]") {
  using namespace ladder_test;
  RunDocument before, after;
  before.rungs = {rung("p0", Verdict::Pass, Stage::Done)};
  after.rungs = {rung("p0", Verdict::Fail, Stage::Checks)};
  const std::string a = temp_path("before.json"), b = temp_path("after.json"), bad = temp_path("bad.json");
  write_file_atomic(a, to_json(before).dump());
  write_file_atomic(b, to_json(after).dump());
  write_file_atomic(bad, "{\"tool\": \"something else\"}");
  CHECK(run_ladder("compare " + a + " " + a).exit_code == 0);
  const auto o = run_ladder("compare " + a + " " + b);
  CHECK(o.exit_code == 1);
  CHECK(o.output.find("REGRESSED") != std::string::npos);
  const auto e = run_ladder("compare " + a + " " + bad);
  CHECK(e.exit_code == 2);
  CHECK(e.output.find(bad) != std::string::npos);
}

TEST_CASE("compare lists the kernels whose registers or memory moved, without calling it a regression",
          "[compare]") {
  RunDocument before, after;
  before.rungs = {rung("p0", Verdict::Pass, Stage::Done), rung("p1", Verdict::Pass, Stage::Done)};
  after.rungs = before.rungs;
  before.rungs[0].images = {{"ladder::k<1>", 40, 0, 256}, {"ladder::gone", 32, 0, 0}};
  after.rungs[0].images = {{"ladder::k<1>", 48, 16, 256}, {"ladder::new", 32, 0, 0}};
  before.rungs[1].images = after.rungs[1].images = {{"ladder::same", 64, 0, 1024}};
  // Round trip through the run document's JSON: the images survive, and a document without them reads.
  RunDocument read = run_document_from_json(to_json(after));
  REQUIRE(read.rungs[0].images.size() == 2);
  CHECK(read.rungs[0].images[0].local_bytes == 16);
  auto plain = to_json(before);
  plain["rungs"][0].erase("images");
  read = run_document_from_json(plain);
  CHECK(read.rungs[0].images.empty());

  const auto changes = compare_runs(before, after);
  const auto& p0 = find(changes, "p0");
  CHECK(p0.change == Change::Same);
  REQUIRE(p0.resource_changes.size() == 1);  // k<1> alone: gone and new are in one run only
  CHECK(p0.resource_changes[0] == "ladder::k<1>: registers 40 -> 48, local 0 -> 16 B");
  CHECK(find(changes, "p1").resource_changes.empty());
  const auto table = compare_table(changes, before, after);
  CHECK(table.find("    resources: ladder::k<1>: registers 40 -> 48, local 0 -> 16 B") != std::string::npos);
  CHECK(table.find("2 rungs compared, 0 regressed, 1 with kernels whose registers or memory moved") != std::string::npos);
}
