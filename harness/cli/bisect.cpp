// `ladder bisect [RUNG-GLOB...]`: a new lowering failure narrowed to the features no passing rung
// has. Runs the ladder (as `ladder run` does, table included) or reads a finished run
// (`--from RUN.json`), then prints the exclusion table. Exit 1 when a rung failed.
#include <iostream>
#include <memory>

#include "harness/cli/commands.h"
#include "harness/cli/run_common.h"
#include "harness/report/bisect.h"

namespace ladder::cli {

void add_bisect(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "bisect", "name the first failing rung, the features passing rungs exonerate, and the suspects that remain");
  struct State {
    CommonOptions common;
    std::vector<std::string> ladder_files, globs;
    std::string from;
  };
  auto st = std::make_shared<State>();
  add_common_options(*cmd, st->common);
  cmd->add_option("rungs", st->globs, "rung name globs (default: all)");
  add_ladder_option(*cmd, st->ladder_files, "probes/ladder.json");
  cmd->add_option("--from", st->from, "bisect this finished run document (ladder run --json) instead of running")
      ->check(CLI::ExistingFile);
  cmd->callback([st, &exit_code] {
    RunDocument doc;
    try {
      if (!st->from.empty()) {
        if (!st->ladder_files.empty() || !st->globs.empty())
          throw std::invalid_argument("--from bisects a finished run: give no --ladder or rung globs with it");
        doc = load_run_document(st->from);
      } else {
        const auto files = ladder_files_or_builtin(st->ladder_files, false);
        refuse_overwriting_inputs(st->common, files);
        const auto rungs = select_rungs(load_ladders(files, doc), st->globs);
        install_interrupt_handler();
        doc.command = command_line();
        run_and_print(rungs, st->common, doc);
        std::cout << "\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "ladder bisect: " << e.what() << "\n";
      exit_code = kExitHarness;
      return;
    }
    const BisectResult b = bisect_run(doc);
    std::cout << bisect_table(b);
    if (!st->common.json_path.empty()) {
      doc.extra["bisect"] = to_json(b);
      write_file_atomic(st->common.json_path, to_json(doc).dump(1) + "\n");
    }
    if (!b.unresolved.empty() && !b.found) exit_code = kExitHarness;
    else exit_code = b.found ? kExitFailure : kExitOk;
  });
}

}  // namespace ladder::cli
