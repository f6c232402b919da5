#include "harness/report/build_resources.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ladder::report {

std::string build_resources_markdown(const std::vector<BuildResources>& builds) {
  std::map<std::string, std::vector<const BuildResources*>> by_template;
  for (const auto& b : builds) {
    // The template's name: between the last "::" before its arguments and the arguments.
    const auto lt = b.entry.find('<'), colons = b.entry.rfind("::", lt);
    const auto begin = colons == std::string::npos ? 0 : colons + 2;
    const std::string name = b.entry.substr(begin, lt == std::string::npos ? std::string::npos : lt - begin);
    by_template[name].push_back(&b);
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
      for (std::size_t i = 0; i < local.size() && i < 3; ++i)
        spills += fmt::format(" `{}` {} B{}", local[i]->entry.substr(local[i]->entry.find('<')),
                              local[i]->resources.local_bytes, i + 1 < std::min<std::size_t>(local.size(), 3) ? "," : "");
      if (local.size() > 3) spills += fmt::format(", {} more", local.size() - 3);
    }
    md += fmt::format("| `{}` | {} | {} | {} |\n", name, list.size(),
                      lo == hi ? std::to_string(lo) : fmt::format("{}–{}", lo, hi), spills);
  }
  return md;
}

}  // namespace ladder::report
