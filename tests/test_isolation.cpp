// The child-mode self-test: how a child ended is classified without any GPU.
#include "harness/isolate/runner.h"
#include "harness/isolate/spawn.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include "tests/catch.h"

using namespace ladder;
using namespace ladder::isolate;
using ladder_test::has_substr;

namespace {
ChildRun run_mode(const std::string& mode, double timeout = 10) {
  return spawn_and_collect({LADDER_BINARY, "__selftest-child", mode}, "", timeout);
}
}  // namespace

TEST_CASE("a child that segfaults is a crash, with the signal named", "[isolation]") {
  const auto run = run_mode("segv");
  CHECK(run.signal == SIGSEGV);
  const auto fate = classify_child_end(run, 10);
  CHECK(fate.failure == FailReason::Crash);
  CHECK(fate.signal == "SIGSEGV");
}

TEST_CASE("a child that aborts is a crash", "[isolation]") {
  const auto fate = classify_child_end(run_mode("abort"), 10);
  CHECK(fate.failure == FailReason::Crash);
  CHECK(fate.signal == "SIGABRT");
}

TEST_CASE("a child that hangs is a timeout and its process group is ended", "[isolation]") {
  const auto t0 = std::chrono::steady_clock::now();
  const auto run = run_mode("hang", 0.5);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(run.timed_out);
  CHECK(s < 5);  // ended, not waited for
  const auto fate = classify_child_end(run, 0.5);
  CHECK(fate.failure == FailReason::Timeout);
  CHECK_THAT(fate.evidence, has_substr("process group ended"));
}

// A stopped run (SIGINT/SIGTERM) ends its children as a timeout would; the rung they were in is
// then undecided, never a FAIL: the verdict must not blame the kernel for the user's stop.
TEST_CASE("a child ended by the run's stop is UNRESOLVED, not a timeout", "[isolation]") {
  struct ClearStop {
    ~ClearStop() { clear_stop(); }
  } clear;
  request_stop();
  const auto run = run_mode("hang", 30);
  CHECK(run.timed_out);
  const auto fate = classify_child_end(run, 30);
  CHECK(fate.unresolved);
  CHECK_FALSE(fate.failure.has_value());
  CHECK(fate.evidence == "interrupted");
}

// A stop that lands between fork and exec must end the copy by the default action. Were the
// parent's handler left in place there, the copy would run it: here a handler that writes to a
// pipe, so the test sees it; in the CLI the stop flag (harmless), under Catch2 its fatal-signal
// report (a second flush of the parent's buffered output).
namespace {
int g_handler_pipe = -1;
}  // namespace

TEST_CASE("a stop that lands before the child's exec runs none of the parent's handlers", "[isolation]") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
  g_handler_pipe = fds[1];
  struct sigaction sa {}, old {};
  sa.sa_handler = [](int) { (void)!::write(g_handler_pipe, "x", 1); };
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, &old);
  struct Restore {
    struct sigaction* old;
    int fds[2];
    ~Restore() {
      ::sigaction(SIGTERM, old, nullptr);
      clear_stop();
      ::close(fds[0]);
      ::close(fds[1]);
    }
  } restore{&old, {fds[0], fds[1]}};
  request_stop();  // every spawn below is ended at once, most of them before their exec
  for (int i = 0; i < 200; ++i) (void)run_mode("hang", 30);
  char buf[256];
  const ssize_t ran = ::read(fds[0], buf, sizeof buf);
  CHECK(ran <= 0);  // the handler ran in no child
}

TEST_CASE("a child that exits non-zero before reporting is harness breakage", "[isolation]") {
  const auto run = run_mode("exit3");
  CHECK(run.exit_code == 3);
  const auto fate = classify_child_end(run, 10);
  CHECK(fate.unresolved);
  CHECK_FALSE(fate.failure.has_value());
  CHECK_THAT(fate.evidence, has_substr("status 3"));
}

TEST_CASE("a child that prints garbage is harness breakage, never a pass", "[isolation]") {
  const auto run = run_mode("garbage");
  CHECK(run.exit_code == 0);
  CHECK(run.garbage.size() == 1);
  const auto fate = classify_child_end(run, 10);
  CHECK(fate.unresolved);
  CHECK_THAT(fate.evidence, has_substr("unreadable output"));
}

TEST_CASE("a well-behaved child's JSON lines arrive", "[isolation]") {
  const auto run = run_mode("ok");
  REQUIRE(run.messages.size() == 1);
  CHECK(run.messages[0]["type"] == "done");
  CHECK(run.exit_code == 0);
}

TEST_CASE("a program that cannot be started is reported, not crashed on", "[isolation]") {
  const auto run = spawn_and_collect({"/no/such/program"}, "", 5);
  CHECK(run.exit_code == 127);
  CHECK(classify_child_end(run, 5).unresolved);
}

TEST_CASE("several workers start the costliest rungs first; one keeps their order",
          "[isolation]") {
  // Cost: a unit a case plus a unit a Mi of shape. Rung 1 is an envelope of 768 small shapes,
  // rung 3 a few large ones (3 x (1 + 16) = 51), rungs 0, 2 and 4 small.
  std::vector<Rung> rungs(5);
  const std::size_t cases[] = {7, 768, 13, 3, 7};
  for (std::size_t i = 0; i < rungs.size(); ++i) rungs[i].cases.assign(cases[i], Case{{"rows", 3}, {"d", 100}});
  rungs[3].cases.assign(3, Case{{"rows", 4096}, {"d", 4096}});
  CHECK(expected_cost(rungs[3]) == Approx(51.0));
  CHECK(dispatch_order(rungs, 6) == std::vector<std::size_t>{1, 3, 2, 0, 4});
  CHECK(dispatch_order(rungs, 1) == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(dispatch_order({}, 4).empty());
  // A rung expected to time out starts in the middle: neither beside the costliest nor last.
  rungs[4].expect = FailReason::Timeout;
  CHECK(dispatch_order(rungs, 6) == std::vector<std::size_t>{1, 3, 4, 2, 0});
  rungs[2].expect = FailReason::Timeout;  // several stay in their order
  CHECK(dispatch_order(rungs, 6) == std::vector<std::size_t>{1, 2, 4, 3, 0});
  CHECK(dispatch_order(rungs, 1) == std::vector<std::size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("a rung child's timeout counts from its context; the wait for one is not charged", "[isolation]") {
  // Ready after 0.8 s, done 0.1 s later: inside a 0.5 s timeout counted from ready.
  const auto slow = spawn_and_collect({LADDER_BINARY, "__selftest-child", "slow-ready"}, "", rung_child_limits(0.5));
  CHECK_FALSE(slow.timed_out);
  CHECK(slow.exit_code == 0);
  // Counted from the spawn, the same child times out.
  CHECK(spawn_and_collect({LADDER_BINARY, "__selftest-child", "slow-ready"}, "", 0.5).timed_out);
  // Ready, then hung: a timeout, with the clock named.
  const auto t0 = std::chrono::steady_clock::now();
  const auto hung = spawn_and_collect({LADDER_BINARY, "__selftest-child", "ready-then-hang"}, "", rung_child_limits(0.3));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);
  CHECK(hung.timed_out);
  CHECK_FALSE(hung.timed_out_in_setup);
  const auto fate = classify_child_end(hung, 0.3);
  CHECK(fate.failure == FailReason::Timeout);
  CHECK_THAT(fate.evidence, has_substr("of the case's start"));
}

TEST_CASE("a rung child's timeout is per case: each case's begin starts the clock again", "[isolation]") {
  // Four cases of 0.3 s each: 1.2 s in all, inside a 0.5 s limit a case, over it for the child.
  const auto run = spawn_and_collect({LADDER_BINARY, "__selftest-child", "slow-cases"}, "", rung_child_limits(0.5));
  CHECK_FALSE(run.timed_out);
  CHECK(run.exit_code == 0);
  CHECK(spawn_and_collect({LADDER_BINARY, "__selftest-child", "slow-cases"}, "", ChildLimits{0.5, "toolchain", 60, ""})
            .timed_out);
}

TEST_CASE("a child that never gets ready is harness trouble (UNRESOLVED), not a timeout", "[isolation]") {
  const auto run = spawn_and_collect({LADDER_BINARY, "__selftest-child", "hang"}, "", ChildLimits{0.2, "toolchain", 0.5});
  CHECK(run.timed_out);
  CHECK(run.timed_out_in_setup);
  const auto fate = classify_child_end(run, 0.2);
  CHECK(fate.unresolved);
  CHECK_FALSE(fate.failure.has_value());
  CHECK_THAT(fate.evidence, has_substr("no context within 0.5 s"));
}
