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
  std::string trace_path;       // --trace: Chrome trace events of every child (isolate/trace.h)
  bool child_time = false;      // sum the children's spans by kind into doc.extra["child_time_ms"]
  bool verbose = false;
  bool git_bisect = false;
};

void add_common_options(CLI::App& cmd, CommonOptions& o);

// For a --dtype option: accepts the manifest spellings (f32/fp32/float32, f16/fp16, bf16) and
// rewrites the value to its label ("f32", "f16", "bf16"); anything else is a usage error, not a
// silent empty selection.
CLI::Validator dtype_option();

// For an --arch option: a GPU arch as the compiler takes it (toolchain::arch_number: sm_80,
// sm_90a, sm_100f, or the compute_ spelling). Anything else is a usage error, so that a typo is
// not reported as every rung failing to compile.
CLI::Validator arch_option();

// For a --timeout option: a finite number of seconds above zero. CLI11's own range check would
// print its upper bound, the largest double, in full.
CLI::Validator seconds_option();

// Keeps rungs whose names match any glob (all when `globs` is empty). Unknown globs are errors.
std::vector<Rung> select_rungs(const std::vector<Rung>& rungs, const std::vector<std::string>& globs);

// --ladder FILE (-l): repeatable, one path each time, so rung names may follow it. `defaults`
// names what an empty list means, for the help text.
void add_ladder_option(CLI::App& cmd, std::vector<std::string>& files, const std::string& defaults);

// `files`, or when it is empty the built-in ladders: probes/ladder.json, then probes/selftest.json
// unless `with_selftest` is false.
std::vector<std::string> ladder_files_or_builtin(const std::vector<std::string>& files, bool with_selftest = true);

// The rungs of every manifest in `files`, in order; names must be unique across them. Sets the
// document's ladder name and file. Throws ManifestError.
std::vector<Rung> load_ladders(const std::vector<std::string>& files, RunDocument& doc);

// Throws std::invalid_argument when --json, --junit or --trace names one of `inputs` (a manifest,
// a fixture file): the results would overwrite it.
void refuse_overwriting_inputs(const CommonOptions& o, const std::vector<std::string>& inputs);

// The rung named `name` (exactly) among `rungs`; throws std::invalid_argument naming the files.
const Rung& find_rung(const std::vector<Rung>& rungs, const std::string& name, const RunDocument& doc);

// Whether a stop (SIGINT, SIGTERM) cut the run short: a planned rung has no result, or a rung
// or one of its cases was ended by it ("interrupted"). A stop that comes after the last rung
// finished cuts nothing, and the run is whole.
bool stop_cut_run(const std::vector<RungResult>& results, std::size_t planned);

// Runs rungs with a terminal printer (and JSON and JUnit printers with --json and --junit); fills
// doc.
void run_and_print(const std::vector<Rung>& rungs, const CommonOptions& o, RunDocument& doc);

// `command` as typed, for the document's provenance.
std::string command_line();

// Installs the SIGINT/SIGTERM handler that stops children and keeps finished results.
void install_interrupt_handler();

}  // namespace ladder::cli
