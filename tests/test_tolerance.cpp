// The tolerance policy: its formula, compare()'s NaN/Inf rules and reporting, and that the
// bounds let honest fp32-accumulating kernels through while catching the classic bugs.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "oracles/norms.h"
#include "oracles/tolerance.h"
#include "tests/catch.h"

// Catch2 v3 moved Approx into namespace Catch; v2 has it at global scope.
#if __has_include(<catch2/catch_all.hpp>)
using Catch::Approx;
#endif

using namespace ladder::oracles;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// An RMSNorm as a kernel computes it: inputs in io, one fp32 accumulator summed serially (the
// order with the largest error bound), output rounded to io. `eps_outside` and `io_square` plant
// the two classic bugs: eps added after the sqrt, and squares taken without upcasting.
std::vector<double> emulated_rmsnorm(const std::vector<double>& x, std::size_t rows,
                                     std::size_t d, double eps, Precision io,
                                     bool eps_outside = false, bool io_square = false) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < rows; ++i) {
    float acc = 0;
    for (std::size_t j = 0; j < d; ++j) {
      const auto v = static_cast<float>(x[i * d + j]);
      const float sq = io_square ? static_cast<float>(round_to(io, v * v)) : v * v;
      acc = io_square ? static_cast<float>(round_to(io, acc + sq)) : acc + sq;
    }
    const float ms = acc / static_cast<float>(d);
    const float rstd = eps_outside ? 1.0f / (std::sqrt(ms) + static_cast<float>(eps))
                                   : 1.0f / std::sqrt(ms + static_cast<float>(eps));
    for (std::size_t j = 0; j < d; ++j) {
      y[i * d + j] = round_to(io, static_cast<float>(x[i * d + j]) * rstd);
    }
  }
  return y;
}

std::vector<double> seeded_row(std::size_t n, unsigned seed, Precision io, double scale = 1.0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, scale);
  std::vector<double> v(n);
  for (double& x : v) x = round_to(io, normal(gen));
  return v;
}

Comparison check_rms(const std::vector<double>& got, const std::vector<double>& x,
                     std::size_t rows, std::size_t d, double eps, Precision io) {
  const auto ref = rmsnorm(x, {}, rows, d, eps, WeightMode::None);
  return compare(got, ref.y, tolerance_for(io, d), d);
}

}  // namespace

TEST_CASE("the bound is u_io + (L + K) u_c relative, over a subnormal-sized floor", "[tolerance]") {
  const Precision io = GENERATE(Precision::F32, Precision::F16, Precision::BF16);
  const std::size_t len = GENERATE(1, 512, 8192);
  const Tolerance t = tolerance_for(io, len);
  const double roundings = static_cast<double>(len + kFixedRoundings);
  CHECK(t.rtol == unit_roundoff(io) + roundings * unit_roundoff(Precision::F32));
  CHECK(t.atol == subnormal_quantum(io) + kFixedRoundings * subnormal_quantum(Precision::F32));
  CHECK(t.bound(-2.0) == t.atol + 2.0 * t.rtol);
  // Longer reductions and coarser io dtypes get looser bounds, never tighter.
  CHECK(tolerance_for(io, len + 1).rtol > t.rtol);
  CHECK(tolerance_for(Precision::BF16, len).rtol > tolerance_for(Precision::F16, len).rtol);
  CHECK(tolerance_for(Precision::F16, len).rtol > tolerance_for(Precision::F32, len).rtol);
  // A double-precision accumulator shrinks the reduction term.
  CHECK(tolerance_for(io, len, Precision::F64).rtol < t.rtol);
}

TEST_CASE("subnormal quanta are the smallest positive value of each precision", "[tolerance]") {
  for (Precision p : {Precision::F32, Precision::F16, Precision::BF16}) {
    const double q = subnormal_quantum(p);
    CHECK(round_to(p, q) == q);
    CHECK(round_to(p, q * 0.49) == 0.0);
  }
}

TEST_CASE("compare: NaN only matches NaN, Inf only the same Inf", "[tolerance]") {
  const Tolerance t = tolerance_for(Precision::F16, 8);
  CHECK(compare(std::vector<double>{kNaN}, std::vector<double>{kNaN}, t).ok);
  CHECK(compare(std::vector<double>{kInf}, std::vector<double>{kInf}, t).ok);
  CHECK_FALSE(compare(std::vector<double>{-kInf}, std::vector<double>{kInf}, t).ok);
  CHECK_FALSE(compare(std::vector<double>{1.0}, std::vector<double>{kNaN}, t).ok);
  CHECK_FALSE(compare(std::vector<double>{kNaN}, std::vector<double>{1.0}, t).ok);
  CHECK_FALSE(compare(std::vector<double>{kInf}, std::vector<double>{65504.0}, t).ok);
  // A NaN scale (from an Inf input) must not make a NaN reference fail or a finite one pass.
  CHECK(compare(std::vector<double>{kNaN}, std::vector<double>{kNaN}, std::vector<double>{kNaN}, t).ok);
  CHECK_FALSE(compare(std::vector<double>{2.0}, std::vector<double>{1.0}, std::vector<double>{kNaN}, t).ok);
}

TEST_CASE("compare reports the worst element, where it is and its bound", "[tolerance]") {
  const Tolerance t{0.0, 1e-3};
  const std::vector<double> ref{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  std::vector<double> got = ref;
  got[1] += 1e-3;   // ratio 0.5
  got[4] += 1e-2;   // ratio 2: the worst, and over
  got[5] += 6.6e-3; // ratio 1.1: over
  const Comparison c = compare(got, ref, t, 3);
  CHECK_FALSE(c.ok);
  CHECK(c.count == 6);
  CHECK(c.failures == 2);
  CHECK(c.worst_index == 4);
  CHECK(c.worst_ratio == Approx(2.0));
  CHECK(c.worst_bound == Approx(5e-3));
  CHECK(c.worst_got == got[4]);
  CHECK(c.worst_reference == 5.0);
  const std::string s = c.summary();
  CHECK(s.find("[1,1]") != std::string::npos);  // flat index 4 in rows of 3
  CHECK(s.find("2 of 6 over") != std::string::npos);
  CHECK(compare(std::vector<double>{}, std::vector<double>{}, t).summary() == "no elements compared");
  CHECK_THROWS(compare(std::vector<double>{1.0}, std::vector<double>{}, t));
}

TEST_CASE("compare with a scale holds an element to max(|ref|, scale)", "[tolerance]") {
  const Tolerance t{0.0, 1e-3};
  const std::vector<double> ref{0.0, 1.0}, got{5e-3, 1.0};
  CHECK_FALSE(compare(got, ref, t).ok);  // |ref| = 0 leaves no room
  CHECK(compare(got, ref, std::vector<double>{10.0, 1.0}, t).ok);
  CHECK_FALSE(compare(got, ref, std::vector<double>{1.0, 1.0}, t).ok);
}

TEST_CASE("an honest fp32-accumulating kernel stays inside the bound", "[tolerance]") {
  const Precision io = GENERATE(Precision::F32, Precision::F16, Precision::BF16);
  const std::size_t d = GENERATE(1, 3, 511, 2049, 8192);
  const double eps = GENERATE(1e-5, 0.1);
  const std::size_t rows = 2;
  auto x = seeded_row(rows * d, 5 + static_cast<unsigned>(d), io);
  for (std::size_t j = 0; j < d; ++j) x[j] = round_to(io, 1.1);  // a constant row: serial error adds up
  const Comparison c = check_rms(emulated_rmsnorm(x, rows, d, eps, io), x, rows, d, eps, io);
  INFO(label(io) << " d=" << d << " eps=" << eps << ": " << c.summary());
  CHECK(c.ok);
}

TEST_CASE("eps outside the sqrt is caught, given eps = 0.1", "[tolerance]") {
  const Precision io = GENERATE(Precision::F32, Precision::F16, Precision::BF16);
  const std::size_t d = 64, rows = 2;
  const auto x = seeded_row(rows * d, 17, io);
  const Comparison c = check_rms(emulated_rmsnorm(x, rows, d, 0.1, io, true), x, rows, d, 0.1, io);
  INFO(c.summary());
  CHECK_FALSE(c.ok);
}

TEST_CASE("squaring in fp16 without upcasting is caught at 1e4", "[tolerance]") {
  const std::size_t d = 8, rows = 1;
  std::vector<double> x(d);
  for (std::size_t j = 0; j < d; ++j) x[j] = (j % 2 ? -1e4 : 1e4);
  const Comparison honest = check_rms(emulated_rmsnorm(x, rows, d, 1e-5, Precision::F16), x,
                                      rows, d, 1e-5, Precision::F16);
  const Comparison bug = check_rms(emulated_rmsnorm(x, rows, d, 1e-5, Precision::F16, false, true),
                                   x, rows, d, 1e-5, Precision::F16);
  INFO(bug.summary());
  CHECK(honest.ok);
  CHECK_FALSE(bug.ok);
}
