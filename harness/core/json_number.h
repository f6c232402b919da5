// JSON has no Inf or NaN (nlohmann writes them as null). Wherever the project stores a double
// that may be non-finite (fixture values, worst error ratios), it writes "NaN", "Infinity" or
// "-Infinity" instead, the spelling of the fixture files.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

namespace ladder {

nlohmann::json number_to_json(double v);

// A JSON number, or one of the three strings above; nullopt for anything else.
std::optional<double> number_from_json(const nlohmann::json& v);

}  // namespace ladder
