#include "harness/report/targets.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/core/json_member.h"
#include "harness/report/bench_markdown.h"

namespace ladder::report {
using nlohmann::json;

namespace {

const std::set<std::string> kTargetKeys{"text", "metric", "at_least", "at_most", "ops",      "dtypes",
                                        "rows", "d",      "min_bytes", "judged_by"};

[[noreturn]] void bad(std::size_t index, const std::string& member, const std::string& what) {
  throw std::runtime_error(fmt::format("targets[{}].{}: {}", index, member, what));
}

template <typename T>
std::vector<T> list_of(const json& t, std::size_t index, const char* key) {
  std::vector<T> out;
  if (!t.contains(key)) return out;
  const json& a = t[key];
  const bool numbers = std::is_arithmetic_v<T>;
  if (!a.is_array() || a.empty()) bad(index, key, "expected a non-empty array");
  for (const auto& v : a) {
    if (numbers ? !v.is_number_integer() : !v.is_string())
      bad(index, key, numbers ? "expected integers, got " + v.dump() : "expected strings, got " + v.dump());
    out.push_back(v.get<T>());
  }
  return out;
}

double number_of(const json& t, std::size_t index, const char* key) {
  if (!t[key].is_number()) bad(index, key, "expected a number, got " + t[key].dump());
  return t[key].get<double>();
}

template <typename T>
bool admits(const std::vector<T>& allowed, const T& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

bool matches(const Target& t, const json& r) {
  return r.value("impl", "") == "ladder" && admits(t.ops, r.value("op", std::string())) &&
         admits(t.dtypes, r.value("dtype", std::string())) && admits(t.rows, r.value("rows", 0L)) &&
         admits(t.d, r.value("d", 0L)) && r.value("bytes", 0.0) >= t.min_bytes;
}

std::string case_cells(const json& r) {
  const double mb = r.value("bytes", 0.0) / 1e6;
  return fmt::format("| {} | {} | {}×{} | {} |", r.value("op", ""), r.value("dtype", ""), r.value("rows", 0L),
                     r.value("d", 0L), mb < 10 ? fmt::format("{:.2f}", mb) : fmt::format("{:.0f}", mb));
}

// Ours against a peer's time: "ahead by x%" or "behind by x%" of the peer's time.
std::string against(double ours, double theirs) {
  const double pct = 100.0 * (theirs - ours) / theirs;
  return pct >= 0 ? fmt::format("ahead by {:.1f}%", pct) : fmt::format("behind by {:.1f}%", -pct);
}

struct Judged {
  std::string rows;
  std::size_t matched = 0, reached = 0;
};

Judged judge_fraction(const Target& t, const std::vector<const json*>& results) {
  Judged j;
  for (const json* r : results) {
    ++j.matched;
    if (r->contains("error")) {  // a case the bench could not time is not reached
      j.rows += fmt::format("{} — | — | **not timed**: {} |\n", case_cells(*r), r->value("error", ""));
      continue;
    }
    const double f = r->value("cold_fraction", 0.0);
    const bool ok = f >= t.bound;
    j.reached += ok ? 1 : 0;
    const double of_same = r->value("cold_of_same_size_copy", 0.0);
    const std::string same_size = of_same > 0 ? fmt::format("{:.3f}", of_same) : std::string("—");
    std::string verdict = ok ? std::string("reached") : fmt::format("**short** by {:.3f}", t.bound - f);
    // What reaching it would take against a copy of the same bytes, which pays the same fixed
    // costs: above 1, the bound asks the op to move its bytes faster than that copy moved them.
    if (!ok && of_same > 0 && f > 0)
      verdict += fmt::format("; reaching it takes {:.3f} of a same-size copy's rate", t.bound * of_same / f);
    j.rows += fmt::format("{} {:.3f} | {} | {} |\n", case_cells(*r), f, same_size, verdict);
  }
  return j;
}

Judged judge_peers(const Target& t, const std::vector<const json*>& results, const json& peers) {
  Judged j;
  for (const json* r : results) {
    const json* peer = fastest_peer(peers, *r, "us");
    if (peer == nullptr) continue;
    if (r->contains("error")) {  // a peer timed it and we could not
      ++j.matched;
      j.rows += fmt::format("{} **not timed**: {} | {:.2f} ({}) | | |\n", case_cells(*r), r->value("error", ""),
                            peer->value("us", 0.0), peer->value("impl", ""));
      continue;
    }
    const double ours = r->value("cold_us", 0.0), theirs = peer->value("us", 0.0);
    const bool ok = ours <= t.bound * theirs;
    const json* clean_peer = fastest_peer(peers, *r, "us_clean");
    const double ours_clean = r->value("cold_clean_us", 0.0);
    const std::string clean =
        clean_peer != nullptr && ours_clean > 0
            ? fmt::format("{:.2f} against {:.2f} ({}): {}", ours_clean, clean_peer->value("us_clean", 0.0),
                          clean_peer->value("impl", ""), against(ours_clean, clean_peer->value("us_clean", 0.0)))
            : std::string("—");
    ++j.matched;
    j.reached += ok ? 1 : 0;
    j.rows += fmt::format("{} {:.2f} | {:.2f} ({}) | {} | {} |\n", case_cells(*r), ours, theirs, peer->value("impl", ""),
                          ok ? against(ours, theirs) : "**" + against(ours, theirs) + "**", clean);
  }
  return j;
}

Judged list_elsewhere(const std::vector<const json*>& results) {
  Judged j;
  for (const json* r : results) {
    ++j.matched;
    if (r->contains("error"))
      j.rows += fmt::format("{} **not timed**: {} | |\n", case_cells(*r), r->value("error", ""));
    else
      j.rows += fmt::format("{} {:.2f} | {:.2f} |\n", case_cells(*r), r->value("cold_us", 0.0), r->value("hot_us", 0.0));
  }
  return j;
}

}  // namespace

std::vector<Target> parse_targets(const json& doc) {
  if (!doc.is_object() || !doc.contains("targets") || !doc["targets"].is_array())
    throw std::runtime_error("expected an object with a \"targets\" array");
  std::vector<Target> out;
  std::size_t index = 0;
  for (const auto& t : doc["targets"]) {
    if (!t.is_object()) bad(index, "", "expected an object, got " + t.dump());
    for (const auto& [key, value] : t.items())
      if (!kTargetKeys.count(key)) bad(index, key, "unknown member");
    Target target;
    if (!t.contains("text") || !t["text"].is_string() || t["text"].get<std::string>().empty())
      bad(index, "text", "expected the target's words, a non-empty string");
    target.text = t["text"].get<std::string>();
    const std::string metric = t.value("metric", std::string());
    if (metric == "cold_fraction") {
      target.metric = TargetMetric::ColdFraction;
      if (!t.contains("at_least")) bad(index, "at_least", "cold_fraction needs the fraction to reach");
      target.bound = number_of(t, index, "at_least");
      if (target.bound <= 0 || target.bound > 2) bad(index, "at_least", "expected a fraction in (0, 2]");
    } else if (metric == "peers") {
      target.metric = TargetMetric::Peers;
      if (!t.contains("at_most")) bad(index, "at_most", "peers needs the ratio to the fastest peer's time");
      target.bound = number_of(t, index, "at_most");
      if (target.bound <= 0) bad(index, "at_most", "expected a ratio > 0");
    } else if (metric == "elsewhere") {
      target.metric = TargetMetric::Elsewhere;
      if (!t.contains("judged_by") || !t["judged_by"].is_string() || t["judged_by"].get<std::string>().empty())
        bad(index, "judged_by", "a target judged elsewhere says where, as a non-empty string");
      target.judged_by = t["judged_by"].get<std::string>();
    } else {
      bad(index, "metric", "expected cold_fraction, peers or elsewhere, got " + t.value("metric", json()).dump());
    }
    if (target.metric != TargetMetric::ColdFraction && t.contains("at_least"))
      bad(index, "at_least", "only a cold_fraction target has it");
    if (target.metric != TargetMetric::Peers && t.contains("at_most")) bad(index, "at_most", "only a peers target has it");
    target.ops = list_of<std::string>(t, index, "ops");
    target.dtypes = list_of<std::string>(t, index, "dtypes");
    target.rows = list_of<long>(t, index, "rows");
    target.d = list_of<long>(t, index, "d");
    if (t.contains("min_bytes")) {
      target.min_bytes = number_of(t, index, "min_bytes");
      if (target.min_bytes < 0) bad(index, "min_bytes", "expected a size >= 0");
    }
    out.push_back(std::move(target));
    ++index;
  }
  if (out.empty()) throw std::runtime_error("\"targets\" is empty");
  return out;
}

std::string targets_markdown(const std::vector<Target>& targets, const std::string& targets_path,
                             const std::vector<std::pair<std::string, json>>& benches, const json& peers,
                             const std::vector<std::string>& peers_paths) {
  std::vector<const json*> timed;
  std::string sources;
  for (const auto& [path, doc] : benches) {
    if (doc.value("resources_only", false)) continue;
    // The targets are the whole GPU's: a bench on a share of its SMs is a stand-in, not a verdict.
    if (const std::string share = sm_share_text(doc); !share.empty())
      throw std::runtime_error(fmt::format("{}: {}; the targets judge only a bench of the whole GPU", path, share));
    timed.push_back(&doc);
    const std::string kernels = kernel_sources_text(doc);
    sources += (sources.empty() ? "" : ", ") +
               fmt::format("`{}` (commit {}{}, copy ceiling {:.0f} GB/s)", path, doc.value("commit", std::string("?")),
                           kernels.empty() ? "" : ", kernel sources " + kernels,
                           doc.contains("copy") ? doc["copy"].value("gbps", 0.0) : 0.0);
  }
  std::string md = fmt::format("## Against the targets (`{}`)\n\n", targets_path);
  md += "Judged here from " + (sources.empty() ? std::string("no timed bench document") : sources) +
        (peers_paths.empty() ? "" : fmt::format(" and `{}`", fmt::join(peers_paths, "`, `"))) +
        ": every `ladder` row the target names, with the figure it is judged by. Cold: L2 flushed before each "
        "launch; cold / copy: the fraction of the same run's copy ceiling (a 2 GiB copy), which the targets use; "
        "cold / same-size copy: the fraction of what a cold copy of the case's own bytes reached in the same run, "
        "which pays the same fixed costs of a launch. Nothing in this section is typed by hand; why a row falls "
        "short is in the analysis below.\n\n";
  for (const Target& t : targets) {
    std::vector<const json*> results;
    for (const json* doc : timed)
      for (const auto& r : array_member(*doc, "results"))
        if (matches(t, r)) results.push_back(&r);
    Judged j;
    std::string head;
    if (t.metric == TargetMetric::ColdFraction) {
      j = judge_fraction(t, results);
      head = "| op | dtype | rows × d | MB moved | cold / copy | cold / same-size copy | |\n"
             "| --- | --- | --- | --- | --- | --- | --- |\n";
    } else if (t.metric == TargetMetric::Peers) {
      j = judge_peers(t, results, peers);
      head = "| op | dtype | rows × d | MB moved | ours cold µs | fastest peer cold µs | | clean µs: ours against the "
             "fastest peer's |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    } else {
      j = list_elsewhere(results);
      head = "| op | dtype | rows × d | MB moved | cold µs (event) | hot µs (event) |\n| --- | --- | --- | --- | --- | --- |\n";
    }
    std::string verdict;
    if (j.matched == 0)
      verdict = "**not judged**: no row of the documents matches it";
    else if (t.metric == TargetMetric::Elsewhere)
      verdict = "judged elsewhere: " + t.judged_by;
    else
      verdict = fmt::format("{} of {} reached{}", j.reached, j.matched, j.reached == j.matched ? "" : " (**short**)");
    md += fmt::format("### {}: {}\n\n", t.text, verdict);
    if (j.matched > 0) md += head + j.rows + "\n";
  }
  return md;
}

}  // namespace ladder::report
