// Bench documents as tables: the terminal's and REPORT.md's, with peers placed beside ours.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ladder::bench {

// Adds GB/s and fractions of the copy ceiling to every result (hot and cold), and the cold
// fraction of a same-size copy where the bench child timed one (copy_same_us).
nlohmann::json annotate(nlohmann::json doc);
// The same for one result against a run's copy ceiling (GB/s; 0: not measured, no fractions).
void annotate_result(nlohmann::json& result, double copy_gbps);
std::string bench_terminal_table(const nlohmann::json& doc);
// Each result's launches (its "kernels": registers, local and shared bytes, blocks an SM and what
// limits them, waves), one line a launch; results without them are left out.
std::string resources_terminal_table(const nlohmann::json& doc);

}  // namespace ladder::bench

namespace ladder {
// The fastest peer timing of the peers document at a bench result's case (op, dtype, rows, d), by
// one of its timings ("us": the usual flush, "us_clean"), or null where no peer timed it.
const nlohmann::json* fastest_peer(const nlohmann::json& peers, const nlohmann::json& result, const char* key);
std::string bench_markdown(const nlohmann::json& bench, const std::string& path, const nlohmann::json& peers);
// Where a bench or verify document's kernels came from ("kernels": dir, digest), as one line of
// text: "`dir` (LADDER_KERNELS_DIR), digest 0123456789ab"; "" for a document without it.
std::string kernel_sources_text(const nlohmann::json& doc);
// The same object's digest ("" where the document has none or its digest failed).
std::string kernel_sources_digest(const nlohmann::json& doc);
// Where a bench document was timed on a share of the GPU's SMs (`ladder bench --sms`): one line
// saying so ("timed on 96 of the GPU's 132 SMs ...", with the SMs a launch in it was seen on);
// "" for the whole GPU.
std::string sm_share_text(const nlohmann::json& bench);
// One peers document's table; `path`, where given, is named in its heading.
std::string peers_markdown(const nlohmann::json& peers, const std::string& path = "");
// Several peers documents as one for fastest_peer: every row of every document, each marked with
// its document's path ("document"), so that a case is judged against the fastest of all of them.
nlohmann::json merge_peer_documents(const std::vector<std::pair<std::string, nlohmann::json>>& documents);
// The same launches as a markdown table ("" where no result has them).
std::string resources_markdown(const nlohmann::json& bench);
}  // namespace ladder
