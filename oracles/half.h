// Bit-exact host conversions between float and the 16-bit device types.
// Round to nearest even; NaN stays NaN (quiet), Inf stays Inf, subnormals are kept.
#pragma once
#include <cstdint>

namespace ladder::oracles {

enum class Precision { F64, F32, F16, BF16 };

std::uint16_t to_f16_bits(float v);
float from_f16_bits(std::uint16_t bits);
std::uint16_t to_bf16_bits(float v);
float from_bf16_bits(std::uint16_t bits);

// Rounds a double to the value the given precision represents (F64 returns v unchanged;
// F32 is one correctly-rounded step; F16/BF16 round from the double directly, never via float,
// so no double rounding).
double round_to(Precision p, double v);

// Unit roundoff u = 2^-(mantissa bits + 1): F64 2^-53, F32 2^-24, F16 2^-11, BF16 2^-8.
double unit_roundoff(Precision p);

// The largest finite value: F32 FLT_MAX, F16 65504, BF16 (2 - 2^-7) * 2^127, F64 DBL_MAX.
double largest_finite(Precision p);

const char* label(Precision p);  // "f64", "f32", "f16", "bf16"

}  // namespace ladder::oracles
