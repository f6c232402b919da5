// A 128-bit FNV-1a over a sequence of strings: two 64-bit lanes with different bases, and a
// separator after each string so that ("ab", "c") and ("a", "bc") differ. For telling contents
// apart (compile-cache keys, which kernel sources a run used), not a security boundary.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace ladder {

struct Hasher {
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(std::string_view s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    a = (a ^ 0xff) * 0x100000001b3ull;
    b = (b ^ 0xfe) * 0x100000001b3ull;
  }
  std::string hex() const { return fmt::format("{:016x}{:016x}", a, b); }
};

}  // namespace ladder
