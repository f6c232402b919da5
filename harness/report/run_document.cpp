#include "harness/report/run_document.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/core/text.h"
#include "harness/toolchain/paths.h"

namespace ladder {
using nlohmann::json;

std::map<std::string, std::size_t> RunDocument::counts() const {
  std::map<std::string, std::size_t> c;
  for (auto v : {Verdict::Pass, Verdict::Fail, Verdict::XFail, Verdict::XPass, Verdict::Skipped,
                 Verdict::Unsupported, Verdict::Unresolved})
    c[std::string(label(v))] = 0;
  for (const auto& r : rungs) ++c[std::string(label(r.verdict))];
  return c;
}

int RunDocument::exit_code(bool git_bisect) const {
  bool harness = false, failure = false, skipped = false;
  for (const auto& r : rungs) {
    harness |= r.verdict == Verdict::Unresolved;
    failure |= is_failure(r.verdict) && r.verdict != Verdict::Unresolved;
    skipped |= r.verdict == Verdict::Skipped || r.verdict == Verdict::Unsupported;
  }
  if (git_bisect) {
    // A toolchain or device problem says nothing about the commit: skip it.
    if (harness || (skipped && !failure)) return kGitBisectSkip;
    return failure ? 1 : 0;
  }
  if (harness || interrupted) return kExitHarness;
  return failure ? kExitFailure : kExitOk;
}

json to_json(const RunDocument& d) {
  return {{"schema_version", 1},
          {"tool", "ladder"},
          {"command", d.command},
          {"date", d.date},
          {"commit", d.commit},
          {"host", d.host},
          {"ladder", {{"name", d.ladder_name}, {"file", d.ladder_file}}},
          {"toolchain", d.toolchain},
          {"options", d.options},
          {"extra", d.extra},
          {"interrupted", d.interrupted},
          {"finished", d.finished},
          {"wall_ms", d.wall_ms},
          {"counts", d.counts()},
          {"rungs", d.rungs}};
}

RunDocument run_document_from_json(const json& j) {
  if (!j.is_object() || j.value("tool", "") != "ladder") throw std::invalid_argument("not a ladder run document");
  RunDocument d;
  d.command = j.value("command", "");
  d.date = j.value("date", "");
  d.commit = j.value("commit", "");
  d.host = j.value("host", "");
  if (j.contains("ladder")) {
    d.ladder_name = j["ladder"].value("name", "");
    d.ladder_file = j["ladder"].value("file", "");
  }
  d.toolchain = j.value("toolchain", json::object());
  d.options = j.value("options", json::object());
  d.extra = j.value("extra", json::object());
  d.interrupted = j.value("interrupted", false);
  d.finished = j.value("finished", false);
  d.wall_ms = j.value("wall_ms", 0.0);
  d.rungs = j.at("rungs").get<std::vector<RungResult>>();
  return d;
}

json read_json_file(const std::string& path) {
  std::string text;
  switch (read_whole_file(path, text)) {
    case FileRead::ok: break;
    case FileRead::folder: throw std::runtime_error(fmt::format("{}: a directory, not a JSON document", path));
    case FileRead::cannot_open: throw std::runtime_error(fmt::format("{}: cannot open", path));
  }
  try {
    return json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

RunDocument load_run_document(const std::string& path) {
  const json j = read_json_file(path);
  try {
    return run_document_from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", tmp));
    out << text;
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: write failed", tmp));
  }
  fs::rename(tmp, target);
}

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string current_commit() {
  // A copy of the tree without .git (the GPU machine gets one) is told its commit from outside.
  if (const char* c = std::getenv("LADDER_COMMIT"); c && *c) return c;
  const std::string cmd = fmt::format("git -C '{}' rev-parse --short=12 HEAD 2>/dev/null", toolchain::source_dir());
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    std::array<char, 128> buf{};
    while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string host_name() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace ladder
