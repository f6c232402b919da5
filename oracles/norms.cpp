#include "oracles/norms.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ladder::oracles {
namespace {

// Neumaier's compensated sum: the oracle should be far more accurate than anything it judges,
// and a plain double sum of 8192 terms already spends 13 bits of that margin.
class AccurateSum {
 public:
  void add(double v) {
    const double t = sum_ + v;
    if (std::fabs(sum_) >= std::fabs(v)) {
      carry_ += (sum_ - t) + v;
    } else {
      carry_ += (v - t) + sum_;
    }
    sum_ = t;
  }
  // Inf/NaN terms poison the carry with NaN; the plain sum then already says what happened.
  double value() const { return std::isfinite(sum_) ? sum_ + carry_ : sum_; }

 private:
  double sum_ = 0;
  double carry_ = 0;
};

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

void check_matrix(std::span<const double> a, std::size_t rows, std::size_t d, const char* name) {
  require(d > 0, "hidden size d must be at least 1");
  require(a.size() == rows * d, std::string(name) + " must hold rows*d elements");
}

void check_weight(std::span<const double> w, std::size_t d, WeightMode mode) {
  if (mode == WeightMode::None) {
    require(w.empty(), "WeightMode::None takes no weight");
  } else {
    require(w.size() == d, "the weight must hold d elements");
  }
}

void check_affine(std::span<const double> gamma, std::span<const double> beta, std::size_t d) {
  require(gamma.empty() || gamma.size() == d, "gamma must be empty or hold d elements");
  require(beta.empty() || beta.size() == d, "beta must be empty or hold d elements");
}

// The factor y is multiplied by at column j. With `magnitude`, the size of the terms that form
// it instead: a Gemma kernel may compute x*rstd + x*rstd*w, whose rounding scales with 1 + |w|.
double weight_factor(std::span<const double> w, std::size_t j, WeightMode mode, bool magnitude) {
  switch (mode) {
    case WeightMode::None: return 1.0;
    case WeightMode::Plain: return magnitude ? std::fabs(w[j]) : w[j];
    case WeightMode::Gemma: return magnitude ? 1.0 + std::fabs(w[j]) : 1.0 + w[j];
  }
  return 1.0;
}

const double* row_of(std::span<const double> a, std::size_t row, std::size_t d) {
  return a.data() + row * d;
}

double rms_rstd(const double* x, std::size_t d, double eps) {
  AccurateSum squares;
  for (std::size_t j = 0; j < d; ++j) squares.add(x[j] * x[j]);
  return 1.0 / std::sqrt(squares.value() / static_cast<double>(d) + eps);
}

struct RowMoments {
  double mean = 0;
  double var = 0;           // biased (divides by d), as every LayerNorm uses
  double mean_square = 0;   // E[x^2]: what a one-pass variance subtracts from
  double mean_abs = 0;      // E[|x|]: what the mean's rounding error scales with
};

// Two passes in fp64: the mean first, then squared deviations from it.
RowMoments moments(const double* x, std::size_t d) {
  AccurateSum sum, abs_sum, square_sum;
  for (std::size_t j = 0; j < d; ++j) {
    sum.add(x[j]);
    abs_sum.add(std::fabs(x[j]));
    square_sum.add(x[j] * x[j]);
  }
  const auto n = static_cast<double>(d);
  RowMoments m;
  m.mean = sum.value() / n;
  AccurateSum deviations;
  for (std::size_t j = 0; j < d; ++j) deviations.add((x[j] - m.mean) * (x[j] - m.mean));
  m.var = deviations.value() / n;
  m.mean_square = square_sum.value() / n;
  m.mean_abs = abs_sum.value() / n;
  return m;
}

// A one-pass kernel computes var as E[x^2] - mean^2, whose error scales with E[x^2], not var;
// through 1/sqrt(var + eps) that becomes this magnitude for rstd.
double layernorm_rstd_scale(const RowMoments& m, double eps) {
  const double rstd = 1.0 / std::sqrt(m.var + eps);
  return rstd * (m.mean_square + eps) / (m.var + eps);
}

double affine_or(std::span<const double> v, std::size_t j, double absent) {
  return v.empty() ? absent : v[j];
}

// RMSNorm backward for one row, added into dx_row and dw. Shared by plain RMSNorm and the
// fused add, whose gradient is this one taken at h = x + r. With `magnitude` it returns the
// error scales instead (every term taken by absolute value).
void rms_backward_row(const double* x, std::span<const double> w, const double* dy,
                      std::size_t d, double eps, WeightMode mode, bool magnitude,
                      double* dx_row, std::vector<double>& dw) {
  const double rstd = rms_rstd(x, d, eps);
  AccurateSum projection;  // sum_j g_j x_j, with g = dy * weight factor
  for (std::size_t j = 0; j < d; ++j) {
    const double g = dy[j] * weight_factor(w, j, mode, magnitude);
    projection.add(magnitude ? std::fabs(g * x[j]) : g * x[j]);
  }
  const double mean_projection = projection.value() / static_cast<double>(d);
  for (std::size_t j = 0; j < d; ++j) {
    const double g = dy[j] * weight_factor(w, j, mode, magnitude);
    if (magnitude) {
      dx_row[j] += rstd * std::fabs(g) + std::fabs(x[j]) * rstd * rstd * rstd * mean_projection;
    } else {
      dx_row[j] += rstd * g - x[j] * rstd * rstd * rstd * mean_projection;
    }
    if (!dw.empty()) dw[j] += magnitude ? std::fabs(dy[j] * x[j]) * rstd : dy[j] * x[j] * rstd;
  }
}

RmsNormOut rmsnorm_impl(std::span<const double> x, std::span<const double> w, std::size_t rows,
                        std::size_t d, double eps, WeightMode mode, bool magnitude) {
  check_matrix(x, rows, d, "x");
  check_weight(w, d, mode);
  RmsNormOut out;
  out.y.resize(rows * d);
  out.rstd.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const double* xr = row_of(x, i, d);
    const double rstd = rms_rstd(xr, d, eps);
    out.rstd[i] = rstd;
    for (std::size_t j = 0; j < d; ++j) {
      const double f = weight_factor(w, j, mode, magnitude);
      out.y[i * d + j] = magnitude ? std::fabs(xr[j]) * rstd * f : xr[j] * rstd * f;
    }
  }
  return out;
}

// h = x + r in fp64 (exact for every pair of fp16/bf16 inputs); convention B then rounds it to
// the io precision, which is what its kernel stores and also what it normalizes.
std::vector<double> residual_sum(std::span<const double> x, std::span<const double> r,
                                 std::size_t rows, std::size_t d, AddConvention conv,
                                 Precision io) {
  check_matrix(x, rows, d, "x");
  check_matrix(r, rows, d, "r");
  std::vector<double> h(rows * d);
  for (std::size_t k = 0; k < h.size(); ++k) {
    h[k] = x[k] + r[k];
    if (conv == AddConvention::B) h[k] = round_to(io, h[k]);
  }
  return h;
}

LayerNormGrad layernorm_backward_impl(std::span<const double> x, std::span<const double> gamma,
                                      std::span<const double> dy, std::size_t rows, std::size_t d,
                                      double eps, bool magnitude) {
  check_matrix(x, rows, d, "x");
  check_matrix(dy, rows, d, "dy");
  require(gamma.empty() || gamma.size() == d, "gamma must be empty or hold d elements");
  LayerNormGrad out;
  out.dx.resize(rows * d);
  if (!gamma.empty()) {
    out.dgamma.assign(d, 0.0);
    out.dbeta.assign(d, 0.0);
  }
  const auto n = static_cast<double>(d);
  std::vector<double> xhat(d), g(d);
  for (std::size_t i = 0; i < rows; ++i) {
    const double* xr = row_of(x, i, d);
    const double* dyr = row_of(dy, i, d);
    const RowMoments m = moments(xr, d);
    const double rstd = 1.0 / std::sqrt(m.var + eps);
    const double rstd_used = magnitude ? layernorm_rstd_scale(m, eps) : rstd;
    AccurateSum g_sum, g_xhat_sum;
    for (std::size_t j = 0; j < d; ++j) {
      // The magnitude of xhat: both the rounding of x - mean and an rstd error feed into it.
      xhat[j] = magnitude ? (std::fabs(xr[j]) + std::fabs(m.mean)) * rstd_used
                          : (xr[j] - m.mean) * rstd;
      const double gam = affine_or(gamma, j, 1.0);
      g[j] = dyr[j] * (magnitude ? std::fabs(gam) : gam);
      if (magnitude) g[j] = std::fabs(g[j]);
      g_sum.add(g[j]);
      g_xhat_sum.add(g[j] * xhat[j]);
    }
    const double g_mean = g_sum.value() / n;
    const double g_xhat_mean = g_xhat_sum.value() / n;
    for (std::size_t j = 0; j < d; ++j) {
      out.dx[i * d + j] = magnitude ? rstd_used * (g[j] + g_mean + xhat[j] * g_xhat_mean)
                                    : rstd * (g[j] - g_mean - xhat[j] * g_xhat_mean);
      if (!gamma.empty()) {
        out.dgamma[j] += magnitude ? std::fabs(dyr[j]) * xhat[j] : dyr[j] * xhat[j];
        out.dbeta[j] += magnitude ? std::fabs(dyr[j]) : dyr[j];
      }
    }
  }
  return out;
}

RmsNormGrad rmsnorm_backward_impl(std::span<const double> x, std::span<const double> w,
                                  std::span<const double> dy, std::size_t rows, std::size_t d,
                                  double eps, WeightMode mode, bool magnitude) {
  check_matrix(x, rows, d, "x");
  check_matrix(dy, rows, d, "dy");
  check_weight(w, d, mode);
  RmsNormGrad out;
  out.dx.assign(rows * d, 0.0);
  if (mode != WeightMode::None) out.dw.assign(d, 0.0);  // d(1 + w)/dw = 1: Gemma's dw is plain
  for (std::size_t i = 0; i < rows; ++i) {
    rms_backward_row(row_of(x, i, d), w, row_of(dy, i, d), d, eps, mode, magnitude,
                     out.dx.data() + i * d, out.dw);
  }
  return out;
}

AddRmsNormGrad add_rmsnorm_backward_impl(std::span<const double> x, std::span<const double> r,
                                         std::span<const double> w, std::span<const double> dy,
                                         std::span<const double> dh, std::size_t rows,
                                         std::size_t d, double eps, WeightMode mode,
                                         bool magnitude) {
  // The gradient is taken at the exact sum; a convention-B caller passes its rounded h as x
  // and zeros as r.
  const std::vector<double> h = residual_sum(x, r, rows, d, AddConvention::A, Precision::F64);
  check_matrix(dy, rows, d, "dy");
  require(dh.empty() || dh.size() == rows * d, "dh must be empty or hold rows*d elements");
  RmsNormGrad through_norm = rmsnorm_backward_impl(h, w, dy, rows, d, eps, mode, magnitude);
  AddRmsNormGrad out;
  out.dx = std::move(through_norm.dx);
  out.dw = std::move(through_norm.dw);
  for (std::size_t k = 0; k < dh.size(); ++k) out.dx[k] += magnitude ? std::fabs(dh[k]) : dh[k];
  out.dr = out.dx;  // h = x + r: whatever reaches h reaches x and r alike
  return out;
}

}  // namespace

RmsNormOut rmsnorm(std::span<const double> x, std::span<const double> w, std::size_t rows,
                   std::size_t d, double eps, WeightMode mode) {
  return rmsnorm_impl(x, w, rows, d, eps, mode, false);
}

RmsNormOut rmsnorm_scales(std::span<const double> x, std::span<const double> w, std::size_t rows,
                          std::size_t d, double eps, WeightMode mode) {
  return rmsnorm_impl(x, w, rows, d, eps, mode, true);
}

AddRmsNormOut add_rmsnorm(std::span<const double> x, std::span<const double> r,
                          std::span<const double> w, std::size_t rows, std::size_t d, double eps,
                          WeightMode mode, AddConvention conv, Precision io) {
  AddRmsNormOut out;
  out.h = residual_sum(x, r, rows, d, conv, io);
  RmsNormOut normed = rmsnorm_impl(out.h, w, rows, d, eps, mode, false);
  out.y = std::move(normed.y);
  out.rstd = std::move(normed.rstd);
  return out;
}

AddRmsNormOut add_rmsnorm_scales(std::span<const double> x, std::span<const double> r,
                                 std::span<const double> w, std::size_t rows, std::size_t d,
                                 double eps, WeightMode mode, AddConvention conv, Precision io) {
  AddRmsNormOut out;
  out.h = residual_sum(x, r, rows, d, conv, io);
  RmsNormOut normed = rmsnorm_impl(out.h, w, rows, d, eps, mode, true);
  for (double& v : out.h) v = std::fabs(v);
  out.y = std::move(normed.y);
  out.rstd = std::move(normed.rstd);
  return out;
}

LayerNormOut layernorm(std::span<const double> x, std::span<const double> gamma,
                       std::span<const double> beta, std::size_t rows, std::size_t d,
                       double eps) {
  check_matrix(x, rows, d, "x");
  check_affine(gamma, beta, d);
  LayerNormOut out;
  out.y.resize(rows * d);
  out.mean.resize(rows);
  out.rstd.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const double* xr = row_of(x, i, d);
    const RowMoments m = moments(xr, d);
    const double rstd = 1.0 / std::sqrt(m.var + eps);
    out.mean[i] = m.mean;
    out.rstd[i] = rstd;
    for (std::size_t j = 0; j < d; ++j) {
      out.y[i * d + j] =
          (xr[j] - m.mean) * rstd * affine_or(gamma, j, 1.0) + affine_or(beta, j, 0.0);
    }
  }
  return out;
}

LayerNormOut layernorm_scales(std::span<const double> x, std::span<const double> gamma,
                              std::span<const double> beta, std::size_t rows, std::size_t d,
                              double eps) {
  check_matrix(x, rows, d, "x");
  check_affine(gamma, beta, d);
  LayerNormOut out;
  out.y.resize(rows * d);
  out.mean.resize(rows);
  out.rstd.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const double* xr = row_of(x, i, d);
    const RowMoments m = moments(xr, d);
    const double rstd = 1.0 / std::sqrt(m.var + eps);
    const double rstd_scale = layernorm_rstd_scale(m, eps);
    out.mean[i] = m.mean_abs;
    out.rstd[i] = rstd_scale;
    for (std::size_t j = 0; j < d; ++j) {
      // x - mean rounds at the size of its operands; an rstd error scales the true deviation.
      const double centred = (std::fabs(xr[j]) + std::fabs(m.mean)) * rstd +
                             std::fabs(xr[j] - m.mean) * rstd_scale;
      out.y[i * d + j] = centred * std::fabs(affine_or(gamma, j, 1.0)) +
                         std::fabs(affine_or(beta, j, 0.0));
    }
  }
  return out;
}

RmsNormGrad rmsnorm_backward(std::span<const double> x, std::span<const double> w,
                             std::span<const double> dy, std::size_t rows, std::size_t d,
                             double eps, WeightMode mode) {
  return rmsnorm_backward_impl(x, w, dy, rows, d, eps, mode, false);
}

RmsNormGrad rmsnorm_backward_scales(std::span<const double> x, std::span<const double> w,
                                    std::span<const double> dy, std::size_t rows, std::size_t d,
                                    double eps, WeightMode mode) {
  return rmsnorm_backward_impl(x, w, dy, rows, d, eps, mode, true);
}

LayerNormGrad layernorm_backward(std::span<const double> x, std::span<const double> gamma,
                                 std::span<const double> dy, std::size_t rows, std::size_t d,
                                 double eps) {
  return layernorm_backward_impl(x, gamma, dy, rows, d, eps, false);
}

LayerNormGrad layernorm_backward_scales(std::span<const double> x, std::span<const double> gamma,
                                        std::span<const double> dy, std::size_t rows,
                                        std::size_t d, double eps) {
  return layernorm_backward_impl(x, gamma, dy, rows, d, eps, true);
}

AddRmsNormGrad add_rmsnorm_backward(std::span<const double> x, std::span<const double> r,
                                    std::span<const double> w, std::span<const double> dy,
                                    std::span<const double> dh, std::size_t rows, std::size_t d,
                                    double eps, WeightMode mode) {
  return add_rmsnorm_backward_impl(x, r, w, dy, dh, rows, d, eps, mode, false);
}

AddRmsNormGrad add_rmsnorm_backward_scales(std::span<const double> x, std::span<const double> r,
                                           std::span<const double> w, std::span<const double> dy,
                                           std::span<const double> dh, std::size_t rows,
                                           std::size_t d, double eps, WeightMode mode) {
  return add_rmsnorm_backward_impl(x, r, w, dy, dh, rows, d, eps, mode, true);
}

const char* label(WeightMode mode) {
  switch (mode) {
    case WeightMode::None: return "none";
    case WeightMode::Plain: return "plain";
    case WeightMode::Gemma: return "gemma";
  }
  return "?";
}

const char* label(AddConvention conv) { return conv == AddConvention::A ? "A" : "B"; }

}  // namespace ladder::oracles
