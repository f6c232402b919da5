#include "harness/core/result.h"

#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/core/json_number.h"

namespace ladder {
using nlohmann::json;

std::string shape_text(const std::map<std::string, std::int64_t>& shape) {
  std::string s;
  for (const auto& [k, v] : shape) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

namespace {
// A worst ratio is infinite when an element that should be finite is not: it must still travel,
// or the mismatch would arrive as a malformed result line.
double number_at(const json& j, const char* key) {
  const auto v = number_from_json(j.at(key));
  if (!v) throw std::invalid_argument(std::string(key) + ": expected a number, \"NaN\", \"Infinity\" or \"-Infinity\", got " + j.at(key).dump());
  return *v;
}
}  // namespace

void to_json(json& j, const NumericsSummary& n) {
  j = {{"buffer", n.buffer},
       {"summary", n.summary},
       {"worst_ratio", number_to_json(n.worst_ratio)},
       {"worst_error", number_to_json(n.worst_error)}};
}
void from_json(const json& j, NumericsSummary& n) {
  n.buffer = j.at("buffer").get<std::string>();
  n.summary = j.at("summary").get<std::string>();
  n.worst_ratio = number_at(j, "worst_ratio");
  n.worst_error = j.contains("worst_error") ? number_at(j, "worst_error") : 0.0;
}

void to_json(json& j, const CaseResult& c) {
  j = {{"index", c.index},
       {"shape", c.shape},
       {"failure", c.failure ? json(std::string(label(*c.failure))) : json(nullptr)},
       {"skipped", c.skipped},
       {"unresolved", c.unresolved},
       {"stage", std::string(label(c.stage))},
       {"evidence", c.evidence},
       {"numerics", c.numerics},
       {"ms", c.ms}};
  if (!c.cuda_error.empty()) j["cuda_error"] = c.cuda_error;
  if (!c.signal.empty()) j["signal"] = c.signal;
  if (!c.extra.empty()) j["extra"] = c.extra;
}

void from_json(const json& j, CaseResult& c) {
  c.index = j.at("index").get<std::size_t>();
  c.shape = j.at("shape").get<std::map<std::string, std::int64_t>>();
  c.failure.reset();
  if (!j.at("failure").is_null()) {
    auto r = parse_fail_reason(j.at("failure").get<std::string>());
    if (!r) throw std::invalid_argument("unknown failure reason " + j.at("failure").dump());
    c.failure = *r;
  }
  c.skipped = j.at("skipped").get<bool>();
  c.unresolved = j.at("unresolved").get<bool>();
  auto st = parse_stage(j.at("stage").get<std::string>());
  if (!st) throw std::invalid_argument("unknown stage " + j.at("stage").dump());
  c.stage = *st;
  c.evidence = j.at("evidence").get<std::string>();
  c.numerics = j.value("numerics", std::vector<NumericsSummary>{});
  c.ms = j.value("ms", std::map<std::string, double>{});
  c.cuda_error = j.value("cuda_error", "");
  c.signal = j.value("signal", "");
  c.extra = j.value("extra", std::map<std::string, double>{});
}

void to_json(json& j, const ImageResources& i) {
  j = {{"entry", i.entry}, {"registers", i.registers}, {"local_bytes", i.local_bytes},
       {"static_shared_bytes", i.static_shared_bytes}};
}

void from_json(const json& j, ImageResources& i) {
  i.entry = j.at("entry").get<std::string>();
  i.registers = j.value("registers", 0);
  i.local_bytes = j.value("local_bytes", 0);
  i.static_shared_bytes = j.value("static_shared_bytes", 0);
}

void to_json(json& j, const RungResult& r) {
  j = {{"name", r.name},
       {"adds", r.adds},
       {"features", r.features},
       {"verdict", std::string(label(r.verdict))},
       {"reason", r.reason ? json(std::string(label(*r.reason))) : json(nullptr)},
       {"expected", r.expected == FailReason::None ? std::string("pass") : std::string(label(r.expected))},
       {"stage", std::string(label(r.stage))},
       {"evidence", r.evidence},
       {"failing_case", r.failing_case},
       {"compile_error", r.compile_error},
       {"nvrtc_log", r.nvrtc_log},
       {"nvrtc_options", r.nvrtc_options},
       {"cache_hit", r.cache_hit},
       {"cases_total", r.cases_total},
       {"cases_run", r.cases_run},
       {"cases_passed", r.cases_passed},
       {"children", r.children},
       {"ms", r.ms},
       {"wall_ms", r.wall_ms},
       {"cases", r.cases}};
  if (!r.images.empty()) j["images"] = r.images;
}

void from_json(const json& j, RungResult& r) {
  r.name = j.at("name").get<std::string>();
  r.adds = j.value("adds", "");
  r.features = j.value("features", std::vector<std::string>{});
  auto v = parse_verdict(j.at("verdict").get<std::string>());
  if (!v) throw std::invalid_argument("unknown verdict " + j.at("verdict").dump());
  r.verdict = *v;
  r.reason.reset();
  if (j.contains("reason") && !j.at("reason").is_null())
    r.reason = parse_fail_reason(j.at("reason").get<std::string>());
  const std::string expected = j.value("expected", "pass");
  r.expected = expected == "pass" ? FailReason::None : parse_fail_reason(expected).value_or(FailReason::None);
  r.stage = parse_stage(j.value("stage", "source")).value_or(Stage::Source);
  r.evidence = j.value("evidence", "");
  r.failing_case = j.value("failing_case", "");
  r.compile_error = j.value("compile_error", "");
  r.nvrtc_log = j.value("nvrtc_log", "");
  r.nvrtc_options = j.value("nvrtc_options", std::vector<std::string>{});
  r.cache_hit = j.value("cache_hit", false);
  r.cases_total = j.value("cases_total", std::size_t{0});
  r.cases_run = j.value("cases_run", std::size_t{0});
  r.cases_passed = j.value("cases_passed", std::size_t{0});
  r.children = j.value("children", std::size_t{0});
  r.ms = j.value("ms", std::map<std::string, double>{});
  r.wall_ms = j.value("wall_ms", 0.0);
  r.cases = j.value("cases", std::vector<CaseResult>{});
  r.images = j.value("images", std::vector<ImageResources>{});
}

}  // namespace ladder
