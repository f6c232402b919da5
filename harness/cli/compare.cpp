// `ladder compare OLD.json NEW.json`: which rung regressed between two runs, at which stage,
// and by how much. Exit 1 when any rung regressed.
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/report/compare.h"

namespace ladder::cli {

void add_compare(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("compare", "compare two run documents (ladder run --json) rung by rung");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("runs", *files, "OLD.json NEW.json")->required()->expected(2);
  cmd->callback([files, &exit_code] {
    try {
      const RunDocument before = load_run_document((*files)[0]);
      const RunDocument after = load_run_document((*files)[1]);
      const auto changes = compare_runs(before, after);
      std::cout << compare_table(changes, before, after);
      const bool regressed = std::any_of(changes.begin(), changes.end(),
                                         [](const RungChange& c) { return c.change == Change::Regressed; });
      exit_code = regressed ? kExitFailure : kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "ladder compare: " << e.what() << "\n";
      exit_code = kExitHarness;
    }
  });
}

}  // namespace ladder::cli
