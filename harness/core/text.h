// Small text helpers shared by the command line, the document loaders and the writers: whole-file
// reads that tell a folder from a missing file, and a strict whole-number parse.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ladder {

// Whether `path` could be read whole. std::ifstream opens a folder on Linux and then reads it as
// empty, so a folder given where a document is wanted would parse as an empty document; it is
// told apart before the open.
enum class FileRead { ok, folder, cannot_open };
// The bytes of `path` into `text` (left empty unless ok). Never throws for a bad path.
FileRead read_whole_file(const std::string& path, std::string& text);

// The bytes of `path`; throws std::invalid_argument "cannot read <what> <path>", with
// " (it is a folder)" after it for a folder.
std::string read_file(const std::string& path, const std::string& what = "file");

// `text` as a whole number (an optional minus sign and digits, nothing else); nullopt otherwise.
std::optional<std::int64_t> parse_integer(std::string_view text);

}  // namespace ladder
