// Bench documents as tables: the terminal's and REPORT.md's, with peers placed beside ours.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace ladder::bench {

// Adds GB/s and fractions of the copy ceiling to every result (hot and cold), and the cold
// fraction of a same-size copy where the bench child timed one (copy_same_us).
nlohmann::json annotate(nlohmann::json doc);
std::string bench_terminal_table(const nlohmann::json& doc);

}  // namespace ladder::bench

namespace ladder {
std::string bench_markdown(const nlohmann::json& bench, const std::string& path, const nlohmann::json& peers);
std::string peers_markdown(const nlohmann::json& peers);
}  // namespace ladder
