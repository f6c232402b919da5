#include "harness/toolchain/cubin_resources.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "harness/core/hasher.h"

namespace ladder::toolchain {
namespace {

// The attributes of the image-wide .nv.info section this reads: each is {symbol index, value}.
constexpr std::uint8_t kAttrRegisterCount = 0x2f;  // EIATTR_REGCOUNT
constexpr std::uint8_t kAttrFrameSize = 0x11;      // EIATTR_FRAME_SIZE
constexpr std::uint8_t kFormatSized = 0x04;        // EIFMT_SVAL: a 16-bit size, then the payload
constexpr std::uint32_t kSymtab = 2;               // SHT_SYMTAB
// sm_90 images place the runtime's reserved shared memory at the start of a kernel's shared
// section (symbols .nv.reservedSmem.*): the section is then this much larger than the kernel's
// own static shared memory, which is what ptxas -v and the occupancy rules count.
constexpr std::uint64_t kReservedSharedInSection = 1024;
constexpr std::string_view kReservedSharedSymbol = ".nv.reservedSmem";

// Little-endian reads that fail instead of reading past the image.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  // The `count` bytes at `offset`, or nullopt where they run off the image.
  std::optional<std::string_view> bytes(std::uint64_t offset, std::uint64_t count) const {
    if (offset > bytes_.size() || bytes_.size() - offset < count) return std::nullopt;
    return bytes_.substr(offset, count);
  }
  template <typename U>
  std::optional<U> at(std::uint64_t offset) const {
    const auto raw = bytes(offset, sizeof(U));
    if (!raw) return std::nullopt;
    U value;
    std::memcpy(&value, raw->data(), sizeof(U));
    return value;
  }
  // The NUL-terminated string at `offset`, or nullopt where it runs off the image.
  std::optional<std::string_view> c_string(std::uint64_t offset) const {
    if (offset >= bytes_.size()) return std::nullopt;
    const std::size_t end = bytes_.find('\0', offset);
    if (end == std::string_view::npos) return std::nullopt;
    return bytes_.substr(offset, end - offset);
  }

 private:
  std::string_view bytes_;
};

struct Section {
  std::string_view name;
  std::uint32_t type = 0, link = 0;
  std::uint64_t offset = 0, size = 0, entry_size = 0;
};

// The section headers of an ELF64 little-endian image, or an error.
std::optional<std::vector<Section>> read_sections(const Reader& r, std::string& error) {
  const auto magic = r.at<std::uint32_t>(0);
  if (!magic || *magic != 0x464c457fu || r.at<std::uint8_t>(4) != std::uint8_t{2}) {
    error = "not an ELF64 image (a cubin)";
    return std::nullopt;
  }
  const auto shoff = r.at<std::uint64_t>(0x28);
  const auto shentsize = r.at<std::uint16_t>(0x3a), shnum = r.at<std::uint16_t>(0x3c),
             shstrndx = r.at<std::uint16_t>(0x3e);
  if (!shoff || !shentsize || !shnum || !shstrndx || *shentsize < 64 || *shstrndx >= *shnum) {
    error = "the ELF header's section table is malformed";
    return std::nullopt;
  }
  std::vector<Section> sections(*shnum);
  std::vector<std::uint32_t> name_offsets(*shnum);
  for (std::uint16_t i = 0; i < *shnum; ++i) {
    const std::uint64_t h = *shoff + std::uint64_t{i} * *shentsize;
    const auto name = r.at<std::uint32_t>(h), type = r.at<std::uint32_t>(h + 4);
    const auto offset = r.at<std::uint64_t>(h + 0x18), size = r.at<std::uint64_t>(h + 0x20);
    const auto link = r.at<std::uint32_t>(h + 0x28);
    const auto entry_size = r.at<std::uint64_t>(h + 0x38);
    if (!name || !type || !offset || !size || !link || !entry_size) {
      error = fmt::format("section header {} lies outside the image", i);
      return std::nullopt;
    }
    name_offsets[i] = *name;
    sections[i] = {{}, *type, *link, *offset, *size, *entry_size};
  }
  const Section& names = sections[*shstrndx];
  for (std::uint16_t i = 0; i < *shnum; ++i) {
    const auto name = r.c_string(names.offset + name_offsets[i]);
    if (!name) {
      error = fmt::format("section {}'s name lies outside the image", i);
      return std::nullopt;
    }
    sections[i].name = *name;
  }
  return sections;
}

struct Symbols {
  std::optional<std::uint32_t> kernel;  // the symbol table index of the kernel
  bool reserved_shared = false;         // the image reserves shared memory in its kernels' sections
};

Symbols read_symbols(const Reader& r, const std::vector<Section>& sections, std::string_view kernel) {
  Symbols out;
  for (const Section& s : sections) {
    if (s.type != kSymtab || s.entry_size < 24 || s.link >= sections.size()) continue;
    const Section& strings = sections[s.link];
    for (std::uint64_t i = 0; i < s.size / s.entry_size; ++i) {
      const auto name = r.at<std::uint32_t>(s.offset + i * s.entry_size);
      if (!name) return out;
      const auto text = r.c_string(strings.offset + *name);
      if (!text) continue;
      if (*text == kernel) out.kernel = static_cast<std::uint32_t>(i);
      if (text->substr(0, kReservedSharedSymbol.size()) == kReservedSharedSymbol) out.reserved_shared = true;
    }
  }
  return out;
}

}  // namespace

KernelResourcesResult kernel_resources(std::string_view cubin, std::string_view kernel) {
  KernelResourcesResult out;
  const Reader r(cubin);
  const auto sections = read_sections(r, out.error);
  if (!sections) return out;
  const Symbols symbols = read_symbols(r, *sections, kernel);
  const auto& symbol = symbols.kernel;
  if (!symbol) {
    out.error = fmt::format("no kernel '{}' in the image's symbol table", kernel);
    return out;
  }
  bool registers_found = false;
  const std::string shared_section = ".nv.shared." + std::string(kernel);
  const std::string code_section = ".text." + std::string(kernel);
  for (const Section& s : *sections) {
    if (s.name == code_section) {
      const auto code = r.bytes(s.offset, s.size);
      if (!code) {
        out.error = fmt::format("the section {} lies outside the image", code_section);
        return out;
      }
      Hasher h;
      h.add(*code);
      out.resources.code_digest = h.hex();
    }
    if (s.name == shared_section) {
      const std::uint64_t reserved = symbols.reserved_shared ? std::min(s.size, kReservedSharedInSection) : 0;
      out.resources.static_shared_bytes = static_cast<int>(s.size - reserved);
    }
    if (s.name != ".nv.info") continue;
    // Entries: a format byte, an attribute byte, then 2 bytes (a value, or a sized payload's size).
    for (std::uint64_t p = s.offset; p + 4 <= s.offset + s.size;) {
      const auto format = r.at<std::uint8_t>(p), attribute = r.at<std::uint8_t>(p + 1);
      const auto size = r.at<std::uint16_t>(p + 2);
      if (!format || !attribute || !size) break;
      if (*format != kFormatSized) {
        p += 4;
        continue;
      }
      const auto owner = r.at<std::uint32_t>(p + 4), value = r.at<std::uint32_t>(p + 8);
      if (*size >= 8 && owner && value && *owner == *symbol) {
        if (*attribute == kAttrRegisterCount) {
          out.resources.registers = static_cast<int>(*value);
          registers_found = true;
        }
        if (*attribute == kAttrFrameSize) out.resources.local_bytes = static_cast<int>(*value);
      }
      p += 4 + *size;
    }
  }
  if (!registers_found) {
    out.error = fmt::format("the image's .nv.info gives no register count for '{}'", kernel);
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace ladder::toolchain
