#include "harness/core/verdict.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "harness/core/result.h"

#include "tests/catch.h"

using namespace ladder;

TEST_CASE("every verdict label parses back to itself", "[verdict]") {
  for (auto v : {Verdict::Pass, Verdict::Fail, Verdict::XFail, Verdict::XPass, Verdict::Skipped, Verdict::Unsupported,
                 Verdict::Unresolved}) {
    REQUIRE(parse_verdict(label(v)) == v);
  }
  REQUIRE_FALSE(parse_verdict("pass").has_value());
}

TEST_CASE("only FAIL, XPASS and UNRESOLVED count against a run", "[verdict]") {
  CHECK(is_failure(Verdict::Fail));
  CHECK(is_failure(Verdict::XPass));
  CHECK(is_failure(Verdict::Unresolved));
  CHECK_FALSE(is_failure(Verdict::Pass));
  CHECK_FALSE(is_failure(Verdict::XFail));
  CHECK_FALSE(is_failure(Verdict::Skipped));
  CHECK_FALSE(is_failure(Verdict::Unsupported));
}

TEST_CASE("expected outcome combines what happened with what was expected", "[verdict]") {
  CHECK(expected_outcome(std::nullopt, FailReason::None) == Verdict::Pass);
  CHECK(expected_outcome(FailReason::Mismatch, FailReason::None) == Verdict::Fail);
  CHECK(expected_outcome(FailReason::Mismatch, FailReason::Mismatch) == Verdict::XFail);
  CHECK(expected_outcome(std::nullopt, FailReason::Mismatch) == Verdict::XPass);
  // Failing for another reason than the one expected is a real failure.
  CHECK(expected_outcome(FailReason::Crash, FailReason::Mismatch) == Verdict::Fail);
}

TEST_CASE("failure reasons and stages round-trip", "[verdict]") {
  for (auto r : {FailReason::Compile, FailReason::Load, FailReason::Launch, FailReason::Crash, FailReason::Timeout,
                 FailReason::Unwritten, FailReason::Redzone, FailReason::Clobbered, FailReason::Mismatch,
                 FailReason::Nondeterministic})
    REQUIRE(parse_fail_reason(label(r)) == r);
  for (auto s : {Stage::Source, Stage::Image, Stage::Load, Stage::Buffers, Stage::Launch, Stage::Checks, Stage::Done})
    REQUIRE(parse_stage(label(s)) == s);
}

TEST_CASE("a non-finite worst ratio survives the child's result line", "[verdict]") {
  ladder::CaseResult c;
  c.failure = ladder::FailReason::Mismatch;
  c.evidence = "h: 1 of 144 over bound";
  const double inf = std::numeric_limits<double>::infinity();
  c.numerics.push_back({"h", "worst inf", inf, inf});
  c.numerics.push_back({"y", "worst nan", std::numeric_limits<double>::quiet_NaN(), -inf});
  const auto text = nlohmann::json(c).dump();
  const auto back = nlohmann::json::parse(text).get<ladder::CaseResult>();
  REQUIRE(back.numerics.size() == 2);
  CHECK(std::isinf(back.numerics[0].worst_ratio));
  CHECK(back.numerics[0].worst_ratio > 0);
  CHECK(std::isnan(back.numerics[1].worst_ratio));
  CHECK(back.numerics[1].worst_error == -inf);
  nlohmann::json bad = nlohmann::json(c);
  bad["numerics"][0]["worst_ratio"] = "huge";
  CHECK_THROWS_WITH(bad.get<ladder::CaseResult>(), ladder_test::has_substr("huge"));
}
