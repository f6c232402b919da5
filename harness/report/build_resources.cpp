#include "harness/report/build_resources.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace ladder::report {

namespace {

// Where a name expression's template arguments start ("<" on), or its end where it has none.
std::size_t arguments_start(const std::string& entry) { return std::min(entry.find('<'), entry.size()); }

// The first three items, joined by ", ", and how many more there are: a table cell's sample.
std::string first_three(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 3; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > 3) out += fmt::format(", {} more", items.size() - 3);
  return out;
}

}  // namespace

std::string build_resources_markdown(const std::vector<BuildResources>& builds) {
  std::map<std::string, std::vector<const BuildResources*>> by_template;
  for (const auto& b : builds) {
    // The template's name: between the last "::" before its arguments and the arguments.
    const auto lt = arguments_start(b.entry), colons = b.entry.rfind("::", lt);
    const auto begin = colons == std::string::npos ? 0 : colons + 2;
    by_template[b.entry.substr(begin, lt - begin)].push_back(&b);
  }
  std::string md = "| kernel | builds | registers | builds with local memory |\n| --- | --- | --- | --- |\n";
  for (auto& [name, list] : by_template) {
    std::sort(list.begin(), list.end(), [](const auto* a, const auto* b) { return a->entry < b->entry; });
    int lo = list.front()->resources.registers, hi = lo, most_local = 0;
    std::vector<const BuildResources*> local;
    for (const auto* b : list) {
      lo = std::min(lo, b->resources.registers);
      hi = std::max(hi, b->resources.registers);
      if (b->resources.local_bytes > 0) local.push_back(b);
      most_local = std::max(most_local, b->resources.local_bytes);
    }
    // The builds with the most local memory first.
    std::stable_sort(local.begin(), local.end(), [](const auto* a, const auto* b) {
      return a->resources.local_bytes > b->resources.local_bytes;
    });
    std::string spills = "none";
    if (!local.empty()) {
      std::vector<std::string> named;
      for (const auto* b : local) {
        // A build by its template arguments (the row names the template), or by its name if it has none.
        const auto args = arguments_start(b->entry);
        named.push_back(fmt::format("`{}` {} B", args < b->entry.size() ? b->entry.substr(args) : name,
                                    b->resources.local_bytes));
      }
      spills = fmt::format("{} (up to {} B a thread): {}", local.size(), most_local, first_three(named));
    }
    md += fmt::format("| `{}` | {} | {} | {} |\n", name, list.size(),
                      lo == hi ? std::to_string(lo) : fmt::format("{}–{}", lo, hi), spills);
  }
  return md;
}

namespace {

struct TableRow {
  std::string name, local;
  int builds = 0, lo = 0, hi = 0;
};

// The body rows of a table as build_resources_markdown writes it; `problems` gets a line for
// each row it cannot read.
std::vector<TableRow> table_rows(const std::string& table, const char* which, std::string& problems) {
  std::vector<TableRow> rows;
  std::istringstream in(table);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.rfind("| `", 0) != 0) continue;  // the header, its separator, anything else
    std::vector<std::string> cells;
    std::size_t at = 1;
    while (at < line.size()) {
      const auto bar = line.find(" |", at);
      if (bar == std::string::npos) break;
      cells.push_back(line.substr(at + 1, bar - at - 1));
      at = bar + 2;
    }
    TableRow r;
    int matched = 0;
    if (cells.size() == 4) {
      r.name = cells[0];
      r.local = cells[3];
      r.builds = std::atoi(cells[1].c_str());
      matched = std::sscanf(cells[2].c_str(), "%d–%d", &r.lo, &r.hi);
      if (matched == 1) r.hi = r.lo;
    }
    if (cells.size() != 4 || matched < 1 || r.builds <= 0) {
      problems += fmt::format("{} table, line {}: expected | `kernel` | builds | registers | local memory |, got: {}\n",
                              which, line_no, line);
      continue;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

std::string build_table_differences(const std::string& documented, const std::string& compiled,
                                    int register_slack) {
  std::string out;
  const auto doc = table_rows(documented, "documented", out);
  const auto got = table_rows(compiled, "compiled", out);
  std::map<std::string, const TableRow*> by_name;
  for (const auto& r : got) by_name[r.name] = &r;
  std::set<std::string> seen;
  for (const auto& d : doc) {
    seen.insert(d.name);
    const auto it = by_name.find(d.name);
    if (it == by_name.end()) {
      out += fmt::format("{}: documented, not compiled\n", d.name);
      continue;
    }
    const TableRow& c = *it->second;
    if (d.builds != c.builds) out += fmt::format("{}: {} builds documented, {} compiled\n", d.name, d.builds, c.builds);
    if (std::abs(d.lo - c.lo) > register_slack || std::abs(d.hi - c.hi) > register_slack)
      out += fmt::format("{}: registers {}–{} documented, {}–{} compiled (more than {} apart)\n", d.name, d.lo, d.hi,
                         c.lo, c.hi, register_slack);
    if (d.local != c.local)
      out += fmt::format("{}: local memory \"{}\" documented, \"{}\" compiled\n", d.name, d.local, c.local);
  }
  for (const auto& c : got)
    if (!seen.count(c.name)) out += fmt::format("{}: compiled, not documented\n", c.name);
  return out;
}

using nlohmann::json;

namespace {

std::map<std::string, toolchain::KernelResources> builds_of(const json& doc) {
  if (!doc.contains("builds") || !doc["builds"].is_array())
    throw std::runtime_error("an every-build document needs a \"builds\" array");
  std::map<std::string, toolchain::KernelResources> out;
  std::size_t i = 0;
  for (const auto& b : doc["builds"]) {
    auto integer = [&](const char* key) {
      if (!b.is_object() || !b.contains(key) || !b[key].is_number_integer())
        throw std::runtime_error(fmt::format("builds[{}].{}: expected an integer", i, key));
      return b[key].get<int>();
    };
    if (!b.is_object() || !b.contains("entry") || !b["entry"].is_string())
      throw std::runtime_error(fmt::format("builds[{}].entry: expected a string", i));
    // "code": the machine code's digest; documents written before it was recorded have none.
    if (b.contains("code") && !b["code"].is_string())
      throw std::runtime_error(fmt::format("builds[{}].code: expected a string (the code digest)", i));
    out[b["entry"].get<std::string>()] = {integer("registers"), integer("local_bytes"), integer("static_shared_bytes"),
                                          b.value("code", std::string())};
    ++i;
  }
  return out;
}

bool same(const toolchain::KernelResources& a, const toolchain::KernelResources& b) {
  return a.registers == b.registers && a.local_bytes == b.local_bytes && a.static_shared_bytes == b.static_shared_bytes;
}

std::string moved(int before, int after, const char* unit) {
  return before == after ? fmt::format("{}{}", before, unit) : fmt::format("**{} -> {}**{}", before, after, unit);
}

std::string header(const char* which, const json& doc) {
  return fmt::format("{}: {} builds for {}, NVRTC {}, commit {}, {}\n", which,
                     doc.contains("builds") && doc["builds"].is_array() ? doc["builds"].size() : 0,
                     doc.value("arch", std::string("?")), doc.value("nvrtc_version", std::string("?")),
                     doc.value("commit", std::string("?")), doc.value("date", std::string("?")));
}

}  // namespace

bool is_every_build_document(const json& doc) { return doc.is_object() && doc.value("every_build", false); }

void check_every_build_document(const json& doc) { builds_of(doc); }

std::vector<BuildChange> compare_builds(const json& before, const json& after) {
  const auto old_builds = builds_of(before), new_builds = builds_of(after);
  std::vector<BuildChange> out;
  for (const auto& [entry, r] : old_builds) {
    const auto it = new_builds.find(entry);
    if (it == new_builds.end()) out.push_back({entry, r, std::nullopt});
    else if (!same(r, it->second)) out.push_back({entry, r, it->second});
  }
  for (const auto& [entry, r] : new_builds)
    if (!old_builds.count(entry)) out.push_back({entry, std::nullopt, r});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.entry < b.entry; });
  return out;
}

std::vector<CodeChanges> compare_code(const json& before, const json& after) {
  const auto old_builds = builds_of(before), new_builds = builds_of(after);
  std::map<std::string, CodeChanges> by_template;
  for (const auto& [entry, r] : old_builds) {
    const auto it = new_builds.find(entry);
    if (it == new_builds.end()) continue;
    const std::string name = entry.substr(0, arguments_start(entry));  // the template, namespace and all
    CodeChanges& t = by_template[name];
    t.name = name;
    if (r.code_digest.empty() || it->second.code_digest.empty()) ++t.unknown;
    else if (r.code_digest == it->second.code_digest) ++t.same;
    else t.changed.push_back(entry);
  }
  std::vector<CodeChanges> out;
  for (auto& [name, t] : by_template) out.push_back(std::move(t));
  return out;
}

std::string code_compare_table(const std::vector<CodeChanges>& templates) {
  std::size_t same = 0, changed = 0, unknown = 0;
  std::string rows;
  for (const auto& t : templates) {
    same += t.same;
    changed += t.changed.size();
    unknown += t.unknown;
    if (t.changed.empty()) continue;
    std::vector<std::string> named;
    for (const auto& entry : t.changed) named.push_back(fmt::format("`{}`", entry.substr(t.name.size())));
    rows += fmt::format("| `{}` | {} | {} | {} |\n", t.name, t.same + t.changed.size() + t.unknown, t.changed.size(),
                        first_three(named));
  }
  std::string s = fmt::format("\nmachine code (each kernel's .text digest): {} builds the same, {} changed", same, changed);
  if (unknown > 0) s += fmt::format(", {} not compared (a document without code digests)", unknown);
  s += "\n";
  if (!rows.empty()) s += "\n| kernel | builds in both | code changed | builds changed |\n| --- | --- | --- | --- |\n" + rows;
  return s;
}

std::string build_compare_table(const std::vector<BuildChange>& changes, const json& before, const json& after) {
  std::string s = header("before", before) + header("after", after);
  std::size_t moved_count = 0, lost = 0, added = 0;
  std::string rows, only;
  for (const auto& c : changes) {
    if (c.before && c.after) {
      ++moved_count;
      rows += fmt::format("| `{}` | {} | {} | {} |\n", c.entry, moved(c.before->registers, c.after->registers, ""),
                          moved(c.before->local_bytes, c.after->local_bytes, " B"),
                          moved(c.before->static_shared_bytes, c.after->static_shared_bytes, " B"));
    } else {
      (c.before ? lost : added) += 1;
      only += fmt::format("- `{}`: only {}{}\n", c.entry, c.before ? "before" : "after",
                          c.before ? " (not compiled after: compare fails)" : "");
    }
  }
  s += fmt::format("\n{} builds moved, {} only before, {} only after\n", moved_count, lost, added);
  if (!rows.empty())
    s += "\n| build | registers | local memory | static shared memory |\n| --- | --- | --- | --- |\n" + rows;
  if (!only.empty()) s += "\n" + only;
  return s;
}

}  // namespace ladder::report
