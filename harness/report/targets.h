// Performance targets as data (a targets document such as reports/h200/targets.json), judged from
// the bench and peers documents of real runs: each target's rows with the figure it is judged by,
// reached or short, computed here and never typed by hand. A target no row matches says so
// rather than reading as met.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ladder::report {

// What a target is judged by.
enum class TargetMetric {
  ColdFraction,  // cold time as a fraction of the run's copy ceiling, at least `bound`
  Peers,         // cold time against the fastest peer at the same case: at most `bound` times its time
  Elsewhere,     // not judged from these documents (`judged_by` says where); its rows are listed
};

struct Target {
  std::string text;                   // the target as the issue words it
  TargetMetric metric = TargetMetric::ColdFraction;
  double bound = 0;                   // at_least (ColdFraction) or at_most (Peers)
  std::vector<std::string> ops;       // empty: every op
  std::vector<std::string> dtypes;    // empty: every dtype
  std::vector<long> rows, d;          // empty: any
  double min_bytes = 0;               // the case's minimum bytes moved, at least this
  std::string judged_by;              // Elsewhere: where it is judged
};

// The targets of a document {"targets": [{...}, ...]}; throws std::runtime_error naming the
// target's index and the member at fault.
std::vector<Target> parse_targets(const nlohmann::json& doc);

// The "Against the targets" section: one table a target. `benches` are (path, document) pairs,
// each annotated (bench::annotate: its fractions of the copy ceiling); documents that timed
// nothing (`--resources`) are passed over. `peers` may be empty: one document, or several merged
// (merge_peer_documents, bench_markdown.h); `peers_paths` names where they came from.
std::string targets_markdown(const std::vector<Target>& targets, const std::string& targets_path,
                             const std::vector<std::pair<std::string, nlohmann::json>>& benches,
                             const nlohmann::json& peers, const std::vector<std::string>& peers_paths);

}  // namespace ladder::report
