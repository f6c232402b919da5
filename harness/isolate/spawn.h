// Starting a child in its own process group, feeding it, collecting its JSON lines, and ending
// it on timeout: SIGTERM to the whole group, then SIGKILL. No zombies are left behind.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ladder::isolate {

struct ChildRun {
  std::vector<nlohmann::json> messages;  // parsed result lines, in order
  std::vector<std::string> garbage;      // result lines that were not JSON objects
  int exit_code = -1;                    // when it exited
  int signal = 0;                        // when a signal ended it (not ours)
  bool timed_out = false;                // we ended it
  bool timed_out_in_setup = false;       // ... before it said it was ready (ChildLimits)
  double setup_s = 0;                    // the setup allowance it had
  bool spawn_failed = false;
  std::string spawn_error;
  std::string log_tail;                  // the last few KB of its stdout and stderr
  double wall_ms = 0;
  double started_us = 0, ended_us = 0;  // monotonic_us() at the fork and after the reaping
};

// How long a child may run. With `ready_type` set, the clock for `timeout_s` starts when the child
// sends a line of that type (a rung's child sends "toolchain" once its context exists), so that
// time spent waiting on the driver while other processes create or tear down contexts is not
// charged to the rung; until then the child has `setup_s`. With it empty, the clock starts at the
// spawn. Each line of `restart_type` (a rung's "begin" of each case) starts the clock again, so
// the limit is per case. timeout_s <= 0: no limit at all.
struct ChildLimits {
  double timeout_s = 0;
  std::string ready_type;
  double setup_s = 60;
  std::string restart_type;
};

// argv[0] is the program path. `input` is written to its stdin.
ChildRun spawn_and_collect(const std::vector<std::string>& argv, const std::string& input, const ChildLimits& limits);
// The timeout counted from the spawn.
ChildRun spawn_and_collect(const std::vector<std::string>& argv, const std::string& input, double timeout_s);

std::string signal_name(int sig);  // "SIGSEGV"

// Asks running children to stop (from a SIGINT handler): they are ended as on timeout.
void request_stop();
bool stop_requested();
// Forgets a request_stop(): for tests that stop a run and then go on in the same process.
void clear_stop();
// The evidence of a rung or case that a stop ended (UNRESOLVED): the runner writes it, and
// cli::stop_cut_run reads it to tell a run the stop cut short from one it came after. A rung's
// evidence goes on to say how far it got ("interrupted after 12 of 66 cases"), so readers match
// it with is_interrupted_evidence.
inline constexpr std::string_view kInterruptedEvidence = "interrupted";
inline bool is_interrupted_evidence(std::string_view evidence) {
  if (!evidence.starts_with(kInterruptedEvidence)) return false;
  const std::string_view rest = evidence.substr(kInterruptedEvidence.size());
  return rest.empty() || rest.front() == ' ';
}

}  // namespace ladder::isolate
