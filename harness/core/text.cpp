#include "harness/core/text.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ladder {

FileRead read_whole_file(const std::string& path, std::string& text) {
  text.clear();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return FileRead::folder;
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileRead::cannot_open;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return FileRead::ok;
}

std::string read_file(const std::string& path, const std::string& what) {
  std::string text;
  switch (read_whole_file(path, text)) {
    case FileRead::ok: return text;
    case FileRead::folder: throw std::invalid_argument("cannot read " + what + " " + path + " (it is a folder)");
    case FileRead::cannot_open: break;
  }
  throw std::invalid_argument("cannot read " + what + " " + path);
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

}  // namespace ladder
