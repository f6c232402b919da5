#include "harness/report/build_resources.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace ladder::report {

namespace {

// Where a name expression's template arguments start ("<" on), or its end where it has none.
std::size_t arguments_start(const std::string& entry) { return std::min(entry.find('<'), entry.size()); }

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
      spills = fmt::format("{} (up to {} B a thread):", local.size(), most_local);
      for (std::size_t i = 0; i < local.size() && i < 3; ++i) {
        // A build by its template arguments (the row names the template), or by its name if it has none.
        const std::string& entry = local[i]->entry;
        const auto args = arguments_start(entry);
        spills += fmt::format(" `{}` {} B{}", args < entry.size() ? entry.substr(args) : name,
                              local[i]->resources.local_bytes, i + 1 < std::min<std::size_t>(local.size(), 3) ? "," : "");
      }
      if (local.size() > 3) spills += fmt::format(", {} more", local.size() - 3);
    }
    md += fmt::format("| `{}` | {} | {} | {} |\n", name, list.size(),
                      lo == hi ? std::to_string(lo) : fmt::format("{}–{}", lo, hi), spills);
  }
  return md;
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
    out[b["entry"].get<std::string>()] = {integer("registers"), integer("local_bytes"), integer("static_shared_bytes")};
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
