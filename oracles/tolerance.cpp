#include "oracles/tolerance.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace ladder::oracles {
namespace {

std::string format_position(std::size_t index, std::size_t cols) {
  char buf[64];
  if (cols > 0) {
    std::snprintf(buf, sizeof buf, "[%zu,%zu]", index / cols, index % cols);
  } else {
    std::snprintf(buf, sizeof buf, "[%zu]", index);
  }
  return buf;
}

// Error and bound of one element, following the NaN/Inf rules in the header: a mismatch in
// kind (NaN, Inf, finite) is an infinite error that no bound covers.
struct ElementCheck {
  double error = 0;
  double bound = 0;
  bool ok = true;
};

ElementCheck check_element(double got, double ref, double magnitude, const Tolerance& tol) {
  ElementCheck c;
  c.bound = tol.atol + tol.rtol * magnitude;
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(ref) || std::isinf(ref)) {
    // Only the kind has to match here; the bound (possibly NaN from an Inf input) plays no part.
    c.ok = std::isnan(ref) ? std::isnan(got) : got == ref;
    c.error = c.ok ? 0.0 : inf;
    return c;
  }
  c.error = std::isfinite(got) ? std::fabs(got - ref) : inf;
  c.ok = c.error <= c.bound;
  return c;
}

Comparison compare_impl(std::span<const double> got, std::span<const double> ref,
                        std::span<const double> scale, const Tolerance& tol, std::size_t cols) {
  if (got.size() != ref.size() || (!scale.empty() && scale.size() != ref.size())) {
    throw std::invalid_argument("compare: got, ref and scale must have the same length");
  }
  Comparison c;
  c.cols = cols;
  c.count = got.size();
  bool have_worst = false;
  for (std::size_t k = 0; k < got.size(); ++k) {
    // fmax ignores a NaN scale (an input that held NaN), falling back to |ref|.
    const double magnitude = scale.empty() ? std::fabs(ref[k]) : std::fmax(std::fabs(ref[k]), scale[k]);
    const ElementCheck e = check_element(got[k], ref[k], magnitude, tol);
    if (!e.ok) ++c.failures;
    double ratio = 0;
    if (e.error > 0) {
      ratio = e.bound > 0 ? e.error / e.bound : std::numeric_limits<double>::infinity();
      if (std::isnan(ratio)) ratio = std::numeric_limits<double>::infinity();
    }
    if (!have_worst || ratio > c.worst_ratio) {
      have_worst = true;
      c.worst_ratio = ratio;
      c.worst_index = k;
      c.worst_error = e.error;
      c.worst_reference = ref[k];
      c.worst_got = got[k];
      c.worst_bound = e.bound;
    }
  }
  c.ok = c.failures == 0;
  return c;
}

}  // namespace

double Tolerance::bound(double reference) const { return atol + rtol * std::fabs(reference); }

double subnormal_quantum(Precision p) {
  switch (p) {
    case Precision::F64: return std::ldexp(1.0, -1074);
    case Precision::F32: return std::ldexp(1.0, -149);
    case Precision::F16: return std::ldexp(1.0, -24);
    case Precision::BF16: return std::ldexp(1.0, -133);
  }
  return 0;
}

// The policy (oracles/README.md): rtol = u_io + (L + K) * u_c, atol = q_io + K * q_c, with u the
// unit roundoff, q the subnormal quantum, L the reduction length, K = kFixedRoundings.
Tolerance tolerance_for(Precision io, std::size_t reduction_len, Precision compute) {
  const auto roundings = static_cast<double>(reduction_len + kFixedRoundings);
  Tolerance t;
  t.rtol = unit_roundoff(io) + roundings * unit_roundoff(compute);
  t.atol = subnormal_quantum(io) +
           static_cast<double>(kFixedRoundings) * subnormal_quantum(compute);
  return t;
}

Comparison compare(std::span<const double> got, std::span<const double> ref, const Tolerance& tol,
                   std::size_t cols) {
  return compare_impl(got, ref, {}, tol, cols);
}

Comparison compare(std::span<const double> got, std::span<const double> ref,
                   std::span<const double> scale, const Tolerance& tol, std::size_t cols) {
  return compare_impl(got, ref, scale, tol, cols);
}

std::string Comparison::summary() const {
  if (count == 0) return "no elements compared";
  char buf[256];
  std::snprintf(buf, sizeof buf, "worst |err| %.3g at %s (got %.9g, ref %.9g), bound %.3g",
                worst_error, format_position(worst_index, cols).c_str(), worst_got,
                worst_reference, worst_bound);
  std::string s = buf;
  if (failures > 0) s += ", " + std::to_string(failures) + " of " + std::to_string(count) + " over";
  return s;
}

}  // namespace ladder::oracles
