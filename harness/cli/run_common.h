// What `run`, `verify` and `bench` share: the toolchain options, selecting rungs, and running
// them through the isolation runner into a RunDocument with printers attached.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/isolate/runner.h"
#include "harness/report/run_document.h"

namespace ladder::cli {

struct CommonOptions {
  isolate::RunnerOptions runner;
  std::string json_path, junit_path;
  bool verbose = false;
  bool git_bisect = false;
};

void add_common_options(CLI::App& cmd, CommonOptions& o);

// For a --dtype option: accepts the manifest spellings (f32/fp32/float32, f16/fp16, bf16) and
// rewrites the value to its label ("f32", "f16", "bf16"); anything else is a usage error, not a
// silent empty selection.
CLI::Validator dtype_option();

// Keeps rungs whose names match any glob (all when `globs` is empty). Unknown globs are errors.
std::vector<Rung> select_rungs(const std::vector<Rung>& rungs, const std::vector<std::string>& globs);

// Runs rungs with a terminal printer (and a JSON printer with --json); fills doc.
// The rungs of every manifest in `files`, in order; names must be unique across them. Sets the
// document's ladder name and file. Throws ManifestError.
std::vector<Rung> load_ladders(const std::vector<std::string>& files, RunDocument& doc);

// The rung named `name` (exactly) among `rungs`; throws std::invalid_argument naming the files.
const Rung& find_rung(const std::vector<Rung>& rungs, const std::string& name, const RunDocument& doc);

void run_and_print(const std::vector<Rung>& rungs, const CommonOptions& o, RunDocument& doc);

// `command` as typed, for the document's provenance.
std::string command_line();

// Installs the SIGINT/SIGTERM handler that stops children and keeps finished results.
void install_interrupt_handler();

}  // namespace ladder::cli
