#include "harness/core/verdict.h"

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
