#include "harness/report/contents.h"

#include <cctype>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace ladder::report {

std::string heading_anchor(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    else if (c == ' ' || c == '-') out += '-';
    else if (c == '_') out += '_';
  }
  return out;
}

std::string table_of_contents(const std::string& markdown) {
  std::istringstream in(markdown);
  std::string line, items;
  bool fenced = false;
  std::size_t verbatim = 0;
  std::map<std::string, int> seen;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    if (line.rfind("### `", 0) == 0) ++verbatim;
    if (line.rfind("## ", 0) != 0) continue;
    const std::string text = line.substr(3);
    std::string anchor = heading_anchor(text);
    const int n = seen[anchor]++;
    if (n > 0) anchor += "-" + std::to_string(n);
    items += fmt::format("- [{}](#{})\n", text, anchor);
  }
  if (items.empty()) return "";
  return "### Contents\n\n" + items +
         (verbatim > 0 ? fmt::format("\n{} tool outputs follow the tables verbatim, each under its file's name.\n", verbatim)
                       : std::string()) +
         "\n";
}

}  // namespace ladder::report
