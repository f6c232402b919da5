// The grid `ladder verify` runs: the rows x hidden sizes for each op's default variant,
// and small, awkward shapes for every other variant of the plan (kernels/README.md's harness
// variants), with the shapes some variants add to reach their fast paths.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ladder::cli {

using Variant = std::map<std::string, std::string>;
using Shapes = std::vector<std::pair<std::int64_t, std::int64_t>>;  // (rows, d)

extern const std::vector<std::int64_t> kRows;    // the default variant's rows
extern const std::vector<std::int64_t> kHidden;  // and hidden sizes, every pair of them
extern const Shapes kSmallShapes;                // every variant's shapes (the default's too)

// Every variant of `op` the grid runs besides the default one.
std::vector<Variant> variants_of(const std::string& op);
// The shapes variant `v` adds to kSmallShapes.
Shapes extra_shapes_of(const Variant& v);

}  // namespace ladder::cli
