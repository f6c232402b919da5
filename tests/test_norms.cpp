// The fp64 oracles, checked through properties that hold whatever the implementation: what a
// normalized row must satisfy, invariances, the conventions' defining difference, and the
// backward passes against central finite differences of the forward passes.
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <vector>

#include "oracles/norms.h"
#include "tests/catch.h"

// Catch2 v3 moved Approx into namespace Catch; v2 has it at global scope.
#if __has_include(<catch2/catch_all.hpp>)
using Catch::Approx;
#endif

using namespace ladder::oracles;

namespace {

std::vector<double> seeded(std::size_t n, unsigned seed, double scale = 1.0, double offset = 0.0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = offset + scale * normal(gen);
  return v;
}

std::vector<double> rounded(std::vector<double> v, Precision p) {
  for (double& x : v) x = round_to(p, x);
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

// d/dv[k] of f by central differences, with a step scaled to the value.
double numeric_derivative(const std::function<double(const std::vector<double>&)>& f,
                          std::vector<double> v, std::size_t k) {
  const double step = 1e-6 * std::max(1.0, std::fabs(v[k]));
  const double saved = v[k];
  v[k] = saved + step;
  const double up = f(v);
  v[k] = saved - step;
  const double down = f(v);
  return (up - down) / (2 * step);
}

void check_gradient(const std::function<double(const std::vector<double>&)>& loss,
                    const std::vector<double>& at, const std::vector<double>& analytic) {
  REQUIRE(analytic.size() == at.size());
  for (std::size_t k = 0; k < at.size(); ++k) {
    const double numeric = numeric_derivative(loss, at, k);
    INFO("element " << k << ": analytic " << analytic[k] << ", numeric " << numeric);
    CHECK(std::fabs(analytic[k] - numeric) <= 1e-6 * (1.0 + std::fabs(numeric)));
  }
}

}  // namespace

TEST_CASE("RMSNorm rows have mean square ms / (ms + eps)", "[oracles]") {
  const std::size_t d = GENERATE(1, 3, 8, 511, 4096);
  const double eps = GENERATE(1e-5, 0.1);
  const std::size_t rows = 3;
  const auto x = seeded(rows * d, 7 + static_cast<unsigned>(d));
  const auto out = rmsnorm(x, {}, rows, d, eps, WeightMode::None);
  REQUIRE(out.y.size() == rows * d);
  REQUIRE(out.rstd.size() == rows);
  for (std::size_t i = 0; i < rows; ++i) {
    double ms = 0, ys = 0;
    for (std::size_t j = 0; j < d; ++j) {
      ms += x[i * d + j] * x[i * d + j] / static_cast<double>(d);
      ys += out.y[i * d + j] * out.y[i * d + j] / static_cast<double>(d);
    }
    CHECK(ys == Approx(ms / (ms + eps)).epsilon(1e-12));
    CHECK(out.rstd[i] == Approx(1.0 / std::sqrt(ms + eps)).epsilon(1e-14));
  }
}

TEST_CASE("RMSNorm is invariant under x -> c x with eps -> c^2 eps", "[oracles]") {
  const std::size_t d = 33, rows = 2;
  const auto x = seeded(rows * d, 11);
  const auto w = seeded(d, 12);
  auto scaled = x;
  for (double& v : scaled) v *= 1024.0;
  const auto a = rmsnorm(x, w, rows, d, 1e-5, WeightMode::Plain);
  const auto b = rmsnorm(scaled, w, rows, d, 1e-5 * 1024.0 * 1024.0, WeightMode::Plain);
  for (std::size_t k = 0; k < a.y.size(); ++k) CHECK(b.y[k] == Approx(a.y[k]).epsilon(1e-13));
}

TEST_CASE("Gemma's weight w acts as 1 + w", "[oracles]") {
  const std::size_t d = 16, rows = 4;
  const auto x = seeded(rows * d, 21);
  const auto w = seeded(d, 22, 0.05, -1.0);  // near -1: the effective weight is near 0
  std::vector<double> one_plus(w);
  for (double& v : one_plus) v += 1.0;
  const auto gemma = rmsnorm(x, w, rows, d, 1e-6, WeightMode::Gemma);
  const auto plain = rmsnorm(x, one_plus, rows, d, 1e-6, WeightMode::Plain);
  for (std::size_t k = 0; k < gemma.y.size(); ++k) CHECK(gemma.y[k] == Approx(plain.y[k]).margin(1e-15));
}

TEST_CASE("a zero row normalizes to zero with rstd 1/sqrt(eps)", "[oracles]") {
  const double eps = GENERATE(1e-5, 1e-6, std::ldexp(1.0, -23), 0.1);
  const std::vector<double> zero(8, 0.0);
  const auto rms = rmsnorm(zero, {}, 1, 8, eps, WeightMode::None);
  const auto ln = layernorm(zero, {}, {}, 1, 8, eps);
  for (double v : rms.y) CHECK(v == 0.0);
  for (double v : ln.y) CHECK(v == 0.0);
  CHECK(rms.rstd[0] == Approx(1.0 / std::sqrt(eps)));
  CHECK(ln.rstd[0] == Approx(1.0 / std::sqrt(eps)));
}

TEST_CASE("add + RMSNorm convention A normalizes the exact sum", "[oracles]") {
  const Precision io = GENERATE(Precision::F32, Precision::F16, Precision::BF16);
  const std::size_t d = 24, rows = 3;
  const auto x = rounded(seeded(rows * d, 31), io);
  const auto r = rounded(seeded(rows * d, 32), io);
  const auto w = rounded(seeded(d, 33), io);
  std::vector<double> h(x.size());
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = x[k] + r[k];
  const auto a = add_rmsnorm(x, r, w, rows, d, 1e-5, WeightMode::Plain, AddConvention::A, io);
  const auto plain = rmsnorm(h, w, rows, d, 1e-5, WeightMode::Plain);
  CHECK(a.h == h);
  CHECK(a.y == plain.y);
  CHECK(a.rstd == plain.rstd);
}

TEST_CASE("add + RMSNorm convention B normalizes the sum rounded to io", "[oracles]") {
  const Precision io = GENERATE(Precision::F16, Precision::BF16);
  const std::size_t d = 24, rows = 3;
  const auto x = rounded(seeded(rows * d, 41, 50.0), io);
  const auto r = rounded(seeded(rows * d, 42), io);
  std::vector<double> h(x.size());
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = round_to(io, x[k] + r[k]);
  const auto b = add_rmsnorm(x, r, {}, rows, d, 1e-5, WeightMode::None, AddConvention::B, io);
  const auto plain = rmsnorm(h, {}, rows, d, 1e-5, WeightMode::None);
  CHECK(b.h == h);
  CHECK(b.y == plain.y);
}

TEST_CASE("bf16 256 + 1: B loses the 1 that A keeps", "[oracles]") {
  const std::vector<double> x{256.0, 1.0}, r{1.0, 0.0};
  const auto a = add_rmsnorm(x, r, {}, 1, 2, 1e-6, WeightMode::None, AddConvention::A, Precision::BF16);
  const auto b = add_rmsnorm(x, r, {}, 1, 2, 1e-6, WeightMode::None, AddConvention::B, Precision::BF16);
  CHECK(a.h[0] == 257.0);
  CHECK(b.h[0] == 256.0);
  CHECK(a.y[1] != b.y[1]);
  CHECK(b.y[1] > a.y[1]);  // B's smaller sum of squares makes the small element larger
}

TEST_CASE("fp16 40000 + 40000: B overflows to Inf and NaN, A stays finite", "[oracles]") {
  const std::vector<double> x{40000.0, 1.0, -2.0}, r{40000.0, 0.5, 0.0};
  const auto a = add_rmsnorm(x, r, {}, 1, 3, 1e-5, WeightMode::None, AddConvention::A, Precision::F16);
  const auto b = add_rmsnorm(x, r, {}, 1, 3, 1e-5, WeightMode::None, AddConvention::B, Precision::F16);
  for (double v : a.y) CHECK(std::isfinite(v));
  CHECK(std::isinf(round_to(Precision::F16, a.h[0])));  // A's stored h overflows too
  CHECK(std::isinf(b.h[0]));
  CHECK(std::isnan(b.y[0]));  // Inf * (1 / sqrt(Inf)) = Inf * 0
  CHECK(b.y[1] == 0.0);
}

TEST_CASE("LayerNorm rows have mean 0 and variance var / (var + eps)", "[oracles]") {
  const std::size_t d = GENERATE(2, 8, 513);
  const std::size_t rows = 2;
  const auto x = seeded(rows * d, 51, 3.0, 10.0);
  const double eps = 1e-5;
  const auto out = layernorm(x, {}, {}, rows, d, eps);
  for (std::size_t i = 0; i < rows; ++i) {
    double mean = 0, ymean = 0;
    for (std::size_t j = 0; j < d; ++j) {
      mean += x[i * d + j] / static_cast<double>(d);
      ymean += out.y[i * d + j] / static_cast<double>(d);
    }
    double var = 0, yvar = 0;
    for (std::size_t j = 0; j < d; ++j) {
      var += (x[i * d + j] - mean) * (x[i * d + j] - mean) / static_cast<double>(d);
      yvar += out.y[i * d + j] * out.y[i * d + j] / static_cast<double>(d);
    }
    CHECK(out.mean[i] == Approx(mean).epsilon(1e-14));
    CHECK(ymean == Approx(0.0).margin(1e-12));
    CHECK(yvar == Approx(var / (var + eps)).epsilon(1e-12));
  }
}

TEST_CASE("LayerNorm's affine parameters apply as gamma * xhat + beta", "[oracles]") {
  const std::size_t d = 12, rows = 2;
  const auto x = seeded(rows * d, 61);
  const auto gamma = seeded(d, 62), beta = seeded(d, 63);
  const auto bare = layernorm(x, {}, {}, rows, d, 1e-6);
  const auto affine = layernorm(x, gamma, beta, rows, d, 1e-6);
  for (std::size_t k = 0; k < x.size(); ++k) {
    CHECK(affine.y[k] == Approx(bare.y[k] * gamma[k % d] + beta[k % d]).margin(1e-14));
  }
}

TEST_CASE("RMSNorm backward matches finite differences", "[oracles][backward]") {
  const WeightMode mode = GENERATE(WeightMode::None, WeightMode::Plain, WeightMode::Gemma);
  const std::size_t d = GENERATE(1, 3, 8);
  const std::size_t rows = 2;
  const double eps = 0.1;  // large, so eps's own derivative path is exercised
  const auto x = seeded(rows * d, 71);
  const auto w = mode == WeightMode::None ? std::vector<double>{} : seeded(d, 72);
  const auto dy = seeded(rows * d, 73);
  const auto grad = rmsnorm_backward(x, w, dy, rows, d, eps, mode);
  INFO("weight " << label(mode) << ", d " << d);
  check_gradient([&](const std::vector<double>& v) { return dot(dy, rmsnorm(v, w, rows, d, eps, mode).y); },
                 x, grad.dx);
  if (mode != WeightMode::None) {
    check_gradient([&](const std::vector<double>& v) { return dot(dy, rmsnorm(x, v, rows, d, eps, mode).y); },
                   w, grad.dw);
  } else {
    CHECK(grad.dw.empty());
  }
}

TEST_CASE("LayerNorm backward matches finite differences", "[oracles][backward]") {
  const bool affine = GENERATE(false, true);
  const std::size_t d = GENERATE(2, 5, 8);
  const std::size_t rows = 3;
  const double eps = 1e-3;
  const auto x = seeded(rows * d, 81, 1.0, 0.5);
  const auto gamma = affine ? seeded(d, 82) : std::vector<double>{};
  const auto beta = affine ? seeded(d, 83) : std::vector<double>{};
  const auto dy = seeded(rows * d, 84);
  const auto grad = layernorm_backward(x, gamma, dy, rows, d, eps);
  check_gradient([&](const std::vector<double>& v) { return dot(dy, layernorm(v, gamma, beta, rows, d, eps).y); },
                 x, grad.dx);
  if (affine) {
    check_gradient([&](const std::vector<double>& v) { return dot(dy, layernorm(x, v, beta, rows, d, eps).y); },
                   gamma, grad.dgamma);
    check_gradient([&](const std::vector<double>& v) { return dot(dy, layernorm(x, gamma, v, rows, d, eps).y); },
                   beta, grad.dbeta);
  } else {
    CHECK(grad.dgamma.empty());
    CHECK(grad.dbeta.empty());
  }
}

TEST_CASE("add + RMSNorm backward sends one gradient to x and the residual", "[oracles][backward]") {
  const WeightMode mode = GENERATE(WeightMode::None, WeightMode::Plain, WeightMode::Gemma);
  const std::size_t d = 6, rows = 2;
  const double eps = 1e-2;
  const auto x = seeded(rows * d, 91), r = seeded(rows * d, 92);
  const auto w = mode == WeightMode::None ? std::vector<double>{} : seeded(d, 93);
  const auto dy = seeded(rows * d, 94), dh = seeded(rows * d, 95);
  const auto grad = add_rmsnorm_backward(x, r, w, dy, dh, rows, d, eps, mode);
  CHECK(grad.dx == grad.dr);
  // The loss sees y and h; h is consumed downstream too, so dh joins the gradient.
  auto loss_x = [&](const std::vector<double>& v) {
    const auto out = add_rmsnorm(v, r, w, rows, d, eps, mode, AddConvention::A, Precision::F64);
    return dot(dy, out.y) + dot(dh, out.h);
  };
  auto loss_r = [&](const std::vector<double>& v) {
    const auto out = add_rmsnorm(x, v, w, rows, d, eps, mode, AddConvention::A, Precision::F64);
    return dot(dy, out.y) + dot(dh, out.h);
  };
  check_gradient(loss_x, x, grad.dx);
  check_gradient(loss_r, r, grad.dr);
  const auto no_dh = add_rmsnorm_backward(x, r, w, dy, {}, rows, d, eps, mode);
  for (std::size_t k = 0; k < dh.size(); ++k) CHECK(grad.dx[k] - no_dh.dx[k] == Approx(dh[k]));
}

TEST_CASE("error scales bound the magnitude of every output", "[oracles]") {
  const std::size_t d = 16, rows = 3;
  const auto x = seeded(rows * d, 101, 2.0, 1.0), r = seeded(rows * d, 102);
  const auto w = seeded(d, 103), dy = seeded(rows * d, 104), dh = seeded(rows * d, 105);
  auto covers = [](const std::vector<double>& scale, const std::vector<double>& value) {
    REQUIRE(scale.size() == value.size());
    for (std::size_t k = 0; k < value.size(); ++k) CHECK(scale[k] >= std::fabs(value[k]) * (1 - 1e-12));
  };
  covers(rmsnorm_scales(x, w, rows, d, 1e-5, WeightMode::Gemma).y,
         rmsnorm(x, w, rows, d, 1e-5, WeightMode::Gemma).y);
  const auto add_sc = add_rmsnorm_scales(x, r, w, rows, d, 1e-5, WeightMode::Plain, AddConvention::B, Precision::F16);
  const auto add = add_rmsnorm(x, r, w, rows, d, 1e-5, WeightMode::Plain, AddConvention::B, Precision::F16);
  covers(add_sc.y, add.y);
  covers(add_sc.h, add.h);
  const auto beta = seeded(d, 106);
  const auto ln = layernorm(x, w, beta, rows, d, 1e-5);
  const auto ln_sc = layernorm_scales(x, w, beta, rows, d, 1e-5);
  covers(ln_sc.y, ln.y);
  covers(ln_sc.rstd, ln.rstd);
  covers(ln_sc.mean, ln.mean);
  const auto g = rmsnorm_backward(x, w, dy, rows, d, 1e-5, WeightMode::Plain);
  const auto gs = rmsnorm_backward_scales(x, w, dy, rows, d, 1e-5, WeightMode::Plain);
  covers(gs.dx, g.dx);
  covers(gs.dw, g.dw);
  const auto lg = layernorm_backward(x, w, dy, rows, d, 1e-5);
  const auto lgs = layernorm_backward_scales(x, w, dy, rows, d, 1e-5);
  covers(lgs.dx, lg.dx);
  covers(lgs.dgamma, lg.dgamma);
  covers(lgs.dbeta, lg.dbeta);
  const auto ag = add_rmsnorm_backward(x, r, w, dy, dh, rows, d, 1e-5, WeightMode::Gemma);
  const auto ags = add_rmsnorm_backward_scales(x, r, w, dy, dh, rows, d, 1e-5, WeightMode::Gemma);
  covers(ags.dx, ag.dx);
  covers(ags.dw, ag.dw);
}

TEST_CASE("oracles reject arrays of the wrong size", "[oracles]") {
  const std::vector<double> x(8, 1.0), w(3, 1.0);
  CHECK_THROWS_AS(rmsnorm(x, {}, 3, 4, 1e-5, WeightMode::None), std::invalid_argument);
  CHECK_THROWS_AS(rmsnorm(x, w, 2, 4, 1e-5, WeightMode::Plain), std::invalid_argument);
  CHECK_THROWS_AS(rmsnorm(x, w, 2, 4, 1e-5, WeightMode::None), std::invalid_argument);
  CHECK_THROWS_AS(layernorm(x, w, {}, 2, 4, 1e-5), std::invalid_argument);
  CHECK_THROWS_AS(rmsnorm(x, {}, 8, 0, 1e-5, WeightMode::None), std::invalid_argument);
  CHECK(rmsnorm({}, {}, 0, 4, 1e-5, WeightMode::None).y.empty());  // zero rows is fine
}
