#include "harness/checks/evaluate.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "harness/checks/coverage.h"
#include "harness/core/element.h"
#include "harness/checks/oracle_registry.h"
#include "harness/device/generators.h"

namespace ladder {
std::vector<double> stored_reference(DType dtype, const std::vector<double>& ref) {
  std::vector<double> out(ref);
  if (!is_float(dtype)) return out;
  // Only values past the largest finite one can round to infinity, so the exact (and slow:
  // software) rounding runs on those alone. It took 0.9 s of a 16M-element f32 case otherwise.
  const double largest = oracles::largest_finite(precision_of(dtype));
  for (double& v : out)
    if (std::isfinite(v) && std::abs(v) > largest) {
      const double stored = round_to_dtype(dtype, v);
      if (std::isinf(stored)) v = stored;
    }
  return out;
}

namespace {

const ConcreteBuffer* find_spec(const KernelLaunch& k, const std::string& name) {
  for (const auto& b : k.buffers)
    if (b.name == name) return &b;
  return nullptr;
}

// The memory a named buffer lives in: its own, or its alias target's.
const Readback& memory_of(const KernelLaunch& k, const std::map<std::string, Readback>& rb, const std::string& name) {
  const ConcreteBuffer* b = find_spec(k, name);
  return rb.at(b && !b->alias_of.empty() ? b->alias_of : name);
}

std::optional<std::string> redzone_damage(const KernelLaunch& k, const std::map<std::string, Readback>& rb,
                                          std::byte sentinel) {
  for (const auto& b : k.buffers) {
    if (!b.alias_of.empty()) continue;
    const Readback& r = rb.at(b.name);
    for (bool front : {true, false}) {
      const auto d = check_redzone(front ? r.front : r.back, kRedzoneFill, front);
      if (d.bytes) return fmt::format("{}: {}", b.name, d.summary);
    }
    if (b.role == BufferRole::Output) {
      const auto gaps = check_gaps(b, r.storage, sentinel);
      if (gaps.bytes) return gaps.summary;
    }
  }
  return std::nullopt;
}

}  // namespace

CaseEvidence evaluate_case(const KernelLaunch& k, bool deterministic,
                           const std::map<std::string, std::vector<std::byte>>& host_inputs,
                           const std::map<std::string, Readback>& run_a,
                           const std::map<std::string, Readback>& run_b) {
  CaseEvidence ev;
  auto fail = [&](FailReason r, std::string why) {
    ev.failure = r;
    ev.evidence = std::move(why);
    return ev;
  };

  for (const auto* rb : {&run_a, &run_b})
    if (auto d = redzone_damage(k, *rb, rb == &run_a ? kSentinelA : kSentinelB)) return fail(FailReason::Redzone, *d);

  for (const auto& b : k.buffers)
    if (b.role == BufferRole::Input && b.alias_of.empty()) {
      const auto& before = host_inputs.at(b.name);
      for (const auto* rb : {&run_a, &run_b}) {
        const auto d = compare_input(b, before, rb->at(b.name).storage);
        if (d.bytes) return fail(FailReason::Clobbered, d.summary);
      }
    }

  std::string unwritten;
  std::size_t unwritten_total = 0;
  for (const auto& b : k.buffers)
    if (b.role == BufferRole::Output && b.alias_of.empty()) {
      const auto c = check_coverage(b, run_a.at(b.name).storage, run_b.at(b.name).storage);
      if (c.unwritten) {
        unwritten_total += c.unwritten;
        unwritten += fmt::format("{}{}: {} of {} unwritten ({})", unwritten.empty() ? "" : "; ", b.name,
                                 c.unwritten, c.elements, c.summary);
      }
    }
  if (unwritten_total) return fail(FailReason::Unwritten, unwritten);

  if (deterministic)
    for (const auto& b : k.buffers)
      if ((b.role == BufferRole::Output || b.role == BufferRole::InOut) && b.alias_of.empty()) {
        const auto d = compare_logical(b, run_a.at(b.name).storage, run_b.at(b.name).storage);
        if (d.bytes) return fail(FailReason::Nondeterministic, "two runs differ: " + d.summary);
      }

  if (k.oracle == "none") return ev;
  const OracleFn* oracle = find_oracle(k.oracle);
  if (!oracle) throw std::invalid_argument(fmt::format("unknown oracle '{}'", k.oracle));
  OracleInput in{k, {}};
  for (const auto& b : k.buffers)
    if (b.is_filled_input())
      in.initial.emplace(b.name, HostTensor{b, logical_values(b, host_inputs.at(b.name))});
  const auto expected = (*oracle)(in);
  std::string worst;
  for (const auto& [name, exp] : expected) {
    const ConcreteBuffer* spec = find_spec(k, name);
    if (!spec) throw std::invalid_argument(fmt::format("oracle '{}' produced '{}', which is not a buffer", k.oracle, name));
    const auto got = logical_values(*spec, memory_of(k, run_a, name).storage);
    if (got.size() != exp.values.size())
      throw std::logic_error(fmt::format("oracle '{}' gave {} values for {} ({} elements)", k.oracle,
                                         exp.values.size(), name, got.size()));
    const auto ref = stored_reference(spec->dtype, exp.values);
    const auto cmp = oracles::compare(got, ref, exp.tolerance, static_cast<std::size_t>(spec->cols));
    ev.numerics.push_back({name, cmp.summary(), cmp.worst_ratio, cmp.worst_error});
    if (!cmp.ok && worst.empty())
      worst = fmt::format("{}: {} of {} over bound; {}", name, cmp.failures, cmp.count, cmp.summary());
  }
  if (!worst.empty()) return fail(FailReason::Mismatch, worst);
  return ev;
}

}  // namespace ladder
