#include "harness/report/compare.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/report/printers.h"

namespace ladder {
namespace {

bool good(Verdict v) { return v == Verdict::Pass || v == Verdict::XFail; }

double worst_ratio(const RungResult& r) {
  double w = 0;
  for (const auto& c : r.cases)
    for (const auto& n : c.numerics) w = std::max(w, n.worst_ratio);
  return w;
}

// One line a kernel compiled in both rungs whose resources differ.
std::vector<std::string> resource_changes(const RungResult& before, const RungResult& after) {
  std::vector<std::string> out;
  for (const auto& a : after.images) {
    const auto b = std::find_if(before.images.begin(), before.images.end(),
                                [&](const ImageResources& i) { return i.entry == a.entry; });
    if (b == before.images.end()) continue;
    const std::string line = moved_resources(a.entry, {{"registers", b->registers, a.registers, ""},
                                                       {"local", b->local_bytes, a.local_bytes, " B"},
                                                       {"static shared", b->static_shared_bytes,
                                                        a.static_shared_bytes, " B"}});
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace

std::string moved_resources(const std::string& entry, std::initializer_list<ResourceMove> fields) {
  std::vector<std::string> parts;
  for (const auto& f : fields)
    if (f.before != f.after) parts.push_back(fmt::format("{} {} -> {}{}", f.name, f.before, f.after, f.unit));
  return parts.empty() ? "" : fmt::format("{}: {}", entry, fmt::join(parts, ", "));
}

std::string change_label(Change c) {
  switch (c) {
    case Change::Same: return "same";
    case Change::Regressed: return "REGRESSED";
    case Change::Improved: return "improved";
    case Change::Added: return "added";
    case Change::Removed: return "removed";
  }
  return "?";
}

std::vector<RungChange> compare_runs(const RunDocument& before, const RunDocument& after) {
  std::map<std::string, const RungResult*> old_by_name;
  for (const auto& r : before.rungs) old_by_name[r.name] = &r;
  std::vector<RungChange> out;
  for (const auto& r : after.rungs) {
    RungChange c;
    c.name = r.name;
    c.after = verdict_text(r);
    c.stage_after = std::string(label(r.stage));
    c.worst_after = worst_ratio(r);
    auto it = old_by_name.find(r.name);
    if (it == old_by_name.end()) {
      c.change = Change::Added;
      c.before = c.stage_before = "-";
      out.push_back(c);
      continue;
    }
    const RungResult& o = *it->second;
    old_by_name.erase(it);
    c.before = verdict_text(o);
    c.stage_before = std::string(label(o.stage));
    c.worst_before = worst_ratio(o);
    if (o.wall_ms > 0) c.wall_ratio = r.wall_ms / o.wall_ms;
    const bool was_good = good(o.verdict), is_good = good(r.verdict);
    if (was_good && !is_good) c.change = Change::Regressed;
    else if (!was_good && is_good) c.change = Change::Improved;
    else if (!is_good && r.stage < o.stage) c.change = Change::Regressed;  // fails earlier than before
    else if (!is_good && r.stage > o.stage) c.change = Change::Improved;
    else if (c.before != c.after) c.change = was_good ? Change::Same : Change::Regressed;
    if (c.change == Change::Regressed)
      c.evidence = r.failing_case.empty() ? r.evidence : fmt::format("[{}] {}", r.failing_case, r.evidence);
    c.resource_changes = resource_changes(o, r);
    out.push_back(c);
  }
  for (const auto& [name, o] : old_by_name) {
    RungChange c;
    c.name = name;
    c.change = Change::Removed;
    c.before = verdict_text(*o);
    c.stage_before = std::string(label(o->stage));
    c.after = c.stage_after = "-";
    out.push_back(c);
  }
  return out;
}

std::string compare_table(const std::vector<RungChange>& changes, const RunDocument& before,
                          const RunDocument& after) {
  std::string s = fmt::format("before: {} (NVRTC {}, {}, commit {})\nafter:  {} (NVRTC {}, {}, commit {})\n",
                              before.date, before.toolchain.value("nvrtc_version", "?"),
                              before.toolchain.value("gpu", "no GPU"), before.commit, after.date,
                              after.toolchain.value("nvrtc_version", "?"), after.toolchain.value("gpu", "no GPU"),
                              after.commit);
  s += fmt::format("{:<28} {:<10} {:<20} {:<20} {:<17} {:>13} {:>7}\n", "rung", "change", "before", "after",
                   "stage", "worst/bound", "wall x");
  std::size_t regressed = 0, moved = 0;
  for (const auto& c : changes) {
    regressed += c.change == Change::Regressed;
    moved += !c.resource_changes.empty();
    s += fmt::format("{:<28} {:<10} {:<20} {:<20} {:<17} {:>6.2f}->{:<5.2f} {:>7}\n", c.name, change_label(c.change),
                     c.before, c.after, c.stage_before + "->" + c.stage_after, c.worst_before, c.worst_after,
                     c.wall_ratio > 0 ? fmt::format("{:.2f}", c.wall_ratio) : std::string("-"));
    if (!c.evidence.empty()) s += "    " + c.evidence + "\n";
    for (const auto& line : c.resource_changes) s += "    resources: " + line + "\n";
  }
  s += fmt::format("\n{} rungs compared, {} regressed, {} with kernels whose registers or memory moved\n",
                   changes.size(), regressed, moved);
  return s;
}

}  // namespace ladder
