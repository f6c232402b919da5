// README.md is where a user learns the command line: every option each subcommand's --help
// offers must be named there, so that an option added to the CLI without a word in the README
// goes red here.
#include <fstream>
#include <iterator>
#include <regex>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;

namespace {

// The long options (--name) of a --help text, but --help itself.
std::set<std::string> help_options(const std::string& help) {
  std::set<std::string> out;
  static const std::regex option(R"(^\s+(?:-\w,)?(--[\w-]+))");
  std::istringstream in(help);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, option) && m[1].str() != "--help") out.insert(m[1].str());
  return out;
}

// The subcommands a --help text lists under "Subcommands:".
std::vector<std::string> help_subcommands(const std::string& help) {
  std::vector<std::string> out;
  const auto at = help.find("Subcommands:");
  if (at == std::string::npos) return out;
  std::istringstream in(help.substr(at));
  std::string line;
  std::getline(in, line);
  static const std::regex sub(R"(^\s+([\w-]+)\s)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, sub)) out.push_back(m[1].str());
  return out;
}

}  // namespace

TEST_CASE("README.md names every option of every subcommand", "[cli][docs]") {
  std::ifstream in(source_path("README.md"));
  REQUIRE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Outcome top = run_ladder("--help");
  REQUIRE(top.exit_code == 0);
  std::vector<std::string> commands;
  for (const auto& sub : help_subcommands(top.output)) {
    const Outcome help = run_ladder(sub + " --help");
    REQUIRE(help.exit_code == 0);
    commands.push_back(sub);
    for (const auto& nested : help_subcommands(help.output)) commands.push_back(sub + " " + nested);
  }
  CHECK(commands.size() >= 11);
  std::size_t options = 0;
  for (const auto& command : commands) {
    const Outcome help = run_ladder(command + " --help");
    REQUIRE(help.exit_code == 0);
    for (const auto& option : help_options(help.output)) {
      ++options;
      // The option as a word of its own: --out names --out, not --output.
      const std::regex named("(^|[^\\w-])" + option + "(?![\\w-])");
      INFO("ladder " << command << " " << option << " is not named in README.md");
      CHECK(std::regex_search(readme, named));
    }
  }
  CHECK(options >= 60);
}

TEST_CASE("README.md's layout names every folder of the harness and the tree", "[cli][docs]") {
  std::ifstream in(source_path("README.md"));
  REQUIRE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto start = readme.find("## Layout"), end = readme.find("\n## ", start + 1);
  REQUIRE(start != std::string::npos);
  const std::string layout = readme.substr(start, end - start);
  std::vector<std::string> folders{"oracles/", "kernels/", "probes/", "fixtures/", "reports/", "tests/", "scripts/"};
  for (const auto& f : std::filesystem::directory_iterator(source_path("harness")))
    if (f.is_directory()) folders.push_back("harness/" + f.path().filename().string());
  CHECK(folders.size() >= 18);
  for (const auto& folder : folders) {
    INFO("README.md's layout does not name " << folder);
    CHECK(layout.find("`" + folder) != std::string::npos);
  }
}
