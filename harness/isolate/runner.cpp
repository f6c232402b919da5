#include "harness/isolate/runner.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "harness/ladder/serialize.h"
#include "harness/toolchain/paths.h"

namespace ladder::isolate {
using nlohmann::json;

namespace {

std::string tail_line(const std::string& log) {
  std::string t = log;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const auto nl = t.rfind('\n');
  t = nl == std::string::npos ? t : t.substr(nl + 1);
  return t.size() > 160 ? t.substr(t.size() - 160) : t;
}

bool said(const ChildRun& run, const char* type) {
  return std::any_of(run.messages.begin(), run.messages.end(),
                     [&](const json& m) { return m.value("type", "") == type; });
}

// Picks the verdict, the reason and the one line of evidence from the cases that ran.
void decide(RungResult& r, const std::string& rung_unresolved) {
  std::sort(r.cases.begin(), r.cases.end(), [](const CaseResult& a, const CaseResult& b) { return a.index < b.index; });
  r.cases_run = r.cases.size();
  const CaseResult* first_fail = nullptr;
  const CaseResult* first_unresolved = nullptr;
  std::size_t skipped = 0;
  for (const auto& c : r.cases) {
    if (c.unresolved && !first_unresolved) first_unresolved = &c;
    if (c.failure && !first_fail) first_fail = &c;
    if (c.skipped) ++skipped;
    if (!c.failure && !c.unresolved && !c.skipped) ++r.cases_passed;
    for (const auto& [k, v] : c.ms) r.ms[k] += v;
    r.stage = std::max(r.stage, c.stage);
  }
  if (!rung_unresolved.empty() || first_unresolved) {
    r.verdict = Verdict::Unresolved;
    r.evidence = !rung_unresolved.empty() ? rung_unresolved : first_unresolved->evidence;
    if (first_unresolved) r.failing_case = shape_text(first_unresolved->shape);
    return;
  }
  if (first_fail) {
    r.reason = first_fail->failure;
    r.stage = first_fail->stage;
    r.failing_case = shape_text(first_fail->shape);
    r.evidence = first_fail->evidence;
    if (!first_fail->cuda_error.empty() && r.evidence.find(first_fail->cuda_error) == std::string::npos)
      r.evidence = first_fail->cuda_error + ": " + r.evidence;
    r.verdict = expected_outcome(r.reason, r.expected);
    return;
  }
  if (r.cases_run == 0) {
    r.verdict = Verdict::Unresolved;
    r.evidence = "no case ran";
    return;
  }
  if (skipped > 0) {
    // Without the GPU stages nothing can be said of what the rung does at run time.
    r.verdict = Verdict::Skipped;
    r.evidence = r.cases.front().evidence;
    return;
  }
  if (r.cases_run < r.cases_total) {
    r.verdict = Verdict::Unresolved;
    r.evidence = fmt::format("only {} of {} cases reported", r.cases_run, r.cases_total);
    return;
  }
  r.verdict = expected_outcome(std::nullopt, r.expected);
  // The evidence of a pass: the closest any output came to its bound.
  const NumericsSummary* worst = nullptr;
  for (const auto& c : r.cases)
    for (const auto& n : c.numerics)
      if (!worst || n.worst_ratio > worst->worst_ratio) worst = &n;
  r.evidence = worst ? fmt::format("{} cases; worst {:.2f} of bound ({}: {})", r.cases_run, worst->worst_ratio,
                                   worst->buffer, worst->summary)
                     : fmt::format("{} cases, all written", r.cases_run);
  if (r.verdict == Verdict::XPass) r.evidence = "expected " + std::string(label(r.expected)) + " but passed; " + r.evidence;
}

std::vector<std::string> child_argv(const RunnerOptions& opts, std::size_t first_case) {
  const std::string self = opts.self.empty() ? toolchain::self_executable() : opts.self;
  std::vector<std::string> argv{self, "__child", "--first-case", std::to_string(first_case)};
  if (!opts.arch.empty()) argv.insert(argv.end(), {"--arch", opts.arch});
  if (!opts.nvrtc_path.empty()) argv.insert(argv.end(), {"--nvrtc", opts.nvrtc_path});
  if (!opts.cache_dir.empty()) argv.insert(argv.end(), {"--cache-dir", opts.cache_dir});
  if (opts.compile_only) argv.push_back("--compile-only");
  if (opts.no_cache) argv.push_back("--no-cache");
  if (opts.bare_allocations) argv.push_back("--bare-allocations");
  return argv;
}

}  // namespace

ChildLimits rung_child_limits(double timeout_s) {
  return {timeout_s, "toolchain", std::max(kContextSetupSeconds, timeout_s), "begin"};
}

std::string confirm_alone(const Rung& rung, std::size_t index, FailReason failure, const RunnerOptions& opts,
                          double timeout_s, int track) {
  Rung alone = rung;
  alone.cases = {rung.cases.at(index)};
  const ChildRun run = spawn_and_collect(child_argv(opts, 0), single_rung_manifest(alone), rung_child_limits(timeout_s));
  if (opts.trace) opts.trace->add_child(track, run);
  std::optional<FailReason> again;
  bool decided = false;
  for (const auto& m : run.messages)
    if (m.value("type", "") == "case") {
      try {
        const CaseResult c = m.get<CaseResult>();
        if (c.unresolved || c.skipped) return "not confirmed: alone, the case could not run";
        again = c.failure;
        decided = true;
      } catch (const std::exception&) {
        return "not confirmed: alone, the child sent a malformed case";
      }
    }
  if (!decided) {
    const ChildFate fate = classify_child_end(run, timeout_s);
    if (fate.unresolved) return "not confirmed: alone, " + fate.evidence;
    again = fate.failure;
  }
  if (again == failure) return "confirmed alone in a fresh process";
  if (!again)
    return "passed alone in a fresh process: a case before it in the same process left the context broken";
  return fmt::format("alone in a fresh process it failed otherwise ({})", label(*again));
}

ChildFate classify_child_end(const ChildRun& run, double timeout_s) {
  ChildFate f;
  if (run.spawn_failed) {
    f.unresolved = true;
    f.evidence = "could not start the child: " + run.spawn_error;
  } else if (run.timed_out_in_setup) {
    // Not the rung's fault: the driver never gave the child a context in time.
    f.unresolved = true;
    f.evidence = stop_requested() ? std::string(kInterruptedEvidence)
                                  : fmt::format("no context within {:g} s of the start; process group ended", run.setup_s);
  } else if (run.timed_out && stop_requested()) {
    // Ended because the run was stopped (SIGINT/SIGTERM), not for taking too long: the harness
    // cannot decide this rung, so it is UNRESOLVED, never a timeout FAIL.
    f.unresolved = true;
    f.evidence = std::string(kInterruptedEvidence);
  } else if (run.timed_out) {
    f.failure = FailReason::Timeout;
    f.evidence = run.setup_s > 0 ? fmt::format("no result within {:g} s of the case's start; process group ended", timeout_s)
                                   : fmt::format("no result within {:g} s; process group ended", timeout_s);
  } else if (run.signal) {
    f.failure = FailReason::Crash;
    f.signal = signal_name(run.signal);
    f.evidence = fmt::format("child killed by {}", f.signal);
  } else if (!run.garbage.empty()) {
    f.unresolved = true;
    f.evidence = fmt::format("child sent unreadable output: '{}'", run.garbage.front());
  } else if (run.exit_code != 0) {
    f.unresolved = true;
    f.evidence = fmt::format("child exited with status {} before reporting: {}", run.exit_code, tail_line(run.log_tail));
  } else {
    f.unresolved = true;
    f.evidence = "child ended without reporting";
  }
  return f;
}

RungResult run_rung(const Rung& rung, const RunnerOptions& opts, ToolchainFacts& facts, int track) {
  RungResult r;
  r.name = rung.name;
  r.adds = rung.adds;
  r.features = rung.features;
  r.expected = rung.expect;
  r.cases_total = rung.cases.size();
  const double timeout = rung.timeout_s > 0 ? rung.timeout_s : opts.timeout_s;
  const std::string input = single_rung_manifest(rung);
  std::string rung_unresolved;
  std::size_t next = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const double t0_us = monotonic_us(t0);

  // A case that broke its process after other cases ran in it is run again alone, in a fresh
  // process, to confirm it was at fault (its evidence says what that run showed).
  auto confirm = [&](CaseResult& c, std::size_t child_first) {
    if (c.index == child_first || !c.failure || stop_requested()) return;
    c.evidence += " [" + confirm_alone(rung, c.index, *c.failure, opts, timeout, track) + "]";
    ++r.children;
  };

  while (next < rung.cases.size() && rung_unresolved.empty() && !stop_requested()) {
    const std::size_t child_first = next;
    const ChildRun run = spawn_and_collect(child_argv(opts, next), input, rung_child_limits(timeout));
    ++r.children;
    if (opts.trace) opts.trace->add_child(track, run);

    std::optional<std::size_t> current;
    std::optional<std::size_t> resume;
    for (const auto& m : run.messages) {
      const std::string type = m.value("type", "");
      try {
        if (type == "toolchain") {
          if (facts.facts.empty()) facts.facts = m;
        } else if (type == "compile") {
          const bool ok = m.value("ok", false);
          if (r.nvrtc_options.empty() || !ok) {
            r.nvrtc_options = m.value("options", std::vector<std::string>{});
            r.nvrtc_log = m.value("log", "");
            r.cache_hit = m.value("cache_hit", false);
          }
          if (!ok && r.compile_error.empty()) r.compile_error = m.value("error", "");
          if (m.contains("resources")) {
            auto image = m.at("resources").get<ImageResources>();
            const bool known = std::any_of(r.images.begin(), r.images.end(),
                                           [&](const ImageResources& i) { return i.entry == image.entry; });
            if (!known) r.images.push_back(std::move(image));
          }
        } else if (type == "begin") {
          current = m.at("index").get<std::size_t>();
        } else if (type == "case") {
          r.cases.push_back(m.get<CaseResult>());
          current.reset();
        } else if (type == "stopped") {
          resume = m.at("next").get<std::size_t>();
        } else if (type == "unresolved") {
          rung_unresolved = m.value("evidence", "child could not run the rung");
        }
      } catch (const std::exception& e) {
        rung_unresolved = fmt::format("child sent a malformed '{}' line: {}", type, e.what());
      }
    }
    if (!rung_unresolved.empty()) break;
    if (said(run, "done") && run.garbage.empty()) break;
    if (resume) {
      // A sticky CUDA error: the case before `resume` is the one whose error poisoned the context.
      for (auto& c : r.cases)
        if (c.index + 1 == *resume) confirm(c, child_first);
      next = *resume;
      continue;
    }
    // The child ended without finishing: pin its fate on the case it was in.
    const ChildFate fate = classify_child_end(run, timeout);
    if (fate.unresolved || !current) {
      rung_unresolved = fate.evidence;
      break;
    }
    CaseResult c;
    c.index = *current;
    c.shape = rung.cases[*current];
    c.failure = fate.failure;
    c.stage = Stage::Launch;
    c.signal = fate.signal;
    c.evidence = fate.evidence;
    if (fate.failure != FailReason::Timeout) confirm(c, child_first);
    r.cases.push_back(c);
    // A hang would cost the full timeout again for each remaining case; stop the rung there.
    if (fate.failure == FailReason::Timeout) break;
    next = *current + 1;
  }
  // A rung the stop cut short says how far it got, so a user can tell a rung stopped in its
  // last case from one that never began.
  const bool cut_short = rung_unresolved.empty() ? r.cases.size() < r.cases_total
                                                 : rung_unresolved == kInterruptedEvidence;
  if (stop_requested() && cut_short)
    rung_unresolved = fmt::format("{} after {} of {} cases", kInterruptedEvidence, r.cases.size(), r.cases_total);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (opts.trace)
    opts.trace->add({rung.name, "rung", track, t0_us, t0_us + 1000 * r.wall_ms, {{"children", r.children}}});
  // A compile failure reports once for the rung: fold its log into the evidence.
  decide(r, rung_unresolved);
  if (r.reason == FailReason::Compile && !r.compile_error.empty()) {
    r.evidence = r.compile_error;
    if (!r.nvrtc_log.empty()) r.evidence += " | " + tail_line(r.nvrtc_log.substr(0, r.nvrtc_log.find('\n')));
  }
  return r;
}

double expected_cost(const Rung& rung) {
  double cost = 0;
  for (const Case& c : rung.cases) {
    double size = 1;
    for (const auto& [dim, value] : c) size *= static_cast<double>(std::max<std::int64_t>(1, value));
    cost += 1 + size / (1 << 20);
  }
  return cost;
}

std::vector<std::size_t> dispatch_order(const std::vector<Rung>& rungs, int jobs) {
  std::vector<std::size_t> order(rungs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (jobs > 1) {
    std::vector<double> cost(rungs.size());
    for (std::size_t i = 0; i < rungs.size(); ++i) cost[i] = expected_cost(rungs[i]);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
    // Rungs expected to time out go to the middle, in their order.
    std::vector<std::size_t> hangs, rest;
    for (std::size_t i : order) (rungs[i].expect == FailReason::Timeout ? hangs : rest).push_back(i);
    rest.insert(rest.begin() + static_cast<std::ptrdiff_t>(rest.size() / 2), hangs.begin(), hangs.end());
    order = std::move(rest);
  }
  return order;
}

std::vector<RungResult> run_rungs(const std::vector<Rung>& rungs, const RunnerOptions& opts, ToolchainFacts& facts,
                                  const std::function<void(const RungResult&)>& on_done) {
  std::vector<std::optional<RungResult>> slots(rungs.size());
  const std::vector<std::size_t> order = dispatch_order(rungs, opts.jobs);
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  auto worker = [&](int track) {
    for (std::size_t k; (k = next++) < rungs.size() && !stop_requested();) {
      const std::size_t i = order[k];
      ToolchainFacts local;
      RungResult r = run_rung(rungs[i], opts, local, track);
      std::lock_guard lock(mu);
      if (facts.facts.empty() && !local.facts.empty()) facts = local;
      slots[i] = std::move(r);
      if (on_done) on_done(*slots[i]);
    }
  };
  const int jobs = std::max(1, opts.jobs);
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker, t);
  worker(0);
  for (auto& t : threads) t.join();
  std::vector<RungResult> out;
  for (auto& s : slots)
    if (s) out.push_back(std::move(*s));
  return out;
}

}  // namespace ladder::isolate
