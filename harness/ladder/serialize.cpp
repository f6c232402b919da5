#include "harness/ladder/serialize.h"

namespace ladder {
using nlohmann::json;

namespace {
std::string role_name(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "input";
    case BufferRole::Output: return "output";
    case BufferRole::InOut: return "inout";
    case BufferRole::Scratch: return "scratch";
  }
  return "input";
}
}  // namespace

json rung_to_json(const Rung& r) {
  json j = {{"name", r.name}, {"adds", r.adds}, {"features", r.features}, {"options", r.options},
            {"scalars", r.scalars}, {"expect", r.expect == FailReason::None ? std::string("pass") : std::string(label(r.expect))},
            {"deterministic", r.deterministic}, {"seed", r.seed}, {"cases", r.cases}};
  if (r.timeout_s > 0) j["timeout_s"] = r.timeout_s;
  if (r.kernel) {
    j["kernel"] = {{"op", r.kernel->op}, {"dtype", std::string(label(r.kernel->dtype))}, {"variant", r.kernel->variant}};
    if (!r.kernel->inits.empty()) j["kernel"]["inits"] = r.kernel->inits;
    return j;
  }
  j["source"] = r.source;
  j["entry"] = r.entry;
  json buffers = json::array();
  for (const auto& b : r.buffers) {
    json jb = {{"name", b.name}, {"role", role_name(b.role)}, {"dtype", std::string(label(b.dtype))},
               {"shape", b.shape}, {"init", b.init}};
    if (!b.row_stride.empty()) jb["row_stride"] = b.row_stride;
    if (!b.alias_of.empty()) jb["alias_of"] = b.alias_of;
    buffers.push_back(jb);
  }
  j["buffers"] = buffers;
  json args = json::array();
  for (const auto& a : r.args)
    args.push_back(a.is_buffer ? json(a.buffer) : json{{std::string(label(a.type)), a.expr}});
  j["args"] = args;
  j["grid"] = r.grid;
  j["block"] = r.block;
  j["shared_bytes"] = r.shared_bytes;
  j["oracle"] = r.oracle;
  return j;
}

std::string single_rung_manifest(const Rung& r) {
  return json{{"schema_version", 1}, {"rungs", json::array({rung_to_json(r)})}}.dump();
}

}  // namespace ladder
