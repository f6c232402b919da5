#include "harness/report/bisect.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;

namespace {
RungResult rung(const std::string& name, Verdict v, std::vector<std::string> features) {
  RungResult r;
  r.name = name;
  r.verdict = v;
  r.features = std::move(features);
  r.stage = v == Verdict::Pass ? Stage::Done : Stage::Checks;
  if (v == Verdict::Fail || v == Verdict::XFail) r.reason = FailReason::Mismatch;
  if (v == Verdict::Fail) r.failing_case = "rows=3 d=1024";
  return r;
}

const FeatureBlame& blame(const BisectResult& b, const std::string& feature) {
  for (const auto& f : b.features)
    if (f.feature == feature) return f;
  FAIL("no feature " << feature);
  static FeatureBlame none;
  return none;
}
}  // namespace

TEST_CASE("bisect: passing rungs exonerate features; the first failure's other features are the suspects", "[bisect]") {
  RunDocument doc;
  doc.rungs = {rung("r0", Verdict::Pass, {"load", "store"}),
               rung("r1", Verdict::XFail, {"load", "barrier_gone"}),  // an expected failure clears nothing
               rung("r2", Verdict::Fail, {"load", "store", "tree", "barrier_gone"}),
               rung("r3", Verdict::Pass, {"load", "tree", "barrier"}),
               rung("r4", Verdict::Fail, {"load", "shuffle"}),
               rung("r5", Verdict::Unresolved, {"shuffle"}),
               rung("r6", Verdict::Skipped, {"load"})};
  const BisectResult b = bisect_run(doc);
  REQUIRE(b.found);
  CHECK(b.first_failing == "r2");
  CHECK(b.reason == "mismatch");
  CHECK(b.failing_case == "rows=3 d=1024");
  CHECK(blame(b, "load").exonerated_by == "r0");
  CHECK(blame(b, "store").exonerated_by == "r0");
  CHECK(blame(b, "tree").exonerated_by == "r3");  // a passing rung later in the ladder counts too
  CHECK(blame(b, "barrier_gone").exonerated_by.empty());
  CHECK(b.suspects == std::vector<std::string>{"barrier_gone"});
  CHECK(b.nearest_passing == "r0");  // two shared features, no others (r3 shares two, has one more)
  CHECK(b.adds_to_nearest == std::vector<std::string>{"tree", "barrier_gone"});
  CHECK(b.lacks_from_nearest.empty());
  REQUIRE(b.later_failures.size() == 1);
  CHECK(b.later_failures[0].rung == "r4");
  CHECK(b.later_failures[0].suspects == std::vector<std::string>{"shuffle"});
  CHECK(b.unresolved == std::vector<std::string>{"r5"});
  CHECK(b.exonerating == 2);
  CHECK(b.skipped == 1);
  CHECK(b.summary.find("one of its features got past the checks stage in no other rung: barrier_gone") != std::string::npos);
  const std::string table = bisect_table(b);
  CHECK(table.find("SUSPECT") != std::string::npos);
  CHECK(table.find("exonerated by r3") != std::string::npos);
  CHECK(to_json(b).at("suspects") == nlohmann::json::array({"barrier_gone"}));
}

TEST_CASE("bisect: several suspects, none, and no failure are each said plainly", "[bisect]") {
  RunDocument doc;
  doc.rungs = {rung("r0", Verdict::Pass, {"a"}), rung("r1", Verdict::Fail, {"a", "b", "c"})};
  BisectResult b = bisect_run(doc);
  CHECK(b.suspects == std::vector<std::string>{"b", "c"});
  CHECK(b.summary.find("2 suspects remain (b, c)") != std::string::npos);

  doc.rungs = {rung("r0", Verdict::Pass, {"a"}), rung("r1", Verdict::Pass, {"b"}), rung("r2", Verdict::Fail, {"a", "b"})};
  b = bisect_run(doc);
  CHECK(b.suspects.empty());
  CHECK(b.summary.find("combination") != std::string::npos);
  CHECK(b.summary.find("rows=3 d=1024") != std::string::npos);

  doc.rungs = {rung("r0", Verdict::Pass, {"a"}), rung("r1", Verdict::XFail, {"b"})};
  b = bisect_run(doc);
  CHECK_FALSE(b.found);
  CHECK(b.summary == "no rung failed");

  doc.rungs = {rung("r0", Verdict::Skipped, {"a"}), rung("r1", Verdict::Skipped, {"b"})};
  b = bisect_run(doc);
  CHECK_FALSE(b.found);
  CHECK(b.summary == "nothing to bisect: no rung failed (2 skipped)");
}

TEST_CASE("bisect: a compile error is cleared by rungs that compiled, though no GPU stage ran", "[bisect]") {
  RunDocument doc;
  RungResult compiled = rung("r0", Verdict::Skipped, {"load", "template_entry"});
  compiled.stage = Stage::Image;  // --compile-only: compiled, then skipped
  RungResult crashed = rung("r1", Verdict::XFail, {"load", "wild_pointer"});
  crashed.stage = Stage::Launch;
  crashed.reason = FailReason::Crash;
  RungResult broken = rung("r2", Verdict::Fail, {"load", "template_entry", "wild_pointer", "new_intrinsic"});
  broken.stage = Stage::Source;
  broken.reason = FailReason::Compile;
  doc.rungs = {compiled, crashed, broken};
  const BisectResult b = bisect_run(doc);
  REQUIRE(b.found);
  CHECK(b.stage == "source");
  CHECK(blame(b, "template_entry").exonerated_by == "r0");
  CHECK(blame(b, "wild_pointer").exonerated_by == "r1");  // it compiled, then crashed on purpose
  CHECK(b.suspects == std::vector<std::string>{"new_intrinsic"});
  CHECK(b.exonerating == 2);

  // The same rungs do not clear a mismatch: neither reached the checks.
  doc.rungs.back().stage = Stage::Checks;
  doc.rungs.back().reason = FailReason::Mismatch;
  CHECK(bisect_run(doc).suspects.size() == 4);
}

TEST_CASE("ladder bisect --from: a run document in, the exclusion table out, exit 1 on a failure", "[cli]") {
  using namespace ladder_test;
  RunDocument doc;
  doc.ladder_name = "synthetic";
  doc.rungs = {rung("p0", Verdict::Pass, {"load"}), rung("p9", Verdict::Fail, {"load", "missing_barrier"})};
  const std::string in = temp_path("bisect-in.json"), out = temp_path("bisect-out.json");
  write_file_atomic(in, to_json(doc).dump());
  const auto o = run_ladder("bisect --from " + in + " --json " + out);
  INFO(o.output);
  CHECK(o.exit_code == 1);
  CHECK(o.output.find("first failing rung: p9") != std::string::npos);
  CHECK(o.output.find("missing_barrier") != std::string::npos);
  CHECK(read_json(out).at("extra").at("bisect").at("suspects") == nlohmann::json::array({"missing_barrier"}));

  doc.rungs.pop_back();
  write_file_atomic(in, to_json(doc).dump());
  CHECK(run_ladder("bisect --from " + in).exit_code == 0);
  // --from with a ladder is a usage error, a missing file too.
  CHECK(run_ladder("bisect --from " + in + " --ladder " + source_path("probes/ladder.json")).exit_code == 2);
  CHECK(run_ladder("bisect --from /nonexistent/run.json").exit_code != 0);
}

TEST_CASE("ladder bisect --compile-only on the demo ladder compiles every rung and finds nothing to bisect", "[cli]") {
  using namespace ladder_test;
  const auto o = run_ladder("bisect --compile-only --ladder " + source_path("probes/bisect_demo.json"));
  INFO(o.output);
  CHECK(o.exit_code == 0);
  CHECK(o.output.find("nothing to bisect: no rung failed (6 skipped)") != std::string::npos);
}
