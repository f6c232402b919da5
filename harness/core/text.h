// Small text helpers shared by the command line and the writers: a whole-file read that names the
// file when it fails, and a strict whole-number parse.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ladder {

// The bytes of `path`; throws std::invalid_argument "cannot read <what> <path>".
std::string read_file(const std::string& path, const std::string& what = "file");

// `text` as a whole number (an optional minus sign and digits, nothing else); nullopt otherwise.
std::optional<std::int64_t> parse_integer(std::string_view text);

}  // namespace ladder
