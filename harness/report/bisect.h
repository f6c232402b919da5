// The exclusion table for a new lowering failure: the first rung that failed, which of its
// features some passing rung also has (exonerated), and the suspects that remain. A ladder adds
// one feature a rung, so the suspects of its first failure are usually one feature: the one that
// breaks.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/run_document.h"

namespace ladder {

struct FeatureBlame {
  std::string feature;
  std::string exonerated_by;  // the first rung past the failure's stage that has it; empty: a suspect
};

struct LaterFailure {
  std::string rung;
  std::vector<std::string> suspects;  // its features that no passing rung has
};

struct BisectResult {
  bool found = false;                  // a rung failed (verdict FAIL)
  std::string first_failing, verdict, reason, stage, failing_case, evidence;
  std::vector<FeatureBlame> features;  // the first failing rung's, in manifest order
  std::vector<std::string> suspects;
  // The rung past the failure's stage that shares the most features with it (ties: the fewest
  // others), and what the failing rung adds to it and lacks from it.
  std::string nearest_passing;
  std::vector<std::string> adds_to_nearest, lacks_from_nearest;
  std::vector<LaterFailure> later_failures;
  std::vector<std::string> unresolved;  // harness breakage: evidence for nothing
  std::size_t exonerating = 0, skipped = 0;  // rungs past the first failure's stage; skipped
  std::string summary;                 // one line, the answer
};

// Only FAIL is a failure to bisect. A rung exonerates its features of it when it got past the
// stage at which the failure stopped: it passed (PASS, or XPASS: its outputs were right), or it
// stopped later (a rung compiled by --compile-only clears its features of a compile error; an
// expected crash at launch clears them of a compile error but not of a mismatch). UNRESOLVED rungs
// are harness breakage, evidence for nothing.
BisectResult bisect_run(const RunDocument& doc);

std::string bisect_table(const BisectResult& b);
nlohmann::json to_json(const BisectResult& b);

}  // namespace ladder
