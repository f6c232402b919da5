// Buffer inputs taken from a fixture case (fixtures/*.json) rather than a seeded generator, so a
// production kernel runs on exactly the values torch and FLA saw. A buffer asks for them with
// the init spec "fixture:FILE#CASE_ID/INPUT"; the child reads FILE itself, so the rung stays
// small data and the values never pass through the parent.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "harness/ladder/launch.h"

namespace ladder {

inline constexpr const char* kFixtureInitPrefix = "fixture:";

struct FixtureInputRef {
  std::string file, case_id, input;
};

// "fixture:FILE#CASE_ID/INPUT". Case ids hold '/', so FILE ends at the last '#' and INPUT starts
// after the last '/'.
std::string fixture_init(const std::string& file, const std::string& case_id, const std::string& input);
bool is_fixture_init(const std::string& init);
FixtureInputRef parse_fixture_init(const std::string& init);  // std::invalid_argument if malformed

// The input's values, in the case's row-major order. Throws std::invalid_argument naming the
// file, the case and what was expected (also for an unreadable or malformed file). Files are
// parsed once per process.
const std::vector<double>& fixture_input_values(const FixtureInputRef& ref);

// Storage bytes for `b` (row_stride layout, gaps zero) holding the fixture input exactly. The
// buffer must have the case's dtype and as many logical elements as the input has values.
std::vector<std::byte> fill_from_fixture(const ConcreteBuffer& b);

}  // namespace ladder
