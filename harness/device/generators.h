// Seeded input generators. Same seed, same bytes, on every machine: the generator is a fixed
// 64-bit mixer (splitmix64) and Box-Muller, not <random>'s unspecified distributions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
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

// Derived inits are computed from another input's values, for kernels that take what a forward
// pass saved: "row_mean:SRC" (each row's mean of SRC) and "row_rstd:SRC:EPS" (1 / sqrt(biased
// variance + EPS)), both in fp64 from SRC's stored values, then stored in the buffer's dtype.
bool is_derived_init(const std::string& init);

// Every filled input of `buffers`: generators first (seed_of picks each one's seed), then the
// derived ones. Throws std::invalid_argument naming the buffer for a derived init whose source
// is not a filled input or whose length is not the source's row count.
std::map<std::string, std::vector<std::byte>> generate_inputs(
    const std::vector<ConcreteBuffer>& buffers,
    const std::function<std::uint64_t(const ConcreteBuffer&)>& seed_of);

}  // namespace ladder
