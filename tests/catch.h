// One include for Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04), and the few names that differ.
#pragma once
#include <string>
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
using Catch::Approx;  // v2 has it at global scope
namespace ladder_test {
inline auto has_substr(const std::string& s) { return Catch::Matchers::ContainsSubstring(s); }
}  // namespace ladder_test
#else
#include <catch2/catch.hpp>
namespace ladder_test {
inline auto has_substr(const std::string& s) { return Catch::Matchers::Contains(s); }
}  // namespace ladder_test
#endif
