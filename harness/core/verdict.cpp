#include "harness/core/verdict.h"

#include <array>

namespace ladder {
namespace {

constexpr std::array<VerdictInfo, 7> kVerdicts{{
    {Verdict::Pass, "PASS", false, "the rung did what was expected"},
    {Verdict::Fail, "FAIL", true, "the rung failed, with one reason"},
    {Verdict::XFail, "XFAIL", false, "the rung failed as its manifest expected"},
    {Verdict::XPass, "XPASS", true, "the rung passed where its manifest expected failure"},
    {Verdict::Skipped, "SKIPPED", false, "the rung did not run; the reason is given"},
    {Verdict::Unsupported, "UNSUPPORTED", false, "the arch or toolchain lacks something the rung needs"},
    {Verdict::Unresolved, "UNRESOLVED", true, "the harness itself could not decide"},
}};

constexpr std::array<std::string_view, 11> kReasons{
    "none", "compile", "load", "launch", "crash", "timeout",
    "unwritten", "redzone", "clobbered", "mismatch", "nondeterministic"};

constexpr std::array<std::string_view, 7> kStages{
    "source", "image", "load", "buffers", "launch", "checks", "done"};

template <class E, std::size_t N>
std::optional<E> parse_from(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

const VerdictInfo& info(Verdict v) { return kVerdicts[static_cast<std::size_t>(v)]; }
std::string_view label(Verdict v) { return info(v).label; }
bool is_failure(Verdict v) { return info(v).is_failure; }

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (const auto& v : kVerdicts)
    if (v.label == s) return v.verdict;
  return std::nullopt;
}

std::string_view label(FailReason r) { return kReasons[static_cast<std::size_t>(r)]; }
std::optional<FailReason> parse_fail_reason(std::string_view s) {
  return parse_from<FailReason>(kReasons, s);
}

std::string_view label(Stage s) { return kStages[static_cast<std::size_t>(s)]; }
std::optional<Stage> parse_stage(std::string_view s) { return parse_from<Stage>(kStages, s); }

Verdict expected_outcome(std::optional<FailReason> observed, FailReason expected) {
  const bool expected_pass = expected == FailReason::None;
  if (!observed) return expected_pass ? Verdict::Pass : Verdict::XPass;
  if (expected_pass) return Verdict::Fail;
  return *observed == expected ? Verdict::XFail : Verdict::Fail;
}

}  // namespace ladder
