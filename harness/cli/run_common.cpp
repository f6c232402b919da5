#include "harness/cli/run_common.h"

#include "harness/core/dtype.h"

#include <fnmatch.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/ladder/manifest.h"
#include "harness/report/printers.h"
#include "harness/toolchain/nvrtc.h"
#include "harness/toolchain/paths.h"

namespace ladder::cli {

CLI::Validator dtype_option() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const auto dt = parse_dtype(value);
        if (!dt || (*dt != DType::F32 && *dt != DType::F16 && *dt != DType::BF16))
          return "expected f32, f16 or bf16, got '" + value + "'";
        value = std::string(label(*dt));
        return "";
      },
      "f32|f16|bf16");
}

CLI::Validator arch_option() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (toolchain::arch_number(value)) return "";
        return "expected an arch such as sm_90, sm_90a or sm_80, got '" + value + "'";
      },
      "sm_NN");
}

CLI::Validator seconds_option() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double seconds = std::strtod(value.c_str(), &end);
        if (!value.empty() && end == value.c_str() + value.size() && std::isfinite(seconds) && seconds > 0)
          return "";
        return "expected a positive number of seconds, got '" + value + "'";
      },
      "SECONDS");
}

void add_common_options(CLI::App& cmd, CommonOptions& o) {
  // Contexts are created one at a time by the driver, but a rung's host work (inputs, checks)
  // overlaps with the next rung's start: a few workers hide most of it.
  o.runner.jobs = static_cast<int>(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 6u));
  cmd.add_option("--json", o.json_path, "write results as JSON to FILE (rewritten after every rung)");
  cmd.add_option("--junit", o.junit_path, "write results as JUnit XML to FILE, for CI servers (rewritten after every rung)");
  cmd.add_option("--trace", o.trace_path,
                 "write where each child's time went (start, context, nvrtc, compile, cases, exit) to FILE as "
                 "Chrome trace events, for chrome://tracing or Perfetto");
  cmd.add_option("--timeout", o.runner.timeout_s, "seconds per child before its process group is ended")
      ->check(seconds_option());
  cmd.add_option("--arch", o.runner.arch, "compile for this arch (default: the device's, or sm_90)")
      ->check(arch_option());
  cmd.add_option("--nvrtc", o.runner.nvrtc_path, "path of the libnvrtc.so to compile with");
  cmd.add_option("--jobs,-j", o.runner.jobs, "rungs run at once (default: half the cores, at most 6)")->check(CLI::Range(1, 256));
  cmd.add_option("--cache-dir", o.runner.cache_dir, "compile cache folder");
  cmd.add_flag("--no-cache", o.runner.no_cache, "compile everything afresh");
  cmd.add_flag("--compile-only", o.runner.compile_only, "stop after the image stage; touch no GPU");
  cmd.add_flag("--bare-allocations", o.runner.bare_allocations,
               "allocate each buffer at its exact size, without redzones, so that compute-sanitizer memcheck "
               "sees reads and writes just past it (the redzone check is then off)");
  cmd.add_flag("--verbose,-v", o.verbose, "longer evidence and NVRTC logs");
  cmd.add_flag("--git-bisect", o.git_bisect, "exit 0 good, 1 bad, 125 skip (toolchain or device problem)");
}

std::vector<Rung> select_rungs(const std::vector<Rung>& rungs, const std::vector<std::string>& globs) {
  if (globs.empty()) return rungs;
  std::vector<Rung> out;
  for (const auto& g : globs) {
    bool any = false;
    for (const auto& r : rungs)
      if (::fnmatch(g.c_str(), r.name.c_str(), 0) == 0) {
        any = true;
        if (std::none_of(out.begin(), out.end(), [&](const Rung& x) { return x.name == r.name; })) out.push_back(r);
      }
    if (!any) {
      // Rung names have no '.' or '/': a glob with one is most likely a manifest given in the
      // wrong place.
      const bool looks_like_path = g.find_first_of("./") != std::string::npos;
      throw std::invalid_argument(fmt::format("no rung matches '{}'{}", g,
                                              looks_like_path ? " (a manifest is given with --ladder FILE)" : ""));
    }
  }
  // Keep the ladder's order: rungs build on each other.
  std::vector<Rung> ordered;
  for (const auto& r : rungs)
    if (std::any_of(out.begin(), out.end(), [&](const Rung& x) { return x.name == r.name; })) ordered.push_back(r);
  return ordered;
}

void add_ladder_option(CLI::App& cmd, std::vector<std::string>& files, const std::string& defaults) {
  cmd.add_option("--ladder,-l", files, "manifest; repeat for several (default: " + defaults + ")")
      ->allow_extra_args(false);
}

std::vector<std::string> ladder_files_or_builtin(const std::vector<std::string>& files, bool with_selftest) {
  if (!files.empty()) return files;
  std::vector<std::string> out{toolchain::probes_dir() + "/ladder.json"};
  if (with_selftest) out.push_back(toolchain::probes_dir() + "/selftest.json");
  return out;
}

std::vector<Rung> load_ladders(const std::vector<std::string>& files, RunDocument& doc) {
  std::vector<Rung> all;
  for (const auto& file : files) {
    Ladder lad = load_ladder(file);
    for (auto& r : lad.rungs) {
      if (std::any_of(all.begin(), all.end(), [&](const Rung& x) { return x.name == r.name; }))
        throw ManifestError(file, "/rungs", fmt::format("rung names unique across ladders; '{}' repeats", r.name));
      all.push_back(std::move(r));
    }
    doc.ladder_name += (doc.ladder_name.empty() ? "" : " + ") + lad.name;
    doc.ladder_file += (doc.ladder_file.empty() ? "" : " ") + file;
  }
  return all;
}

void refuse_overwriting_inputs(const CommonOptions& o, const std::vector<std::string>& inputs) {
  for (const auto& [option, out] : {std::pair{"--json", o.json_path}, std::pair{"--junit", o.junit_path},
                                    std::pair{"--trace", o.trace_path}})
    for (const auto& in : inputs) {
      std::error_code ec;  // an output that does not exist yet overwrites nothing
      if (!out.empty() && std::filesystem::equivalent(out, in, ec))
        throw std::invalid_argument(fmt::format("{} {} is an input of this command; the results would overwrite it",
                                                option, out));
    }
}

const Rung& find_rung(const std::vector<Rung>& rungs, const std::string& name, const RunDocument& doc) {
  auto it = std::find_if(rungs.begin(), rungs.end(), [&](const Rung& r) { return r.name == name; });
  if (it == rungs.end()) throw std::invalid_argument(fmt::format("no rung named '{}' in {}", name, doc.ladder_file));
  return *it;
}

bool stop_cut_run(const std::vector<RungResult>& results, std::size_t planned) {
  if (results.size() < planned) return true;
  for (const RungResult& r : results) {
    if (r.verdict != Verdict::Unresolved) continue;
    if (isolate::is_interrupted_evidence(r.evidence)) return true;
    for (const CaseResult& c : r.cases)
      if (isolate::is_interrupted_evidence(c.evidence)) return true;
  }
  return false;
}

void run_and_print(const std::vector<Rung>& rungs, const CommonOptions& o, RunDocument& doc) {
  std::vector<std::unique_ptr<Printer>> printers;
  printers.push_back(make_terminal_printer(std::cout, o.verbose));
  if (!o.json_path.empty()) printers.push_back(make_json_printer(o.json_path));
  if (!o.junit_path.empty()) printers.push_back(make_junit_printer(o.junit_path));
  doc.date = now_iso8601();
  doc.commit = current_commit();
  doc.host = host_name();
  doc.options = {{"timeout_s", o.runner.timeout_s}, {"arch", o.runner.arch}, {"nvrtc", o.runner.nvrtc_path},
                 {"jobs", o.runner.jobs}, {"compile_only", o.runner.compile_only}, {"no_cache", o.runner.no_cache},
                 {"bare_allocations", o.runner.bare_allocations}};
  for (auto& p : printers) p->begin(doc);
  isolate::ToolchainFacts facts;
  isolate::RunnerOptions runner = o.runner;
  isolate::TraceLog trace;
  if (!o.trace_path.empty() || o.child_time) runner.trace = &trace;
  const auto t0 = std::chrono::steady_clock::now();
  auto on_done = [&](const RungResult& r) {
    doc.rungs.push_back(r);
    if (doc.toolchain.empty() && !facts.facts.empty()) doc.toolchain = facts.facts;
    doc.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (auto& p : printers) p->rung(doc, r);
  };
  auto results = isolate::run_rungs(rungs, runner, facts, on_done);
  // Printed in finishing order; stored in ladder order.
  doc.rungs = std::move(results);
  doc.toolchain = facts.facts;
  doc.toolchain.erase("type");
  doc.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // Read once: a signal landing between two reads would make the two fields disagree.
  const bool stopped = isolate::stop_requested();
  doc.interrupted = stopped && stop_cut_run(doc.rungs, rungs.size());
  doc.finished = !doc.interrupted;
  if (stopped && !doc.interrupted) doc.extra["stop_after_last_rung"] = true;
  if (runner.trace) {
    doc.extra["child_time_ms"] = trace.totals_ms();
    // Written after the rungs, interrupted or not: a trace of what ran is kept either way.
    if (!o.trace_path.empty()) write_file_atomic(o.trace_path, trace.chrome_trace().dump() + "\n");
  }
  for (auto& p : printers) p->end(doc);
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  for (char c : raw) out += c == '\0' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = [](int) { isolate::request_stop(); };
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace ladder::cli
