// Two bench documents side by side, case by case: the A/B of a kernel change or a toolchain.
// Cases match on op, dtype, shape, implementation and variant (or, across variants, without it:
// one schedule against another on the same shapes); each gets its cold and hot times
// before and after, their ratio, and the launches whose registers or memory moved. Both runs'
// copy ceilings head the table, so that a machine's own drift is in view. Runs on different cards
// or shares of the SMs compare by fractions instead: each case's cold and hot bandwidth as a
// fraction of its own run's copy ceiling, the figure the targets judge.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ladder {

struct BenchChange {
  std::string op, dtype, impl, variant;  // variant: "" or the plan keys as KEY=VALUE, comma-joined
  // Across variants: the first run's variant, where it differs from the second's.
  std::optional<std::string> variant_before;
  long long rows = 0, d = 0;
  std::optional<double> cold_before, cold_after, hot_before, hot_after;  // µs; absent: not timed
  // Fractions of the run's own copy ceiling (cold_fraction, hot_fraction); absent: not timed.
  std::optional<double> cold_fraction_before, cold_fraction_after, hot_fraction_before, hot_fraction_after;
  std::string error_before, error_after;
  std::vector<std::string> resource_changes;  // "entry: registers 40 -> 48, local 0 -> 16 B"
  // Timed before but not after (an error, or the case gone): the one outcome that fails compare.
  bool lost() const { return cold_before && !cold_after; }
};

// Whether `doc` is a bench document (ladder bench --json) rather than a run document.
bool is_bench_document(const nlohmann::json& doc);

// across_variants: match cases without their variant, so that two runs of different schedules on
// the same shapes line up; a run with two cases of one shape is then an error
// (std::invalid_argument naming the case), since which to match would be a guess.
std::vector<BenchChange> compare_benches(const nlohmann::json& before, const nlohmann::json& after,
                                         bool across_variants = false);
// Reads every field that compare_benches and bench_compare_table read, in one document alone,
// so that a malformed document's error can be reported with its own file's name. Throws what
// they throw (with JSON_DIAGNOSTICS, naming the JSON pointer of the value at fault).
void check_bench_document(const nlohmann::json& doc);
// What the table's two columns compare: the times (µs, after / before), or the fractions of each
// run's own copy ceiling (after - before), for runs on different cards or shares of the SMs.
enum class CompareBy { Time, Fraction };
std::string bench_compare_table(const std::vector<BenchChange>& changes, const nlohmann::json& before,
                                const nlohmann::json& after, CompareBy by = CompareBy::Time);

}  // namespace ladder
