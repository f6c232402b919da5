// A rung back to manifest JSON: how the parent hands a rung (from a file or built in code, as
// `ladder verify` does) to a child, which parses it with the same parser as any manifest.
#pragma once
#include <nlohmann/json.hpp>

#include "harness/ladder/manifest.h"

namespace ladder {

nlohmann::json rung_to_json(const Rung& r);       // cases expanded, source path absolute
std::string single_rung_manifest(const Rung& r);  // {"schema_version":1,"rungs":[...]}

}  // namespace ladder
