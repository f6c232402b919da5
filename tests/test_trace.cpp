// `--trace`: each child's life as spans on its worker's track, nested in its rung's span.
#include "harness/isolate/spawn.h"
#include "harness/isolate/trace.h"

#include <fstream>
#include <iterator>
#include <map>

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder::isolate;
using namespace ladder_test;

TEST_CASE("run --trace: every child's start, nvrtc, cases and exit lie inside its rung's span", "[cli]") {
  const std::string trace = temp_path("trace.json");
  const std::string json = temp_path("trace-run.json");
  const auto o = run_ladder("run --compile-only --jobs 2 --trace " + trace + " --json " + json + " 'p0*' 'p1_*' st_compile_error");
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  const auto events = read_json(trace).at("traceEvents");
  std::map<std::string, int> kinds;
  std::vector<nlohmann::json> rungs;
  for (const auto& e : events) {
    ++kinds[e.at("cat").get<std::string>()];
    CHECK(e.at("ph") == "X");
    CHECK(e.at("dur").get<double>() >= 0);
    if (e.at("cat") == "rung") rungs.push_back(e);
  }
  CHECK(kinds["rung"] == 3);
  CHECK(kinds["start"] == 3);  // one child a rung
  CHECK(kinds["nvrtc"] == 3);
  CHECK(kinds["exit"] == 3);
  CHECK(kinds["compile"] == 3);
  CHECK(kinds["context"] == 0);  // compile only: no context
  CHECK(kinds["case"] == 7 + 7 + 1);
  // Each child span sits inside the span of a rung on the same track.
  for (const auto& e : events) {
    if (e.at("cat") == "rung") continue;
    const double b = e.at("ts").get<double>(), end = b + e.at("dur").get<double>();
    bool inside = false;
    for (const auto& r : rungs) {
      const double rb = r.at("ts").get<double>(), re = rb + r.at("dur").get<double>();
      inside = inside || (r.at("tid") == e.at("tid") && rb <= b + 1 && end <= re + 1);
    }
    INFO(e.dump());
    CHECK(inside);
  }
  // The run document sums the spans by kind.
  const auto spent = read_json(json).at("extra").at("child_time_ms");
  CHECK(spent.at("nvrtc").get<double>() > 0);
  CHECK(spent.at("case").get<double>() > 0);
  CHECK_FALSE(spent.contains("rung"));
}

TEST_CASE("a child that stamped nothing is one span from its spawn to its reaping", "[isolation]") {
  TraceLog log;
  const auto run = spawn_and_collect({LADDER_BINARY, "__selftest-child", "segv"}, "", 10);
  log.add_child(4, run);
  const auto spans = log.spans();
  REQUIRE(spans.size() == 1);
  CHECK(spans[0].kind == "child");
  CHECK(spans[0].track == 4);
  CHECK(spans[0].begin_us == run.started_us);
  CHECK(spans[0].end_us == run.ended_us);
  CHECK(spans[0].end_us > spans[0].begin_us);
}

TEST_CASE("a case the child never finished ends where the child was reaped", "[isolation]") {
  ChildRun run;
  run.started_us = 1000;
  run.ended_us = 9000;
  run.messages = {{{"type", "toolchain"}, {"t_us", 3000.0}, {"stamps", {{"main", 2000.0}, {"context_begin", 2100.0},
                                                                        {"context_end", 2900.0}}}},
                  {{"type", "begin"}, {"index", 5}, {"t_us", 4000.0}}};
  TraceLog log;
  log.add_child(0, run);
  std::map<std::string, TraceSpan> by_kind;
  for (const auto& s : log.spans()) by_kind[s.kind] = s;
  CHECK(by_kind.at("start").begin_us == 1000);
  CHECK(by_kind.at("start").end_us == 2000);
  CHECK(by_kind.at("context").end_us == 2900);
  CHECK(by_kind.at("case").name == "case 5 (unfinished)");
  CHECK(by_kind.at("case").end_us == 9000);
  CHECK(by_kind.count("exit") == 0);
  CHECK(log.totals_ms().at("case") == 5.0);
}

TEST_CASE("the report's overhead section lists the children's time by kind", "[cli]") {
  const std::string json = temp_path("overhead-run.json");
  const std::string md = temp_path("overhead-report.md");
  // Without a GPU the bare children fail to make contexts; the section is still written.
  const auto o = run_ladder("run --compile-only --measure-overhead 1 --json " + json + " 'p0*'");
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK(o.output.find("children's time by kind") != std::string::npos);
  const auto r = run_ladder("report --run " + json + " -o " + md);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(md);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("### Isolation overhead") != std::string::npos);
  CHECK(text.find("Children's time by kind") != std::string::npos);
  CHECK(text.find(" nvrtc |") != std::string::npos);
  CHECK(text.find(" case |") != std::string::npos);
  CHECK(text.find("Per child, over 1 children: the harness's own start-up") != std::string::npos);
}
