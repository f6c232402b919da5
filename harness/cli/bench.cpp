// `ladder bench [KERNEL...]`: GB/s of the production kernels, hot and cold, beside a copy
// ceiling and an unfused baseline measured in the same run, in one child process.
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "harness/bench/bench_spec.h"
#include "harness/cli/bench_builds.h"
#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/core/text.h"
#include "harness/core/dtype.h"
#include "harness/isolate/spawn.h"
#include "harness/kernels/kernel_sources.h"
#include "harness/report/bench_markdown.h"
#include "harness/report/run_document.h"
#include "harness/toolchain/paths.h"

namespace ladder::cli {
namespace {

// --shape ROWSxD: two whole numbers from 1 to INT32_MAX (the kernels take int rows and d).
// Returns what is wrong with `text`, or nothing.
std::optional<std::string> parse_shape(std::string_view text, std::int64_t& rows, std::int64_t& d) {
  const auto x = text.find('x');
  const auto r = parse_integer(text.substr(0, x)), c = parse_integer(x == std::string_view::npos ? "" : text.substr(x + 1));
  if (!r || !c) return "expected ROWSxD, two whole numbers, e.g. 16384x4096";
  rows = *r;
  d = *c;
  if (rows < 1 || d < 1) return "rows and d must each be at least 1";
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (rows > kMax || d > kMax) return fmt::format("rows and d must each be at most {} (the kernels take int)", kMax);
  return std::nullopt;
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("bench", "time the production kernels against a copy ceiling measured in the same run");
  struct State {
    std::vector<std::string> ops;
    std::string json_path, arch, nvrtc, dtype;
    std::vector<std::string> shapes, variants;
    int iters = 50, sms = 0;
    double timeout_s = 600;
    bool resources = false, every_build = false;
  };
  auto st = std::make_shared<State>();
  cmd->add_option("kernels", st->ops, "ops to time (default: all in the default list)");
  cmd->add_option("--dtype", st->dtype, "only this dtype (f32, f16, bf16)")->transform(dtype_option());
  cmd->add_option("--json", st->json_path, "write the bench document to FILE");
  cmd->add_option("--shape", st->shapes, "ROWSxD instead of the default shapes (repeatable: one shape a --shape)")
      ->allow_extra_args(false);
  cmd->add_option("--variant", st->variants, "KEY=VALUE passed to the kernel plan, e.g. items=4 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--iters", st->iters, "launches per hot timing")->check(CLI::Range(1, 100000));
  cmd->add_option("--sms", st->sms,
                  "time on a green context of N SMs (rounded up to the device's partition size, 8 on sm_90) instead "
                  "of the whole GPU: fewer SM cycles for each byte of DRAM traffic, e.g. an H100 at 96 of 132 SMs for "
                  "an H200's; the plans are sized for those SMs, and `ladder report --targets` refuses the document")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--arch", st->arch, "compile for this arch (default: the device's)")->check(arch_option());
  cmd->add_option("--nvrtc", st->nvrtc, "path of the libnvrtc.so to compile with");
  cmd->add_option("--timeout", st->timeout_s, "seconds for the whole bench child")->check(seconds_option());
  cmd->add_flag("--resources", st->resources,
                "time nothing: compile each case's kernels for --arch (default sm_90) and report registers, local and "
                "shared memory, blocks an SM and waves on that arch's reference device (H200; A100 for sm_8x); "
                "needs no GPU");
  cmd->add_flag("--every-build", st->every_build,
                "with --resources: every kernel build the catalog plans, compiled for --arch (default sm_90); "
                "registers and local memory a template at a time (--json: a build at a time); no cases, no GPU")
      ->needs("--resources");
  cmd->callback([st, &exit_code] {
    if (st->every_build) {
      if (!st->ops.empty() || !st->shapes.empty() || !st->variants.empty() || !st->dtype.empty() || st->sms > 0) {
        std::cerr << "ladder bench: --every-build takes every build; it has no kernels, --shape, --variant, --dtype or --sms\n";
        exit_code = kExitHarness;
        return;
      }
      exit_code = every_build_resources(st->arch, st->nvrtc, st->json_path);
      return;
    }
    std::vector<bench::BenchCase> cases;
    const std::set<std::string> wanted(st->ops.begin(), st->ops.end());
    std::set<std::string> seen;
    for (const auto& c : bench::default_cases()) {
      seen.insert(c.kernel.op);
      if (!wanted.empty() && !wanted.count(c.kernel.op)) continue;
      if (!st->dtype.empty() && label(c.kernel.dtype) != st->dtype) continue;
      cases.push_back(c);
    }
    std::map<std::string, std::string> variant;
    for (const auto& kv : st->variants) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos) {
        std::cerr << "ladder bench: --variant expects KEY=VALUE, got '" << kv << "'\n";
        exit_code = kExitHarness;
        return;
      }
      variant[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (!st->shapes.empty()) {
      // Explicit shapes replace the defaults for every selected op and dtype: with --dtype, that
      // dtype for every selected op (the default list need not hold it: rmsnorm f16 is not there);
      // without, the dtypes the default list times each op in.
      std::set<std::pair<std::string, DType>> kinds;
      if (!st->dtype.empty()) {
        const DType dt = *parse_dtype(st->dtype);  // dtype_option() checked it
        for (const auto& op : seen)
          if (wanted.empty() || wanted.count(op)) kinds.insert({op, dt});
      } else {
        for (const auto& c : cases) kinds.insert({c.kernel.op, c.kernel.dtype});
      }
      cases.clear();
      for (const auto& [op, dt] : kinds)
        for (const auto& shape : st->shapes) {
          bench::BenchCase c;
          c.kernel = {op, dt, {}, {}};
          if (const auto wrong = parse_shape(shape, c.rows, c.d)) {
            std::cerr << "ladder bench: --shape '" << shape << "': " << *wrong << "\n";
            exit_code = kExitHarness;
            return;
          }
          cases.push_back(c);
        }
    }
    for (auto& c : cases)
      for (const auto& [k, v] : variant) c.kernel.variant[k] = v;
    for (const auto& w : wanted)
      if (!seen.count(w)) {
        std::cerr << "ladder bench: unknown kernel '" << w << "'\n";
        exit_code = kExitHarness;
        return;
      }
    if (cases.empty()) {
      std::cerr << "ladder bench: no case to time: the default list has no "
                << (st->dtype.empty() ? std::string("such op") : st->dtype + " case of the selected ops")
                << "; give the shapes with --shape ROWSxD\n";
      exit_code = kExitHarness;
      return;
    }
    if (st->sms > 0 && st->resources) {
      std::cerr << "ladder bench: --sms times on a share of a GPU's SMs; --resources times nothing\n";
      exit_code = kExitHarness;
      return;
    }
    nlohmann::json spec = {{"iters", st->iters}, {"resources_only", st->resources}, {"cases", nlohmann::json::array()}};
    if (st->sms > 0) spec["sms"] = st->sms;
    for (const auto& c : cases) spec["cases"].push_back(bench::to_json(c));
    std::vector<std::string> argv{toolchain::self_executable(), "__bench-child"};
    if (!st->arch.empty()) argv.insert(argv.end(), {"--arch", st->arch});
    if (!st->nvrtc.empty()) argv.insert(argv.end(), {"--nvrtc", st->nvrtc});
    install_interrupt_handler();
    const auto run = isolate::spawn_and_collect(argv, spec.dump(), st->timeout_s);

    nlohmann::json doc = {{"tool", "ladder-bench"}, {"command", command_line()}, {"date", now_iso8601()},
                          {"commit", current_commit()}, {"host", host_name()}, {"results", nlohmann::json::array()}};
    doc["kernels"] = kernels::to_json(kernels::kernel_sources());
    if (st->resources) doc["resources_only"] = true;
    std::string problem;
    bool done = false;
    for (const auto& m : run.messages) {
      const std::string type = m.value("type", "");
      if (type == "toolchain") doc["toolchain"] = m;
      else if (type == "copy") doc["copy"] = m;
      else if (type == "result") doc["results"].push_back(m);
      else if (type == "skipped") problem = "SKIPPED: " + m.value("evidence", "");
      else if (type == "unresolved") problem = "UNRESOLVED: " + m.value("evidence", "");
      else if (type == "done") done = true;
    }
    if (!done && problem.empty())
      problem = run.timed_out ? "timeout" : run.signal ? "crash: " + isolate::signal_name(run.signal)
                                                       : fmt::format("child exited {} early", run.exit_code);
    doc["problem"] = problem;
    doc = bench::annotate(doc);
    std::cout << (st->resources ? bench::resources_terminal_table(doc) : bench::bench_terminal_table(doc));
    if (!problem.empty()) std::cout << problem << "\n";
    if (!st->json_path.empty()) write_file_atomic(st->json_path, doc.dump(1) + "\n");
    const bool skipped = problem.rfind("SKIPPED", 0) == 0;
    // UNRESOLVED (the harness, toolchain or device could not time, a share of the SMs the device
    // lacks among them) is the harness's exit, never a kernel's failure.
    const bool unresolved = problem.rfind("UNRESOLVED", 0) == 0;
    bool errors = false;
    for (const auto& r : doc["results"]) errors |= r.contains("error");
    exit_code = skipped      ? kExitOk
                : unresolved ? kExitHarness
                : (!problem.empty() || errors) ? kExitFailure
                                               : kExitOk;
  });
}

}  // namespace ladder::cli
