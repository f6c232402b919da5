// The parent side of isolation: one child per rung (more after a sticky error), a timeout per
// child, and the fold of what the children reported into one RungResult with its verdict.
// The parent never initializes CUDA.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/result.h"
#include "harness/isolate/spawn.h"
#include "harness/isolate/trace.h"
#include "harness/ladder/manifest.h"

namespace ladder::isolate {

struct RunnerOptions {
  double timeout_s = 10;
  std::string arch, nvrtc_path, cache_dir;
  bool compile_only = false, no_cache = false;
  bool bare_allocations = false;  // no redzones: for compute-sanitizer memcheck (buffers.h)
  int jobs = 1;
  std::string self;  // the binary to start in child mode; empty: this one
  TraceLog* trace = nullptr;  // when set, every child's spans and each rung's go there
};

struct ToolchainFacts {
  nlohmann::json facts = nlohmann::json::object();  // from the first child's "toolchain" line
};

// A rung's child gets `timeout_s` for each case, counted from the case's "begin" (the first from
// the moment it reports its toolchain, its context made), and before that kContextSetupSeconds
// (or the timeout, if longer) to start. Contexts are made one at a time by the driver, so with
// many workers a child can wait seconds for its own (call 193: up to 4.7 s at six workers, past
// 10 s at twelve), and GPUs shared by several processes slice their time, so a rung of 768 small
// cases took over 10 s at eight workers (call 194): neither is the rung's to pay for. A child that
// never gets a context in time is UNRESOLVED, not a timeout.
constexpr double kContextSetupSeconds = 60;
ChildLimits rung_child_limits(double timeout_s);

// `track` names the worker in the trace.
RungResult run_rung(const Rung& rung, const RunnerOptions& opts, ToolchainFacts& facts, int track = 0);

// A rung's expected cost, for ordering only: one unit a case plus one a Mi of its shape (the
// product of the case's dimensions), so an envelope of hundreds of small shapes and a few cases
// of 4096 x 4096 both count as long.
double expected_cost(const Rung& rung);

// The order in which `jobs` workers start the rungs: in order for one worker; for several, the
// costliest first (stable), so that a long rung does not start last and leave the other
// workers idle at the end of the run. A rung expected to time out holds its worker for its whole
// timeout while its kernel spins on the GPU, so it starts in the middle: first, it slows the
// costliest rungs, which share the GPU with it (call 108: the envelope rung took 10.0 s beside
// it, 2.7 s without); last, its timeout is the run's tail with one worker busy (call 193: the
// last 3.1 s of 16.1).
std::vector<std::size_t> dispatch_order(const std::vector<Rung>& rungs, int jobs);

// Runs rungs on `opts.jobs` workers, started in dispatch_order; `on_done` is called
// (serialized) as each finishes. Results come back in the rungs' order. Rungs never started
// (interrupted) are absent.
std::vector<RungResult> run_rungs(const std::vector<Rung>& rungs, const RunnerOptions& opts, ToolchainFacts& facts,
                                  const std::function<void(const RungResult&)>& on_done);

// Runs case `index` of `rung` alone in a fresh child and says whether it fails with `failure`
// again: "confirmed alone in a fresh process", or what happened instead. The runner calls it for
// a case that broke its process (a crash or a sticky CUDA error) after other cases ran there.
std::string confirm_alone(const Rung& rung, std::size_t index, FailReason failure, const RunnerOptions& opts,
                          double timeout_s, int track = 0);

// How a child that never said "done" ended, for the case it was in: crash, timeout or
// harness breakage (UNRESOLVED). Exposed for the classification self-test.
struct ChildFate {
  std::optional<FailReason> failure;  // crash or timeout
  bool unresolved = false;
  std::string evidence;
  std::string signal;
};
ChildFate classify_child_end(const ChildRun& run, double timeout_s);

}  // namespace ladder::isolate
