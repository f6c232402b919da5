// Host fp16/bf16 conversions: known bit patterns (IEEE 754 binary16 and bfloat16 facts),
// exhaustive round trips, and agreement with the compiler's own _Float16 where it has one.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "oracles/half.h"
#include "tests/catch.h"

using ladder::oracles::from_bf16_bits;
using ladder::oracles::from_f16_bits;
using ladder::oracles::Precision;
using ladder::oracles::round_to;
using ladder::oracles::to_bf16_bits;
using ladder::oracles::to_f16_bits;
using ladder::oracles::unit_roundoff;

namespace {

float bits_to_float(std::uint32_t b) { return std::bit_cast<float>(b); }

bool f16_is_nan(std::uint16_t b) { return (b & 0x7C00u) == 0x7C00u && (b & 0x03FFu) != 0; }
bool bf16_is_nan(std::uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x007Fu) != 0; }

}  // namespace

TEST_CASE("f16 encodes known values to their IEEE binary16 bit patterns", "[half]") {
  struct Known { float value; std::uint16_t bits; };
  const Known table[] = {
      {0.0f, 0x0000},           {-0.0f, 0x8000},          {1.0f, 0x3C00},
      {-2.0f, 0xC000},          {0.5f, 0x3800},           {65504.0f, 0x7BFF},  // largest finite
      {std::ldexp(1.0f, -14), 0x0400},                                       // smallest normal
      {std::ldexp(1.0f, -24), 0x0001},                                       // smallest subnormal
      {std::ldexp(1023.0f, -24), 0x03FF},                                    // largest subnormal
      {10000.0f, 0x70E2},       {40000.0f, 0x78E2},
      {std::numeric_limits<float>::infinity(), 0x7C00},
      {-std::numeric_limits<float>::infinity(), 0xFC00},
  };
  for (const auto& k : table) {
    INFO("value " << k.value);
    CHECK(to_f16_bits(k.value) == k.bits);
    CHECK(from_f16_bits(k.bits) == k.value);
  }
  // 0.1 is not an f16 value: it encodes to the nearest one, 0.0999755859375 = 1638 * 2^-14.
  CHECK(to_f16_bits(0.1f) == 0x2E66);
  CHECK(from_f16_bits(0x2E66) == std::ldexp(1638.0f, -14));
}

TEST_CASE("f16 rounds to nearest, ties to even, at every range", "[half]") {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even significand (1).
  CHECK(to_f16_bits(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
  // 1 + 3*2^-11 is halfway between 0x3C01 and 0x3C02: even is 0x3C02.
  CHECK(to_f16_bits(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
  // Just above the tie rounds up.
  CHECK(to_f16_bits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)) == 0x3C01);
  // The overflow boundary: 65519 rounds to 65504, 65520 (the tie above it) to Inf.
  CHECK(to_f16_bits(65519.0f) == 0x7BFF);
  CHECK(to_f16_bits(65520.0f) == 0x7C00);
  CHECK(to_f16_bits(-65520.0f) == 0xFC00);
  CHECK(to_f16_bits(40000.0f + 40000.0f) == 0x7C00);
  // Subnormal ties: 2^-25 is half the smallest subnormal (to 0), 3*2^-25 goes to 2*2^-24.
  CHECK(to_f16_bits(std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(to_f16_bits(std::ldexp(3.0f, -25)) == 0x0002);
  CHECK(to_f16_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  CHECK(to_f16_bits(-std::ldexp(1.0f, -30)) == 0x8000);  // underflow keeps the sign
}

TEST_CASE("f16 NaN stays a quiet NaN in both directions", "[half]") {
  CHECK(f16_is_nan(to_f16_bits(std::numeric_limits<float>::quiet_NaN())));
  // A signalling float NaN whose payload lives only in the low bits must not become Inf.
  const std::uint16_t from_snan = to_f16_bits(bits_to_float(0x7F800001u));
  CHECK(f16_is_nan(from_snan));
  CHECK((from_snan & 0x0200u) != 0);  // the quiet bit
  CHECK(std::isnan(from_f16_bits(0x7E00)));
  CHECK(std::isnan(from_f16_bits(0xFD01)));
}

TEST_CASE("bf16 encodes known values to their bfloat16 bit patterns", "[half]") {
  struct Known { float value; std::uint16_t bits; };
  const Known table[] = {
      {0.0f, 0x0000}, {-0.0f, 0x8000}, {1.0f, 0x3F80}, {-2.0f, 0xC000}, {256.0f, 0x4380},
      {bits_to_float(0x7F7F0000u), 0x7F7F},                  // largest finite
      {std::ldexp(1.0f, -126), 0x0080},                      // smallest normal
      {std::ldexp(1.0f, -133), 0x0001},                      // smallest subnormal
      {std::numeric_limits<float>::infinity(), 0x7F80},
  };
  for (const auto& k : table) {
    INFO("value " << k.value);
    CHECK(to_bf16_bits(k.value) == k.bits);
    CHECK(from_bf16_bits(k.bits) == k.value);
  }
}

TEST_CASE("bf16 rounds to nearest even, loses 256 + 1, and overflows to Inf", "[half]") {
  CHECK(to_bf16_bits(257.0f) == 0x4380);                    // 256 + 1 is a tie: back to 256
  CHECK(to_bf16_bits(259.0f) == 0x4382);                    // 259 ties to the even 260
  CHECK(to_bf16_bits(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);
  CHECK(to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82);
  CHECK(to_bf16_bits(std::numeric_limits<float>::max()) == 0x7F80);
  CHECK(to_bf16_bits(-std::numeric_limits<float>::max()) == 0xFF80);
  CHECK(to_bf16_bits(std::ldexp(1.0f, -149)) == 0x0000);    // float's smallest: below half
  CHECK(to_bf16_bits(std::ldexp(3.0f, -134)) == 0x0002);    // subnormal tie to even
}

TEST_CASE("bf16 NaN stays NaN even when its payload is only in the low half", "[half]") {
  const std::uint16_t b = to_bf16_bits(bits_to_float(0x7F800001u));
  CHECK(bf16_is_nan(b));
  CHECK(bf16_is_nan(to_bf16_bits(std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isnan(from_bf16_bits(0x7FC0)));
}

struct F16Format {
  static std::uint16_t encode(float v) { return to_f16_bits(v); }
  static float decode(std::uint16_t b) { return from_f16_bits(b); }
  static bool is_nan(std::uint16_t b) { return f16_is_nan(b); }
};
struct BF16Format {
  static std::uint16_t encode(float v) { return to_bf16_bits(v); }
  static float decode(std::uint16_t b) { return from_bf16_bits(b); }
  static bool is_nan(std::uint16_t b) { return bf16_is_nan(b); }
};

TEMPLATE_TEST_CASE("every 16-bit pattern survives decode then encode", "[half]", F16Format,
                   BF16Format) {
  std::size_t mismatches = 0;
  for (std::uint32_t b = 0; b <= 0xFFFFu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const std::uint16_t again = TestType::encode(TestType::decode(bits));
    // NaN payloads may gain the quiet bit; every other pattern must come back unchanged.
    const bool ok = TestType::is_nan(bits) ? TestType::is_nan(again) : again == bits;
    if (!ok && mismatches++ < 5) UNSCOPED_INFO("pattern " << b << " came back as " << again);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("bf16 rounding agrees with round-half-even on the float's bits", "[half]") {
  // An independent statement of bf16 rounding: add 0x7FFF plus the lowest kept bit, truncate.
  std::mt19937 gen(1234);
  std::uniform_int_distribution<std::uint32_t> any;
  for (int k = 0; k < 200000; ++k) {
    const std::uint32_t in = any(gen);
    const float v = bits_to_float(in);
    if (std::isnan(v)) continue;
    const std::uint32_t expected = (in + 0x7FFFu + ((in >> 16) & 1u)) >> 16;
    if (to_bf16_bits(v) != expected) FAIL("bf16 of bits " << in);
  }
}

#if defined(__FLT16_MAX__)
TEST_CASE("f16 rounding agrees with the compiler's _Float16 conversion", "[half]") {
  std::mt19937 gen(4321);
  std::uniform_int_distribution<std::uint32_t> any;
  for (int k = 0; k < 200000; ++k) {
    // Half of the draws from anywhere, half near f16's range where the rounding is interesting.
    std::uint32_t in = any(gen);
    if (k % 2) in = (in & 0x807FFFFFu) | ((100u + (in >> 23) % 50u) << 23);
    const float v = bits_to_float(in);
    if (std::isnan(v)) continue;
    const auto expected = std::bit_cast<std::uint16_t>(static_cast<_Float16>(v));
    if (to_f16_bits(v) != expected) FAIL("f16 of bits " << in);
  }
}
#endif

TEST_CASE("round_to rounds a double once, never through float", "[half]") {
  // 1 + 2^-11 + 2^-40 is just above an f16 tie. Through float the 2^-40 is lost, the tie
  // then goes to even (1.0); rounding the double directly must go up.
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(round_to(Precision::F16, v) == 1.0 + std::ldexp(1.0, -10));
  CHECK(from_f16_bits(to_f16_bits(static_cast<float>(v))) == 1.0f);  // the double rounding
  const double w = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  CHECK(round_to(Precision::BF16, w) == 1.0 + std::ldexp(1.0, -7));
}

TEST_CASE("round_to matches the bit conversions for every precision", "[half]") {
  const Precision p = GENERATE(Precision::F32, Precision::F16, Precision::BF16);
  std::mt19937 gen(99);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int k = 0; k < 20000; ++k) {
    // Values that are floats, spread over 40 binades, so both paths start from the same number.
    const auto f = static_cast<float>(normal(gen) * std::ldexp(1.0, (k % 40) - 20));
    double expected = f;
    if (p == Precision::F16) expected = from_f16_bits(to_f16_bits(f));
    if (p == Precision::BF16) expected = from_bf16_bits(to_bf16_bits(f));
    REQUIRE(round_to(p, static_cast<double>(f)) == expected);
  }
  CHECK(round_to(Precision::F64, 0.1) == 0.1);
  CHECK(std::isinf(round_to(Precision::F32, 1e39)));
  CHECK(round_to(Precision::F32, 0.1) == static_cast<double>(0.1f));
}

TEST_CASE("largest finite values, and that rounding past them overflows", "[half]") {
  CHECK(ladder::oracles::largest_finite(Precision::F32) == std::numeric_limits<float>::max());
  CHECK(ladder::oracles::largest_finite(Precision::F16) == 65504.0);
  CHECK(ladder::oracles::largest_finite(Precision::BF16) == 3.3895313892515355e38);
  CHECK(ladder::oracles::largest_finite(Precision::F64) == std::numeric_limits<double>::max());
  for (Precision p : {Precision::F32, Precision::F16, Precision::BF16}) {
    const double top = ladder::oracles::largest_finite(p);
    CHECK(round_to(p, top) == top);
    // Half a unit in the last place above it is a tie that rounds to even (up, since every
    // significand bit of the largest value is set): to infinity. Less than that rounds back.
    const double half_ulp = std::ldexp(unit_roundoff(p), std::ilogb(top));
    CHECK(std::isinf(round_to(p, top + half_ulp)));
    CHECK(round_to(p, top + half_ulp / 2) == top);
  }
}

TEST_CASE("unit roundoff is 2^-(significand bits)", "[half]") {
  CHECK(unit_roundoff(Precision::F64) == std::ldexp(1.0, -53));
  CHECK(unit_roundoff(Precision::F32) == std::ldexp(1.0, -24));
  CHECK(unit_roundoff(Precision::F16) == std::ldexp(1.0, -11));
  CHECK(unit_roundoff(Precision::BF16) == std::ldexp(1.0, -8));
  // The defining property: 1 + u is a tie that rounds back to 1; 1 + 2u is representable.
  for (Precision p : {Precision::F32, Precision::F16, Precision::BF16}) {
    CHECK(round_to(p, 1.0 + unit_roundoff(p)) == 1.0);
    CHECK(round_to(p, 1.0 + 2 * unit_roundoff(p)) == 1.0 + 2 * unit_roundoff(p));
  }
}
