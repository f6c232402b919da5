// What a rung run produced: per case, and per rung. Children send CaseResults to the parent as
// JSON lines; the parent folds them into one RungResult per rung.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/core/verdict.h"

namespace ladder {

struct NumericsSummary {
  std::string buffer;     // which output
  std::string summary;    // worst error, where, against which bound
  double worst_ratio = 0; // error / bound; > 1 fails
  double worst_error = 0;
};

struct CaseResult {
  std::size_t index = 0;
  std::map<std::string, std::int64_t> shape;
  std::optional<FailReason> failure;  // nullopt: this case passed its checks
  bool skipped = false;               // GPU stages not run (reason in evidence)
  bool unresolved = false;            // the harness could not decide (reason in evidence)
  Stage stage = Stage::Source;        // furthest stage reached
  std::string evidence;               // one line for the table
  std::string cuda_error;             // CUDA_ERROR_* name, when one occurred
  std::string signal;                 // SIGSEGV, ... when the child died
  std::vector<NumericsSummary> numerics;
  std::map<std::string, double> ms;   // per-stage milliseconds
  std::map<std::string, double> extra;// kernel time etc. (benchmarks)
};

// What one compiled kernel of a rung costs an SM, read from its cubin
// (toolchain/cubin_resources.h): the numbers a toolchain upgrade can move without any verdict
// changing.
struct ImageResources {
  std::string entry;  // the name expression compiled
  int registers = 0, local_bytes = 0, static_shared_bytes = 0;
};

struct RungResult {
  std::string name, adds;
  std::vector<std::string> features;
  Verdict verdict = Verdict::Unresolved;
  std::optional<FailReason> reason;   // the observed failure, when there was one
  FailReason expected = FailReason::None;
  Stage stage = Stage::Source;
  std::string evidence;
  std::string failing_case;           // "rows=3 d=17" for the first failing case
  std::string compile_error, nvrtc_log;
  std::vector<std::string> nvrtc_options;
  bool cache_hit = false;
  std::size_t cases_total = 0, cases_run = 0, cases_passed = 0, children = 0;
  std::map<std::string, double> ms;   // per-stage milliseconds, summed over cases
  double wall_ms = 0;
  std::vector<CaseResult> cases;      // every case that ran
  std::vector<ImageResources> images; // each distinct kernel compiled to a cubin, in compile order
};

std::string shape_text(const std::map<std::string, std::int64_t>& shape);

void to_json(nlohmann::json& j, const NumericsSummary& n);
void from_json(const nlohmann::json& j, NumericsSummary& n);
void to_json(nlohmann::json& j, const CaseResult& c);
void from_json(const nlohmann::json& j, CaseResult& c);  // throws nlohmann::json::exception
// {"entry", "registers", "local_bytes", "static_shared_bytes"}: the run document's `images`, and
// the child's compile message's `resources`. Only the entry is required.
void to_json(nlohmann::json& j, const ImageResources& i);
void from_json(const nlohmann::json& j, ImageResources& i);
void to_json(nlohmann::json& j, const RungResult& r);
void from_json(const nlohmann::json& j, RungResult& r);

}  // namespace ladder
