// Seeded input generators. Same seed, same bytes, on every machine: the generator is a fixed
// 64-bit mixer (splitmix64) and Box-Muller, not <random>'s unspecified distributions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "harness/ladder/launch.h"

namespace ladder {

// Fills the storage of `b` (row_stride layout; gaps get zeros) from b.init: a generator, or
// "fixture:FILE#CASE/INPUT" for a fixture case's exact values (harness/device/fixture_inputs.h).
// Throws std::invalid_argument for an unknown generator name or a bad fixture reference.
std::vector<std::byte> generate(const ConcreteBuffer& b, std::uint64_t seed);

// The logical elements of a buffer's storage as doubles (gaps skipped).
std::vector<double> logical_values(const ConcreteBuffer& b, const std::vector<std::byte>& storage);

std::uint64_t mix_seed(std::uint64_t seed, const std::string& text);

}  // namespace ladder
