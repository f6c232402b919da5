#include "harness/core/text.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ladder {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + what + " " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

}  // namespace ladder
