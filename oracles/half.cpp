#include "oracles/half.h"

#include <bit>
#include <cmath>
#include <limits>

namespace ladder::oracles {
namespace {

// A binary floating-point format described by what rounding needs: significand bits
// (the implicit bit included) and the exponent range of its normal numbers.
struct Format {
  int precision;  // significand bits, implicit bit included
  int min_exp;    // exponent of the smallest normal number
  int max_exp;    // exponent of the largest finite binade
};

constexpr Format kF16{11, -14, 15};
constexpr Format kBF16{8, -126, 127};
constexpr Format kF32{24, -126, 127};

// Rounds a double to the nearest value of `f`, ties to even, straight from the double so no
// value is rounded twice. Works by scaling v so that the target's last significand bit lands at
// the units place; std::nearbyint then does the tie-to-even step (the default rounding mode).
double round_to_format(double v, const Format& f) {
  if (!std::isfinite(v) || v == 0.0) return v;  // NaN, Inf and signed zero pass through
  int exp2 = 0;
  std::frexp(v, &exp2);   // |v| = m * 2^exp2 with m in [0.5, 1)
  int e = exp2 - 1;       // exponent of v as a normal number
  if (e < f.min_exp) e = f.min_exp;  // below the normal range the spacing stops shrinking
  const int quantum_exp = e - (f.precision - 1);
  const double scaled = std::ldexp(v, -quantum_exp);  // exact: a power-of-two scaling
  const double rounded = std::ldexp(std::nearbyint(scaled), quantum_exp);
  // Rounding up out of the top binade (for f16, 65520 and above) means overflow to Inf.
  if (std::fabs(rounded) >= std::ldexp(1.0, f.max_exp + 1)) {
    return std::copysign(std::numeric_limits<double>::infinity(), v);
  }
  return rounded;
}

}  // namespace

std::uint16_t to_f16_bits(float v) {
  const std::uint32_t in = std::bit_cast<std::uint32_t>(v);
  const std::uint16_t sign = static_cast<std::uint16_t>((in >> 16) & 0x8000u);
  if (std::isnan(v)) {
    // Keep the top payload bits and force the quiet bit, so a NaN never turns into Inf.
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((in >> 13) & 0x01FFu));
  }
  const double r = round_to_format(static_cast<double>(v), kF16);
  if (std::isinf(r)) return static_cast<std::uint16_t>(sign | 0x7C00u);
  const double a = std::fabs(r);
  if (a == 0.0) return sign;
  if (a < std::ldexp(1.0, kF16.min_exp)) {
    // Subnormal: the significand counts multiples of 2^-24 and the exponent field is 0.
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(a, 24)));
  }
  int exp2 = 0;
  const double m = std::frexp(a, &exp2);  // a = m * 2^exp2, m in [0.5, 1)
  const auto biased = static_cast<std::uint16_t>(exp2 - 1 + 15);
  const auto fraction = static_cast<std::uint16_t>(std::ldexp(m, 11) - 1024.0);
  return static_cast<std::uint16_t>(sign | (biased << 10) | fraction);
}

float from_f16_bits(std::uint16_t bits) {
  const bool negative = (bits & 0x8000u) != 0;
  const unsigned biased = (bits >> 10) & 0x1Fu;
  const unsigned fraction = bits & 0x3FFu;
  float magnitude = 0;
  if (biased == 0x1F) {
    if (fraction != 0) {
      // Rebuild the NaN as a float NaN carrying the same payload, quiet bit included.
      const std::uint32_t out = (negative ? 0x80000000u : 0u) | 0x7F800000u | (fraction << 13);
      return std::bit_cast<float>(out | 0x00400000u);
    }
    magnitude = std::numeric_limits<float>::infinity();
  } else if (biased == 0) {
    magnitude = std::ldexp(static_cast<float>(fraction), -24);  // subnormal (or zero)
  } else {
    magnitude = std::ldexp(static_cast<float>(fraction | 0x400u), static_cast<int>(biased) - 25);
  }
  return negative ? -magnitude : magnitude;
}

std::uint16_t to_bf16_bits(float v) {
  const std::uint32_t in = std::bit_cast<std::uint32_t>(v);
  if (std::isnan(v)) {
    // Truncating a NaN could clear every payload bit left in bf16 and make it Inf; the quiet
    // bit keeps it a NaN.
    return static_cast<std::uint16_t>((in >> 16) | 0x0040u);
  }
  // bf16 is the top half of a float, so the rounded value converts back to float exactly and its
  // upper 16 bits are the answer (Inf from overflow included).
  const auto rounded = static_cast<float>(round_to_format(static_cast<double>(v), kBF16));
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(rounded) >> 16);
}

float from_bf16_bits(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

double round_to(Precision p, double v) {
  switch (p) {
    case Precision::F64: return v;
    // Not a plain cast: a double beyond float's range makes that cast undefined behaviour.
    case Precision::F32: return round_to_format(v, kF32);
    case Precision::F16: return round_to_format(v, kF16);
    case Precision::BF16: return round_to_format(v, kBF16);
  }
  return v;
}

double largest_finite(Precision p) {
  // All significand bits set in the top binade: (2 - 2^(1 - precision)) * 2^max_exp.
  auto largest = [](const Format& f) {
    return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.max_exp);
  };
  switch (p) {
    case Precision::F64: return std::numeric_limits<double>::max();
    case Precision::F32: return largest(kF32);
    case Precision::F16: return largest(kF16);
    case Precision::BF16: return largest(kBF16);
  }
  return std::numeric_limits<double>::max();
}

double unit_roundoff(Precision p) {
  switch (p) {
    case Precision::F64: return std::ldexp(1.0, -53);
    case Precision::F32: return std::ldexp(1.0, -24);
    case Precision::F16: return std::ldexp(1.0, -11);
    case Precision::BF16: return std::ldexp(1.0, -8);
  }
  return 0;
}

const char* label(Precision p) {
  switch (p) {
    case Precision::F64: return "f64";
    case Precision::F32: return "f32";
    case Precision::F16: return "f16";
    case Precision::BF16: return "bf16";
  }
  return "?";
}

}  // namespace ladder::oracles
