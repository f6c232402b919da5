// Two runs side by side: which rung regressed, at which stage, and by how much. The answer to
// "what did the toolchain upgrade break?".
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "harness/report/run_document.h"

namespace ladder {

enum class Change { Same, Regressed, Improved, Added, Removed };

struct RungChange {
  std::string name;
  Change change = Change::Same;
  std::string before, after;       // verdict text, "-" when absent
  std::string stage_before, stage_after;
  double worst_before = 0, worst_after = 0;  // worst error / bound over the rung's cases
  double wall_ratio = 0;           // after / before, 0 when either is absent
  std::string evidence;            // the after run's evidence when it regressed
  // Kernels compiled in both runs whose registers, local or static shared bytes differ, one line
  // each ("ladder::k<1>: registers 40 -> 48, local 0 -> 16 B"): what a toolchain upgrade moved
  // where no verdict did. Not a regression by itself.
  std::vector<std::string> resource_changes;
};

// Good means the rung did what its manifest expected (PASS, XFAIL); anything else counts as bad.
// A rung regresses when it goes from good to bad, or reaches an earlier stage than before.
std::vector<RungChange> compare_runs(const RunDocument& before, const RunDocument& after);

std::string change_label(Change c);

// One resource of one kernel in two runs, as both compares (runs and benches) print it.
struct ResourceMove {
  const char* name;
  long long before, after;
  const char* unit;  // "" or " B"
};
// "entry: registers 40 -> 48, local 0 -> 16 B": the fields that moved, or "" where none did.
std::string moved_resources(const std::string& entry, std::initializer_list<ResourceMove> fields);
std::string compare_table(const std::vector<RungChange>& changes, const RunDocument& before,
                          const RunDocument& after);

}  // namespace ladder
