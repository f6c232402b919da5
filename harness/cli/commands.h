// Subcommands. Each file in harness/cli/ adds one to the app; its callback stores the exit code.
#pragma once
#include <CLI/CLI.hpp>

namespace ladder::cli {

void add_list(CLI::App& app, int& exit_code);
void add_run(CLI::App& app, int& exit_code);
void add_verify(CLI::App& app, int& exit_code);
void add_bench(CLI::App& app, int& exit_code);
void add_fixtures(CLI::App& app, int& exit_code);
void add_report(CLI::App& app, int& exit_code);
void add_compare(CLI::App& app, int& exit_code);
void add_bisect(CLI::App& app, int& exit_code);
void add_sweep(CLI::App& app, int& exit_code);
void add_repro(CLI::App& app, int& exit_code);

}  // namespace ladder::cli
