#include "harness/report/bench_compare.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/core/json_member.h"
#include "harness/report/bench_markdown.h"
#include "harness/report/compare.h"

namespace ladder {
using nlohmann::json;

namespace {

std::string variant_text(const json& r) {
  std::vector<std::string> kv;
  const json variant = r.value("variant", json::object());  // held: items() refers into it
  for (const auto& [k, v] : variant.items())
    kv.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  return fmt::format("{}", fmt::join(kv, ","));
}

using Key = std::tuple<std::string, std::string, long long, long long, std::string, std::string>;
Key key_of(const json& r, bool across_variants) {
  return {r.value("op", ""), r.value("dtype", ""), r.value("rows", 0LL), r.value("d", 0LL), r.value("impl", ""),
          across_variants ? std::string() : variant_text(r)};
}

// Across variants, a run's cases must be one a shape and implementation.
void require_unique(const json& results, const char* which) {
  std::map<Key, std::string> seen;
  for (const auto& r : results) {
    const auto [it, fresh] = seen.emplace(key_of(r, true), variant_text(r));
    if (!fresh)
      throw std::invalid_argument(fmt::format(
          "the {} run has two cases of {} {} {}x{} ({}) that differ only in variant ([{}] and [{}]): "
          "compare across variants needs one a shape",
          which, r.value("op", ""), r.value("dtype", ""), r.value("rows", 0LL), r.value("d", 0LL),
          r.value("impl", ""), it->second, variant_text(r)));
  }
}

// A positive figure (a time, a fraction) of a case that ran without error; absent otherwise.
std::optional<double> measured(const json& r, const char* which) {
  if (r.contains("error") || r.value(which, 0.0) <= 0) return std::nullopt;
  return r.value(which, 0.0);
}

// A timed case's bandwidth over its run's copy ceiling: as the bench stored it (`fraction`),
// else as bench::annotate derives it from the case's bytes, its time and the document's
// ceiling; absent where any is missing.
std::optional<double> fraction_of(const json& r, const char* fraction, const char* time, double copy_gbps) {
  if (!measured(r, time)) return std::nullopt;
  if (r.value(fraction, 0.0) > 0) return r.value(fraction, 0.0);
  json derived = r;
  bench::annotate_result(derived, copy_gbps);
  return measured(derived, fraction);  // 0 without bytes or a ceiling: absent
}

// The GPU a bench document ran on, as its toolchain names it; "" where it names none.
std::string gpu_name(const json& doc) {
  return doc.contains("toolchain") ? doc["toolchain"].value("gpu", std::string()) : std::string();
}

double copy_gbps_of(const json& doc) { return doc.contains("copy") ? doc["copy"].value("gbps", 0.0) : 0.0; }

// Reads one run's side of a case: its times and fractions.
void read_side(const json& r, double copy_gbps, std::optional<double>& cold, std::optional<double>& hot,
               std::optional<double>& cold_fraction, std::optional<double>& hot_fraction) {
  cold = measured(r, "cold_us");
  hot = measured(r, "hot_us");
  cold_fraction = fraction_of(r, "cold_fraction", "cold_us", copy_gbps);
  hot_fraction = fraction_of(r, "hot_fraction", "hot_us", copy_gbps);
}

// The launches, matched by entry, whose registers, local or static shared bytes differ.
std::vector<std::string> resource_changes(const json& before, const json& after) {
  std::vector<std::string> out;
  for (const auto& a : array_member(after, "kernels")) {
    if (!a.contains("registers")) continue;
    for (const auto& b : array_member(before, "kernels")) {
      if (b.value("entry", "") != a.value("entry", "") || !b.contains("registers")) continue;
      auto field = [&](const char* key, const char* name, const char* unit) {
        return ResourceMove{name, b.value(key, 0LL), a.value(key, 0LL), unit};
      };
      const std::string line = moved_resources(
          a.value("entry", ""), {field("registers", "registers", ""), field("local_bytes", "local", " B"),
                                 field("static_shared_bytes", "static shared", " B"),
                                 field("blocks_per_sm", "blocks/SM", "")});
      if (!line.empty()) out.push_back(line);
      break;
    }
  }
  return out;
}

std::string us_cell(const std::optional<double>& before, const std::optional<double>& after) {
  const std::string b = before ? fmt::format("{:.2f}", *before) : "-";
  const std::string a = after ? fmt::format("{:.2f}", *after) : "-";
  const std::string ratio = before && after ? fmt::format(" ({:.3f})", *after / *before) : "";
  return b + " -> " + a + ratio;
}

std::string fraction_cell(const std::optional<double>& before, const std::optional<double>& after) {
  const std::string b = before ? fmt::format("{:.3f}", *before) : "-";
  const std::string a = after ? fmt::format("{:.3f}", *after) : "-";
  const std::string diff = before && after ? fmt::format(" ({:+.3f})", *after - *before) : "";
  return b + " -> " + a + diff;
}

}  // namespace

bool is_bench_document(const json& doc) { return doc.is_object() && doc.value("tool", "") == "ladder-bench"; }

std::vector<BenchChange> compare_benches(const json& before, const json& after, bool across_variants) {
  // In place, not copied: an error inside names its pointer in the document.
  const json& old_results = array_member(before, "results");
  const json& new_results = array_member(after, "results");
  if (across_variants) {
    require_unique(old_results, "first");
    require_unique(new_results, "second");
  }
  std::map<Key, const json*> old_by_key;
  for (const auto& r : old_results) old_by_key.emplace(key_of(r, across_variants), &r);
  std::vector<BenchChange> out;
  auto fill = [](BenchChange& c, const json& r) {
    c.op = r.value("op", "");
    c.dtype = r.value("dtype", "");
    c.rows = r.value("rows", 0LL);
    c.d = r.value("d", 0LL);
    c.impl = r.value("impl", "");
    c.variant = variant_text(r);
  };
  for (const auto& r : new_results) {
    BenchChange c;
    fill(c, r);
    read_side(r, copy_gbps_of(after), c.cold_after, c.hot_after, c.cold_fraction_after, c.hot_fraction_after);
    c.error_after = r.value("error", "");
    if (auto it = old_by_key.find(key_of(r, across_variants)); it != old_by_key.end()) {
      const json& o = *it->second;
      if (variant_text(o) != c.variant) c.variant_before = variant_text(o);
      read_side(o, copy_gbps_of(before), c.cold_before, c.hot_before, c.cold_fraction_before,
                c.hot_fraction_before);
      c.error_before = o.value("error", "");
      c.resource_changes = resource_changes(o, r);
      old_by_key.erase(it);
    }
    out.push_back(c);
  }
  for (const auto& [key, o] : old_by_key) {  // timed before, absent after
    BenchChange c;
    fill(c, *o);
    read_side(*o, copy_gbps_of(before), c.cold_before, c.hot_before, c.cold_fraction_before,
              c.hot_fraction_before);
    c.error_before = o->value("error", "");
    c.error_after = "not in the second run";
    out.push_back(c);
  }
  return out;
}

std::string bench_compare_table(const std::vector<BenchChange>& changes, const json& before, const json& after,
                                CompareBy by) {
  auto head = [](const json& doc) {
    const double copy = copy_gbps_of(doc);
    const std::string kernels = kernel_sources_text(doc);
    return fmt::format("{} (commit {}{}, {}, copy ceiling {})", doc.value("date", "?"), doc.value("commit", "?"),
                       kernels.empty() ? "" : ", kernel sources " + kernels,
                       gpu_name(doc).empty() ? std::string("no GPU") : gpu_name(doc),
                       copy > 0 ? fmt::format("{:.0f} GB/s", copy) : std::string("not measured"));
  };
  std::string s = "before: " + head(before) + "\nafter:  " + head(after) + "\n";
  // The same binary over the same sources: an A/B that compares a tree with itself.
  const std::string digest = kernel_sources_digest(before);
  if (!digest.empty() && digest == kernel_sources_digest(after) && before.value("commit", "") == after.value("commit", ""))
    s += "note: both runs compiled the same kernel sources with the same commit\n";
  // Times from different shares of the SMs (`ladder bench --sms`) differ by more than the kernels.
  const std::string share_before = sm_share_text(before), share_after = sm_share_text(after);
  if (share_before != share_after)
    s += "note: the runs had different shares of the SMs: before " +
         (share_before.empty() ? std::string("the whole GPU") : share_before) + "; after " +
         (share_after.empty() ? std::string("the whole GPU") : share_after) + "\n";
  // Times from different cards differ by more than the kernels: the fractions of each run's own
  // copy ceiling are what compare there.
  const std::string gpu_before = gpu_name(before), gpu_after = gpu_name(after);
  const bool other_hardware = gpu_before != gpu_after || share_before != share_after;
  if (gpu_before != gpu_after)
    s += fmt::format("note: the runs are on different GPUs ({} and {})\n", gpu_before.empty() ? "none named" : gpu_before,
                     gpu_after.empty() ? "none named" : gpu_after);
  if (other_hardware && by == CompareBy::Time)
    s += "note: --fractions compares each case's fraction of its own run's copy ceiling instead of its times\n";
  const bool fractions = by == CompareBy::Fraction;
  s += fmt::format("{:<16} {:<5} {:>13} {:<24} {:<32} {:<32}\n", "op", "dtype", "rows x d", "impl",
                   fractions ? "cold / copy before -> after" : "cold us before -> after (x)",
                   fractions ? "hot / copy before -> after" : "hot us before -> after (x)");
  std::size_t lost = 0, moved = 0;
  for (const auto& c : changes) {
    lost += c.lost();
    moved += !c.resource_changes.empty();
    // Across variants, a case whose variant changed shows both: [before -> after].
    auto named = [](const std::string& v) { return v.empty() ? std::string("auto") : v; };
    const std::string variant =
        c.variant_before ? named(*c.variant_before) + " -> " + named(c.variant) : c.variant;
    const std::string impl = variant.empty() ? c.impl : c.impl + " [" + variant + "]";
    s += fmt::format("{:<16} {:<5} {:>13} {:<24} {:<32} {:<32}\n", c.op, c.dtype, fmt::format("{}x{}", c.rows, c.d),
                     impl,
                     fractions ? fraction_cell(c.cold_fraction_before, c.cold_fraction_after)
                               : us_cell(c.cold_before, c.cold_after),
                     fractions ? fraction_cell(c.hot_fraction_before, c.hot_fraction_after)
                               : us_cell(c.hot_before, c.hot_after));
    if (c.lost()) s += "    LOST: " + c.error_after + "\n";
    for (const auto& line : c.resource_changes) s += "    resources: " + line + "\n";
  }
  s += fmt::format("\n{} cases compared, {} timed before and not after, {} with launches whose registers or memory moved\n",
                   changes.size(), lost, moved);
  return s;
}

void check_bench_document(const json& doc) {
  const auto changes = compare_benches(doc, doc);
  (void)bench_compare_table(changes, doc, doc, CompareBy::Time);
  (void)bench_compare_table(changes, doc, doc, CompareBy::Fraction);
}

}  // namespace ladder
