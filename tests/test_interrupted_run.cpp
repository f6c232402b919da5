// An interrupted run keeps what finished: `ladder run --json` writes its document at the start and
// rewrites it after every rung, and on SIGINT ends its children, marks the document interrupted and exits 2 (harness).
// Compiling afresh (--no-cache) makes each rung take long enough, with no GPU, for the signal to
// land while rungs are still left. A stop after the last rung finished cuts nothing (stop_cut_run).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "harness/cli/run_common.h"
#include "harness/core/result.h"
#include "harness/core/verdict.h"
#include "harness/isolate/spawn.h"

#include "tests/catch.h"
#include "tests/cli_helpers.h"

extern char** environ;

TEST_CASE("an interrupted run keeps the rungs that finished and says it was interrupted", "[cli]") {
  namespace fs = std::filesystem;
  const std::string ladder = ladder_test::temp_path("interrupt-ladder.json");
  const std::string json = ladder_test::temp_path("interrupt-run.json");
  const std::string cache = ladder_test::temp_path("interrupt-cache");
  fs::remove(json);
  // Many rungs of production kernels: seconds of NVRTC each without the cache.
  REQUIRE(ladder_test::run_ladder("verify rmsnorm layernorm --no-fixtures --write-ladder " + ladder).exit_code == 0);
  const std::vector<std::string> args = {LADDER_BINARY, "run", "--ladder", ladder, "--compile-only", "--no-cache",
                                         "--cache-dir", cache, "-j", "1", "--json", json};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, LADDER_BINARY, &quiet, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&quiet);
  // Stop the run once its document (written atomically, so always whole) holds a finished rung.
  auto rungs_written = [&]() -> std::size_t {
    if (!fs::exists(json)) return 0;
    return ladder_test::read_json(json).at("rungs").size();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (rungs_written() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const bool one_finished = rungs_written() > 0;
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(one_finished);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == ladder::kExitHarness);

  const auto doc = ladder_test::read_json(json);
  CHECK(doc.at("interrupted") == true);
  CHECK(doc.at("finished") == false);
  const auto planned = ladder_test::read_json(ladder).at("rungs").size();
  std::size_t finished = 0, interrupted = 0;
  for (const auto& r : doc.at("rungs")) {
    if (r.at("verdict") == "SKIPPED") ++finished;  // compiled, GPU stages skipped: a finished rung
    else if (r.at("verdict") == "UNRESOLVED") {
      ++interrupted;
      // The cut rung says how far it got, in the runner's words.
      const std::string evidence = r.at("evidence");
      CHECK(ladder::isolate::is_interrupted_evidence(evidence));
      CHECK(evidence.find(fmt::format(" of {} cases", r.at("cases_total").get<std::size_t>())) != std::string::npos);
    } else FAIL_CHECK("rung " << r.at("name") << " is " << r.at("verdict"));
  }
  CHECK(finished >= 1);
  CHECK(finished < planned);  // the signal landed with rungs left
  CHECK(interrupted <= 1);    // the one the signal cut short, if any
}

TEST_CASE("a stop cuts a run short only where it left a rung or a case undone", "[cli]") {
  using ladder::RungResult;
  using ladder::Verdict;
  auto rung = [](Verdict v, const std::string& evidence = "") {
    RungResult r;
    r.verdict = v;
    r.evidence = evidence;
    return r;
  };
  const std::vector<RungResult> whole = {rung(Verdict::Pass), rung(Verdict::Fail, "mismatch")};
  // Every planned rung has its result: a stop after the last one cut nothing.
  CHECK_FALSE(ladder::cli::stop_cut_run(whole, 2));
  // A planned rung without a result: cut.
  CHECK(ladder::cli::stop_cut_run(whole, 3));
  // A rung the stop ended is UNRESOLVED with the runner's evidence, or holds a case that is.
  const std::string stopped{ladder::isolate::kInterruptedEvidence};
  auto cut = whole;
  cut.push_back(rung(Verdict::Unresolved, stopped));
  CHECK(ladder::cli::stop_cut_run(cut, 3));
  auto cut_counted = whole;
  cut_counted.push_back(rung(Verdict::Unresolved, stopped + " after 2 of 5 cases"));
  CHECK(ladder::cli::stop_cut_run(cut_counted, 3));
  // A word that merely begins like the runner's is someone else's evidence.
  auto lookalike = whole;
  lookalike.push_back(rung(Verdict::Unresolved, stopped + "_by_driver"));
  CHECK_FALSE(ladder::cli::stop_cut_run(lookalike, 3));
  auto cut_case = whole;
  cut_case.push_back(rung(Verdict::Unresolved, "case 2 of 5: interrupted"));
  cut_case.back().cases.resize(1);
  cut_case.back().cases[0].evidence = stopped;
  CHECK(ladder::cli::stop_cut_run(cut_case, 3));
  // UNRESOLVED for another reason (the harness could not start a child) is not the stop's doing.
  auto other = whole;
  other.push_back(rung(Verdict::Unresolved, "could not start the child: EAGAIN"));
  CHECK_FALSE(ladder::cli::stop_cut_run(other, 3));
}
