// An optional array member of a document, read in place. `doc.value(key, json::array())` returns
// a copy, and a copy has lost its place in the document: with JSON_DIAGNOSTICS, an error inside it
// would name "/1/rows" where the value at fault is "/results/1/rows".
#pragma once
#include <nlohmann/json.hpp>

namespace ladder {

// doc[key] when doc is an object that has it (whatever its type: iterating a non-array then
// fails with its pointer), otherwise an empty array.
inline const nlohmann::json& array_member(const nlohmann::json& doc, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!doc.is_object()) return empty;
  const auto it = doc.find(key);
  return it == doc.end() ? empty : *it;
}

}  // namespace ladder
