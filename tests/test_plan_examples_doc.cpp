// kernels/README.md shows, for every case `ladder bench` times by default, the kernels, blocks and
// grids that `auto` plans on the H200's limits. A user sizing a launch by that table must get what
// the planner does, so the table is held to the planner here: any plan change that moves a row
// fails this test, which writes the table to paste into a file it names.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/bench/bench_spec.h"
#include "harness/core/text.h"
#include "harness/kernels/catalog.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

namespace {

const std::string kHeading = "Examples of the geometry `plan()` picks";

std::string without_namespace(const std::string& entry) {
  const std::string prefix = "ladder::";
  return entry.rfind(prefix, 0) == 0 ? entry.substr(prefix.size()) : entry;
}

std::string grid_text(const ladder::KernelLaunch& L) {
  return L.grid[1] == 1 ? fmt::format("{}", L.grid[0]) : fmt::format("{} × {}", L.grid[0], L.grid[1]);
}

// One table row a default bench case, in the bench's order: op and dtype, shape, then each
// launch's kernel, block and grid, launches joined by "; ".
std::vector<std::string> planned_rows() {
  std::vector<std::string> rows;
  for (const auto& c : ladder::bench::default_cases()) {
    const auto launches = ladder_test::plan_checked(c.kernel, {{"rows", c.rows}, {"d", c.d}});
    std::string kernels, blocks, grids;
    for (const auto& L : launches) {
      const std::string sep = kernels.empty() ? "" : "; ";
      kernels += sep + "`" + without_namespace(L.entry) + "`";
      blocks += sep + fmt::format("{} × {}", L.block[0], L.block[1]);
      grids += sep + grid_text(L);
    }
    rows.push_back(fmt::format("| {} {} | {} × {} | {} | {} | {} |", c.kernel.op, ladder::label(c.kernel.dtype),
                               c.rows, c.d, kernels, blocks, grids));
  }
  return rows;
}

// The table's body rows under the heading paragraph: the lines that start with "| " after its
// header and separator, up to the first line that does not.
std::vector<std::string> documented_rows(const std::string& readme, std::string& problem) {
  std::istringstream in(readme);
  std::string line;
  bool after_heading = false;
  int header_lines = 0;
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    if (!after_heading) {
      after_heading = line.rfind(kHeading, 0) == 0;
      continue;
    }
    if (line.rfind("|", 0) != 0) {
      if (header_lines > 0) break;  // the table ended
      continue;                     // the paragraph before it
    }
    if (header_lines < 2) {
      ++header_lines;
      continue;
    }
    rows.push_back(line);
  }
  if (!after_heading) problem = "no paragraph starting \"" + kHeading + "\"";
  else if (header_lines < 2) problem = "no table after \"" + kHeading + "\"";
  return rows;
}

}  // namespace

TEST_CASE("kernels/README.md's table of planned geometry is auto's plan for every default bench case",
          "[kernels][docs]") {
  ladder::register_builtin_oracles();
  const std::string path = ladder::kernels::kernels_dir() + "/README.md";
  std::string problem;
  const auto documented = documented_rows(ladder::read_file(path), problem);
  if (!problem.empty()) FAIL(path << ": " << problem);
  const auto planned = planned_rows();
  if (documented != planned) {
    const auto out = std::filesystem::temp_directory_path() / "ladder-planned-geometry.md";
    std::ofstream(out) << "| op, T | rows × d | kernel | block | grid |\n| --- | --- | --- | --- | --- |\n"
                       << fmt::format("{}\n", fmt::join(planned, "\n"));
    FAIL_CHECK(path << ": the table after \"" << kHeading << "\" is not the planner's; the table as planned is in "
                    << out.string());
  }
  CHECK(documented.size() == planned.size());
}
