// The one verdict table. Every printer, exit code and summary reads it from here.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ladder {

enum class Verdict { Pass, Fail, XFail, XPass, Skipped, Unsupported, Unresolved };

// Why a rung failed. `None` only goes with verdicts that carry no failure reason.
enum class FailReason {
  None, Compile, Load, Launch, Crash, Timeout, Unwritten, Redzone, Clobbered, Mismatch, Nondeterministic
};

// The stage a rung reached; stages run in this order.
enum class Stage { Source, Image, Load, Buffers, Launch, Checks, Done };

struct VerdictInfo {
  Verdict verdict;
  std::string_view label;
  bool is_failure;  // counts against the run (exit 1)
  std::string_view meaning;
};

const VerdictInfo& info(Verdict v);
std::string_view label(Verdict v);
bool is_failure(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);

std::string_view label(FailReason r);
std::optional<FailReason> parse_fail_reason(std::string_view s);

std::string_view label(Stage s);
std::optional<Stage> parse_stage(std::string_view s);

// Combines what happened with what the manifest expected (`pass` or a failure reason).
Verdict expected_outcome(std::optional<FailReason> observed_failure, FailReason expected);

// Exit codes: 0 as expected, 1 an unexpected failure, 2 usage or harness error.
constexpr int kExitOk = 0, kExitFailure = 1, kExitHarness = 2;
// git bisect: 0 good, 1 bad, 125 skip (toolchain or device problem).
constexpr int kGitBisectSkip = 125;

}  // namespace ladder
