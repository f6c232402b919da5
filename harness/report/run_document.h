// One run's results as a document: the toolchain, the machine, the commit, the date, every rung.
// `ladder run --json` writes it after every finished rung (atomically), so an interrupted run
// keeps what finished; `ladder report` and `ladder compare` read it back.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/result.h"

namespace ladder {

struct RunDocument {
  std::string command, date, commit, host, ladder_name, ladder_file;
  nlohmann::json toolchain = nlohmann::json::object();
  nlohmann::json options = nlohmann::json::object();
  nlohmann::json extra = nlohmann::json::object();  // overhead measurements, benchmarks, ...
  bool interrupted = false, finished = false;
  double wall_ms = 0;
  std::vector<RungResult> rungs;

  std::map<std::string, std::size_t> counts() const;  // every verdict label, zeros included
  int exit_code(bool git_bisect) const;
};

nlohmann::json to_json(const RunDocument& d);
RunDocument run_document_from_json(const nlohmann::json& j);  // throws std::exception with a reason
RunDocument load_run_document(const std::string& path);        // throws std::runtime_error naming the file
nlohmann::json read_json_file(const std::string& path);        // any JSON; throws naming the file

// Writes `text` to `path` through a temporary file and a rename: readers never see half a file.
void write_file_atomic(const std::string& path, const std::string& text);

std::string now_iso8601();
std::string current_commit();  // short hash of the source checkout, or "unknown"
std::string host_name();

}  // namespace ladder
