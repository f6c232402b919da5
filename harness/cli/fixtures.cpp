// `ladder fixtures check [FILES]`: validates fixture files and cross-checks every reference
// column against the fp64 oracles (harness/fixtures/). Exit 0 clean, 1 a column outside the
// tolerance policy, 2 a malformed file.
#include <iostream>
#include <memory>

#include "harness/cli/commands.h"
#include "harness/fixtures/fixture_report.h"

namespace ladder::cli {

void add_fixtures(CLI::App& app, int& exit_code) {
  auto* fixtures = app.add_subcommand("fixtures", "validate and cross-check oracle fixtures");
  fixtures->require_subcommand(1);
  auto* check = fixtures->add_subcommand(
      "check", "recompute every fixture case with the fp64 oracles and report agreement");
  struct State {
    std::vector<std::string> files;
    std::string json_path;
  };
  auto st = std::make_shared<State>();
  check->add_option("files", st->files,
                    "fixture files (default: fixtures/*.json and fixtures/gpu/*.json)");
  check->add_option("--json", st->json_path, "also write the result as JSON to FILE");
  check->callback([st, &exit_code] {
    exit_code = fixtures::run_fixtures_check(st->files, st->json_path, std::cout);
  });
}

}  // namespace ladder::cli
