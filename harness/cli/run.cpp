// `ladder run [RUNG-GLOB...]`: a ladder, one child per rung, a table and a JSON document.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/isolate/spawn.h"
#include "harness/ladder/manifest.h"
#include "harness/report/printers.h"
#include "harness/toolchain/paths.h"

namespace ladder::cli {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The floor of strict isolation, measured in this run: a child that only creates a context.
nlohmann::json measure_overhead(int samples, const RunDocument& doc) {
  std::vector<double> process_ms, context_ms;
  for (int i = 0; i < samples; ++i) {
    const auto run = isolate::spawn_and_collect({toolchain::self_executable(), "__context-probe"}, "", 30);
    for (const auto& m : run.messages)
      if (m.value("type", "") == "context" && m.value("ok", false)) {
        process_ms.push_back(run.wall_ms);
        context_ms.push_back(m.value("ms", 0.0));
      }
  }
  double compile_ms = 0, rung_wall_ms = 0;
  for (const auto& r : doc.rungs) {
    rung_wall_ms += r.wall_ms;
    if (auto it = r.ms.find("compile"); it != r.ms.end()) compile_ms += it->second;
  }
  const double bare = median(process_ms);
  const double n = static_cast<double>(doc.rungs.size());
  nlohmann::json j = {{"samples", process_ms.size()},
                      {"bare_process_ms", process_ms},
                      {"bare_context_ms", context_ms},
                      {"bare_process_median_ms", bare},
                      {"bare_context_median_ms", median(context_ms)},
                      {"ladder_wall_ms", doc.wall_ms},
                      {"sum_rung_wall_ms", rung_wall_ms},
                      {"compile_ms", compile_ms},
                      {"rungs", doc.rungs.size()}};
  if (bare > 0) {
    const double budget = 1.15 * n * bare + compile_ms;
    j["target_ms"] = budget;
    j["ratio_to_rungs_x_bare"] = doc.wall_ms / (n * bare);
    j["within_target"] = doc.wall_ms <= budget;
  }
  return j;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "run a ladder: every rung in its own process");
  struct State {
    CommonOptions common;
    std::vector<std::string> ladder_files;
    std::vector<std::string> globs;
    int overhead_samples = 0;
  };
  auto st = std::make_shared<State>();
  add_common_options(*cmd, st->common);
  cmd->add_option("rungs", st->globs, "rung name globs (default: all)");
  add_ladder_option(*cmd, st->ladder_files, "probes/ladder.json and probes/selftest.json");
  cmd->add_option("--measure-overhead", st->overhead_samples,
                  "also time N bare context-creation children, for the isolation-overhead benchmark")
      ->check(CLI::Range(0, 1000));
  cmd->callback([st, &exit_code] {
    const auto files = ladder_files_or_builtin(st->ladder_files);
    RunDocument doc;
    std::vector<Rung> rungs;
    try {
      refuse_overwriting_inputs(st->common, files);
      rungs = select_rungs(load_ladders(files, doc), st->globs);
    } catch (const std::exception& e) {  // ManifestError names file and place; a glob, itself
      std::cerr << "ladder: " << e.what() << "\n";
      exit_code = kExitHarness;
      return;
    }
    install_interrupt_handler();
    doc.command = command_line();
    st->common.child_time = st->overhead_samples > 0;
    run_and_print(rungs, st->common, doc);
    if (st->overhead_samples > 0 && !doc.interrupted) {
      doc.extra["overhead"] = measure_overhead(st->overhead_samples, doc);
      const auto& o = doc.extra["overhead"];
      std::cout << fmt::format("isolation overhead: ladder wall {:.0f} ms for {} rungs; bare context child {:.0f} ms "
                               "(median of {}); compile {:.0f} ms\n",
                               doc.wall_ms, doc.rungs.size(), o.value("bare_process_median_ms", 0.0),
                               o.value("samples", 0), o.value("compile_ms", 0.0));
      std::string spent;
      const nlohmann::json child_time = doc.extra.value("child_time_ms", nlohmann::json::object());
      for (const auto& [kind, ms] : child_time.items())
        spent += fmt::format("{}{} {:.0f}", spent.empty() ? "" : ", ", kind, ms.get<double>());
      std::cout << "children's time by kind (ms, summed over children): " << spent << "\n";
      if (!st->common.json_path.empty()) write_file_atomic(st->common.json_path, to_json(doc).dump(1) + "\n");
    }
    exit_code = doc.exit_code(st->common.git_bisect);
  });
}

void add_list(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "list the rungs of a ladder");
  auto file = std::make_shared<std::string>();
  cmd->add_option("--ladder,-l", *file, "manifest (default: probes/ladder.json)");
  cmd->callback([file, &exit_code] {
    const std::string path = file->empty() ? toolchain::probes_dir() + "/ladder.json" : *file;
    try {
      const Ladder lad = load_ladder(path);
      std::cout << fmt::format("{}: {} ({} rungs)\n", lad.name, lad.description, lad.rungs.size());
      for (const auto& r : lad.rungs) {
        std::string feats;
        for (const auto& f : r.features) feats += (feats.empty() ? "" : ",") + f;
        std::cout << fmt::format("  {:<28} {:>5} cases  expect {:<10} {}\n      features: {}\n", r.name, r.cases.size(),
                                 r.expect == FailReason::None ? "pass" : std::string(label(r.expect)), r.adds, feats);
      }
      exit_code = kExitOk;
    } catch (const ManifestError& e) {
      std::cerr << "ladder: " << e.what() << "\n";
      exit_code = kExitHarness;
    }
  });
}

}  // namespace ladder::cli
