#include "harness/report/envelope.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/core/text.h"

namespace ladder {
namespace {

std::int64_t parse_int(const std::string& text, const std::string& spec, const std::string& option) {
  const auto v = parse_integer(text);
  if (!v) throw std::invalid_argument(fmt::format("{} '{}': expected an integer, got '{}'", option, spec, text));
  if (*v < 0) throw std::invalid_argument(fmt::format("{} '{}': expected a value >= 0, got {}", option, spec, *v));
  return *v;
}

constexpr std::size_t kMaxValuesPerDim = 1 << 20;
constexpr std::size_t kMaxMapColumns = 128;

}  // namespace

SweepDim parse_sweep_dim(const std::string& spec, const std::string& option) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument(fmt::format("{} '{}': expected NAME=LO..HI[:STEP] or NAME=V1,V2,...", option, spec));
  SweepDim dim;
  dim.name = spec.substr(0, eq);
  const std::string rest = spec.substr(eq + 1);
  if (const auto dots = rest.find(".."); dots != std::string::npos) {
    const auto colon = rest.find(':', dots);
    const std::int64_t lo = parse_int(rest.substr(0, dots), spec, option);
    const std::int64_t hi = parse_int(rest.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2), spec, option);
    const std::int64_t step = colon == std::string::npos ? 1 : parse_int(rest.substr(colon + 1), spec, option);
    if (hi < lo) throw std::invalid_argument(fmt::format("{} '{}': expected LO <= HI", option, spec));
    if (step < 1) throw std::invalid_argument(fmt::format("{} '{}': expected a step >= 1", option, spec));
    if (static_cast<std::uint64_t>((hi - lo) / step) >= kMaxValuesPerDim)
      throw std::invalid_argument(fmt::format("{} '{}': more than {} values", option, spec, kMaxValuesPerDim));
    for (std::int64_t v = lo; v <= hi; v += step) dim.values.push_back(v);
  } else {
    std::size_t start = 0;
    while (start <= rest.size()) {
      const auto comma = rest.find(',', start);
      dim.values.push_back(parse_int(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start), spec, option));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return dim;
}

std::vector<Case> sweep_cases(const std::vector<SweepDim>& dims, const Case& base, std::size_t limit) {
  if (dims.empty()) throw std::invalid_argument("a sweep needs at least one --dim");
  std::size_t total = 1;
  for (const auto& d : dims) {
    if (!base.count(d.name)) {
      std::string names;
      for (const auto& [k, v] : base) names += (names.empty() ? "" : ", ") + k;
      throw std::invalid_argument(
          fmt::format("--dim {}: the rung's cases have no symbol '{}' (they have: {})", d.name, d.name, names));
    }
    if (std::count_if(dims.begin(), dims.end(), [&](const SweepDim& o) { return o.name == d.name; }) > 1)
      throw std::invalid_argument(fmt::format("--dim {} is given twice", d.name));
    total *= d.values.size();
    if (total > limit)
      throw std::invalid_argument(fmt::format("the sweep has more than {} shapes; narrow a --dim", limit));
  }
  std::vector<Case> out{base};
  for (const auto& d : dims) {
    std::vector<Case> next;
    next.reserve(out.size() * d.values.size());
    for (const auto& c : out)
      for (auto v : d.values) {
        Case q = c;
        q[d.name] = v;
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  return out;
}

char outcome_mark(const CaseResult& c) {
  if (c.unresolved) return '?';
  if (c.skipped) return 'S';
  if (!c.failure) return '.';
  switch (*c.failure) {
    case FailReason::Unwritten: return 'U';
    case FailReason::Redzone: return 'Z';
    case FailReason::Clobbered: return 'K';
    case FailReason::Mismatch: return 'M';
    case FailReason::Nondeterministic: return 'N';
    case FailReason::Crash: return 'C';
    case FailReason::Timeout: return 'T';
    case FailReason::Launch: return 'L';
    case FailReason::Compile:
    case FailReason::Load: return 'X';
    case FailReason::None: return '.';
  }
  return '?';
}

std::string mark_legend() {
  return ". passed  U unwritten  Z redzone  K clobbered  M mismatch  N nondeterministic  C crash  T timeout  "
         "L launch  X compile/load  S skipped  ? unresolved  (blank: not run)";
}

Envelope draw_envelope(const std::vector<SweepDim>& dims, const Case& base, const std::vector<CaseResult>& results) {
  Envelope e;
  std::map<Case, const CaseResult*> by_shape;
  for (const auto& r : results) by_shape[r.shape] = &r;
  const auto cases = sweep_cases(dims, base, SIZE_MAX);
  e.shapes = cases.size();
  nlohmann::json failing = nlohmann::json::array();
  std::string failing_text;
  for (const auto& c : cases) {
    auto it = by_shape.find(c);
    if (it == by_shape.end()) continue;
    const CaseResult& r = *it->second;
    ++e.run;
    const char m = outcome_mark(r);
    if (m == '.') ++e.passed;
    else if (m == 'S') ++e.skipped;
    else if (m == '?') ++e.unresolved;
    else ++e.failed;
    if (m != '.' && m != 'S') {
      failing.push_back({{"shape", shape_text(c)}, {"mark", std::string(1, m)}, {"evidence", r.evidence}});
      if (failing.size() <= 50) failing_text += fmt::format("  {} {}: {}\n", m, shape_text(c), r.evidence);
    }
  }

  if ((dims.size() == 1 || dims.size() == 2) && dims.back().values.size() <= kMaxMapColumns) {
    // Columns: the last dim, labelled vertically (last digits); rows: the first, when there are two.
    const SweepDim& across = dims.back();
    const bool two = dims.size() == 2;
    const std::vector<std::int64_t> down = two ? dims[0].values : std::vector<std::int64_t>{0};
    auto row_label = [&](std::int64_t v0) { return two ? fmt::format("{}={}", dims[0].name, v0) : std::string(); };
    std::size_t digits = 1;
    for (auto v : across.values) digits = std::max(digits, std::to_string(v).size());
    std::size_t label_width = across.name.size();
    for (auto v0 : down) label_width = std::max(label_width, row_label(v0).size());
    for (std::size_t line = 0; line < digits; ++line) {
      std::string row = fmt::format("{:>{}} ", line + 1 == digits ? across.name : "", label_width);
      for (auto v : across.values) row += fmt::format("{:>{}}", v, digits)[line];
      e.text += row + "\n";
    }
    for (auto v0 : down) {
      std::string row = fmt::format("{:>{}} ", row_label(v0), label_width);
      for (auto v1 : across.values) {
        Case c = cases.front();
        if (two) c[dims[0].name] = v0;
        c[across.name] = v1;
        auto it = by_shape.find(c);
        row += it == by_shape.end() ? ' ' : outcome_mark(*it->second);
      }
      e.text += row + "\n";
    }
    e.text += mark_legend() + "\n";
  }
  if (!failing_text.empty()) {
    e.text += fmt::format("failing shapes ({}{}):\n{}", failing.size(), failing.size() > 50 ? ", first 50" : "",
                          failing_text);
  }
  e.text += fmt::format("{} of {} shapes passed every check; {} failed, {} skipped, {} unresolved, {} not run\n",
                        e.passed, e.shapes, e.failed, e.skipped, e.unresolved, e.shapes - e.run);
  nlohmann::json jd = nlohmann::json::array();
  for (const auto& d : dims) jd.push_back({{"name", d.name}, {"values", d.values}});
  e.json = {{"dims", jd},        {"shapes", e.shapes},   {"run", e.run},
            {"passed", e.passed}, {"failed", e.failed},   {"skipped", e.skipped},
            {"unresolved", e.unresolved}, {"failing", failing}};
  return e;
}

}  // namespace ladder
