// `ladder sweep RUNG --dim NAME=LO..HI ...`: the shape envelope of one rung. Every combination of
// the given values runs through the same isolation as `ladder run` (in children of at most
// --chunk cases each, several at once), and the map shows which shapes wrote every output and
// passed every check. Exit 1 when any shape failed.
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/report/envelope.h"

namespace ladder::cli {
namespace {
constexpr std::size_t kMaxSweepShapes = 200000;
}

void add_sweep(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("sweep", "map a rung's shape envelope: which shapes write every output");
  struct State {
    CommonOptions common;
    std::string rung;
    std::vector<std::string> ladder_files, dims;
    std::size_t chunk = 256;
  };
  auto st = std::make_shared<State>();
  add_common_options(*cmd, st->common);
  cmd->add_option("rung", st->rung, "the rung to sweep (its exact name)")->required();
  cmd->add_option("--dim,-D", st->dims, "NAME=LO..HI[:STEP] or NAME=V1,V2,... (repeatable; one or two give a map)")
      ->required()
      ->allow_extra_args(false);
  add_ladder_option(*cmd, st->ladder_files, "probes/ladder.json and probes/selftest.json");
  cmd->add_option("--chunk", st->chunk, "shapes per child (default 256)")->check(CLI::Range(1, 100000));
  cmd->callback([st, &exit_code] {
    RunDocument doc;
    std::vector<SweepDim> dims;
    std::vector<Rung> parts;
    Case base;
    try {
      const auto files = ladder_files_or_builtin(st->ladder_files);
      refuse_overwriting_inputs(st->common, files);
      const auto all = load_ladders(files, doc);
      const Rung& target = find_rung(all, st->rung, doc);
      for (const auto& spec : st->dims) dims.push_back(parse_sweep_dim(spec));
      base = target.cases.front();
      const auto cases = sweep_cases(dims, base, kMaxSweepShapes);
      for (std::size_t first = 0; first < cases.size(); first += st->chunk) {
        Rung part = target;
        part.name = fmt::format("{}_part{}", target.name, parts.size());
        part.cases.assign(cases.begin() + static_cast<long>(first),
                          cases.begin() + static_cast<long>(std::min(cases.size(), first + st->chunk)));
        parts.push_back(std::move(part));
      }
    } catch (const std::exception& e) {  // manifest errors name file and place
      std::cerr << "ladder sweep: " << e.what() << "\n";
      exit_code = kExitHarness;
      return;
    }
    install_interrupt_handler();
    doc.command = command_line();
    run_and_print(parts, st->common, doc);
    std::vector<CaseResult> results;
    for (const auto& r : doc.rungs) results.insert(results.end(), r.cases.begin(), r.cases.end());
    const Envelope env = draw_envelope(dims, base, results);
    std::cout << fmt::format("\nenvelope of {}\n{}", st->rung, env.text);
    if (!st->common.json_path.empty()) {
      doc.extra["sweep"] = env.json;
      doc.extra["sweep"]["rung"] = st->rung;
      write_file_atomic(st->common.json_path, to_json(doc).dump(1) + "\n");
    }
    if (env.failed > 0) exit_code = kExitFailure;
    else if (env.unresolved > 0 || doc.interrupted) exit_code = kExitHarness;
    else exit_code = kExitOk;
  });
}

}  // namespace ladder::cli
