// Running the ladder binary from tests: its exit code, output and JSON.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace ladder_test {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline Outcome run_command(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  Outcome o;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) o.output += buf.data();
  const int status = ::pclose(p);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

inline Outcome run_ladder(const std::string& args) { return run_command(std::string(LADDER_BINARY) + " " + args); }

inline std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("ladder-tests-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

inline const nlohmann::json* rung(const nlohmann::json& doc, const std::string& name) {
  for (const auto& r : doc.at("rungs"))
    if (r.at("name") == name) return &r;
  return nullptr;
}
// A temporary document would leave the returned pointer dangling: keep the document in a variable.
const nlohmann::json* rung(nlohmann::json&& doc, const std::string& name) = delete;

inline std::string source_path(const std::string& rel) { return std::string(LADDER_SOURCE_DIR) + "/" + rel; }

}  // namespace ladder_test
