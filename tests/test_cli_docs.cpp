// README.md is where a user learns the command line: every option each subcommand's --help
// offers must be named there, so that an option added to the CLI without a word in the README
// goes red here.
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/text.h"
#include "harness/core/verdict.h"
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
  const std::string readme = ladder::read_file(source_path("README.md"));
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
  const std::string readme = ladder::read_file(source_path("README.md"));
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

TEST_CASE("README.md's verdict section and probes/README.md's expect field name every verdict and reason",
          "[cli][docs][verdict]") {
  const std::string readme = ladder::read_file(source_path("README.md")),
                    probes = ladder::read_file(source_path("probes/README.md"));
  const auto start = readme.find("### Verdicts and exit codes"), end = readme.find("\n## ", start);
  REQUIRE(start != std::string::npos);
  const std::string verdicts = readme.substr(start, end - start);
  using ladder::FailReason;
  using ladder::Verdict;
  for (auto v : {Verdict::Pass, Verdict::Fail, Verdict::XFail, Verdict::XPass, Verdict::Skipped, Verdict::Unsupported,
                 Verdict::Unresolved}) {
    INFO("README.md's verdict section does not name " << ladder::label(v));
    CHECK(verdicts.find("`" + std::string(ladder::label(v))) != std::string::npos);
  }
  const auto expect_row = probes.find("| `expect` |");
  REQUIRE(expect_row != std::string::npos);
  const std::string expect = probes.substr(expect_row, probes.find('\n', expect_row) - expect_row);
  for (auto r : {FailReason::Compile, FailReason::Load, FailReason::Launch, FailReason::Crash, FailReason::Timeout,
                 FailReason::Unwritten, FailReason::Redzone, FailReason::Clobbered, FailReason::Mismatch,
                 FailReason::Nondeterministic}) {
    const std::string reason = "`" + std::string(ladder::label(r)) + "`";
    INFO("the reason " << reason << " is not named in README.md's verdict section or probes/README.md's expect row");
    CHECK(verdicts.find(reason) != std::string::npos);
    CHECK(expect.find(reason) != std::string::npos);
  }
}
