// The shape envelope of one rung: which shapes of a sweep write every output and pass every
// check. `ladder sweep` runs the shapes; this file parses the sweep's dimensions and draws the
// map.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/result.h"
#include "harness/ladder/manifest.h"

namespace ladder {

struct SweepDim {
  std::string name;
  std::vector<std::int64_t> values;
};

// "d=1..64", "d=0..4096:64" (a step), "rows=1,7,83". Throws std::invalid_argument naming the
// option it came from (sweep's --dim, repro's --set), the spec and what was expected.
SweepDim parse_sweep_dim(const std::string& spec, const std::string& option = "--dim");

// Every combination of the dims' values, in order (the first dim slowest), on top of `base` (the
// rung's first case, for its other symbols). Each dim must name one of base's symbols. Throws
// std::invalid_argument past `limit` cases.
std::vector<Case> sweep_cases(const std::vector<SweepDim>& dims, const Case& base, std::size_t limit);

// One character per case: '.' passed; U unwritten, Z redzone, K clobbered, M mismatch,
// N nondeterministic, C crash, T timeout, L launch, X compile or load; S skipped; ? unresolved.
char outcome_mark(const CaseResult& c);
std::string mark_legend();

struct Envelope {
  std::size_t shapes = 0, run = 0, passed = 0, skipped = 0, failed = 0, unresolved = 0;
  std::string text;    // the map (two dims, at most 128 columns) or the failing shapes, then a summary
  nlohmann::json json; // dims, counts, and every failing shape with its mark and evidence
};

// Places each case result by its shape; shapes without a result (an interrupted run) stay blank.
// `base`: the rung's first case, as given to sweep_cases.
Envelope draw_envelope(const std::vector<SweepDim>& dims, const Case& base, const std::vector<CaseResult>& results);

}  // namespace ladder
