#include "harness/report/envelope.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder;

TEST_CASE("sweep dims: ranges, steps and lists parse; anything else is an error that names the spec", "[sweep]") {
  CHECK(parse_sweep_dim("d=1..4").values == std::vector<std::int64_t>{1, 2, 3, 4});
  CHECK(parse_sweep_dim("d=0..10:5").values == std::vector<std::int64_t>{0, 5, 10});
  CHECK(parse_sweep_dim("rows=1,7,83").values == std::vector<std::int64_t>{1, 7, 83});
  CHECK(parse_sweep_dim("rows=12").values == std::vector<std::int64_t>{12});
  CHECK(parse_sweep_dim("rows=12").name == "rows");
  for (const std::string bad : {"d", "=1..2", "d=", "d=a..4", "d=4..1", "d=1..4:0", "d=-1..3", "d=1,,2", "d=1..2x"}) {
    INFO(bad);
    try {
      parse_sweep_dim(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find(bad) != std::string::npos);
    }
  }
}

TEST_CASE("sweep cases: every combination, the first dim slowest, the rung's other symbols kept", "[sweep]") {
  const Case base{{"rows", 3}, {"d", 130}, {"k", 9}};
  const auto cases = sweep_cases({parse_sweep_dim("rows=1,2"), parse_sweep_dim("d=5..7")}, base, 100);
  REQUIRE(cases.size() == 6);
  CHECK(cases[0] == Case{{"rows", 1}, {"d", 5}, {"k", 9}});
  CHECK(cases[1] == Case{{"rows", 1}, {"d", 6}, {"k", 9}});
  CHECK(cases[5] == Case{{"rows", 2}, {"d", 7}, {"k", 9}});
  CHECK_THROWS_WITH(sweep_cases({parse_sweep_dim("e=1..2")}, base, 100), ladder_test::has_substr("no symbol 'e'"));
  CHECK_THROWS_WITH(sweep_cases({parse_sweep_dim("d=1"), parse_sweep_dim("d=2")}, base, 100),
                    ladder_test::has_substr("given twice"));
  CHECK_THROWS_WITH(sweep_cases({parse_sweep_dim("rows=1..11"), parse_sweep_dim("d=1..10")}, base, 100),
                    ladder_test::has_substr("more than 100 shapes"));
  CHECK_THROWS(sweep_cases({}, base, 100));
}

TEST_CASE("the envelope map puts each case's mark at its shape, and lists the failures", "[sweep]") {
  const Case base{{"rows", 1}, {"d", 1}};
  const std::vector<SweepDim> dims{parse_sweep_dim("rows=1..2"), parse_sweep_dim("d=9..11")};
  std::vector<CaseResult> results;
  for (const auto& c : sweep_cases(dims, base, 100)) {
    if (c.at("rows") == 2 && c.at("d") == 11) continue;  // not run
    CaseResult r;
    r.shape = c;
    if (c.at("d") == 10) {
      r.failure = c.at("rows") == 1 ? FailReason::Unwritten : FailReason::Mismatch;
      r.evidence = "rows 0..0 unwritten";
    }
    results.push_back(r);
  }
  const Envelope e = draw_envelope(dims, base, results);
  CHECK(e.shapes == 6);
  CHECK(e.run == 5);
  CHECK(e.passed == 3);
  CHECK(e.failed == 2);
  CHECK(e.text.find("rows=1 .U.") != std::string::npos);
  CHECK(e.text.find("rows=2 .M \n") != std::string::npos);
  CHECK(e.text.find("     d 901\n") != std::string::npos);  // column labels, last digits
  CHECK(e.text.find("U d=10 rows=1") != std::string::npos);
  CHECK(e.json.at("failing").size() == 2);
  CHECK(e.text.find("3 of 6 shapes passed every check; 2 failed, 0 skipped, 0 unresolved, 1 not run") != std::string::npos);
}

TEST_CASE("one dim gives a one-line map; three give the failing list and counts alone", "[sweep]") {
  const Case base{{"rows", 1}, {"d", 1}, {"k", 0}};
  const std::vector<SweepDim> one{parse_sweep_dim("d=8..12")};
  std::vector<CaseResult> results;
  for (const auto& c : sweep_cases(one, base, 100)) {
    CaseResult r;
    r.shape = c;
    if (c.at("d") % 4 != 0) r.failure = FailReason::Unwritten;
    results.push_back(r);
  }
  const Envelope e = draw_envelope(one, base, results);
  CHECK(e.text.find("    111\n") != std::string::npos);
  CHECK(e.text.find("d 89012\n") != std::string::npos);
  CHECK(e.text.find("  .UUU.\n") != std::string::npos);
  const std::vector<SweepDim> three{parse_sweep_dim("rows=1"), parse_sweep_dim("k=0"), parse_sweep_dim("d=8..12")};
  const Envelope flat = draw_envelope(three, base, results);
  CHECK(flat.text.find(".UUU.") == std::string::npos);
  CHECK(flat.failed == 3);
  CHECK(flat.text.find("2 of 5 shapes passed") != std::string::npos);
}

TEST_CASE("ladder sweep --compile-only maps the demo rung as compiled and skipped", "[cli]") {
  using namespace ladder_test;
  const std::string json = temp_path("sweep.json");
  const auto o = run_ladder("sweep st_vector_tail --ladder " + source_path("probes/sweep_demo.json") +
                            " --dim rows=1..4 --dim d=1..24 --chunk 40 --compile-only --json " + json);
  INFO(o.output);
  CHECK(o.exit_code == 0);
  const auto doc = read_json(json);
  CHECK(doc.at("rungs").size() == 3);  // 96 shapes in children of at most 40
  CHECK(doc.at("extra").at("sweep").at("shapes") == 96);
  CHECK(doc.at("extra").at("sweep").at("skipped") == 96);
  CHECK(o.output.find("rows=4 SSSSSSSSSSSSSSSSSSSSSSSS") != std::string::npos);
  CHECK(run_ladder("sweep st_vector_tail --ladder " + source_path("probes/sweep_demo.json") + " --dim e=1..2").exit_code == 2);
  CHECK(run_ladder("sweep no_such_rung --dim d=1..2").exit_code == 2);
}
