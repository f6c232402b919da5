// fp64 reference implementations of the normalization ops. Pure host maths.
//
// Inputs are row-major [rows x d] arrays of doubles that already hold the values the device
// dtype represents (the caller rounds them through that dtype first). Weights have d elements,
// or none with WeightMode::None. Sizes that do not match throw std::invalid_argument. Outputs are exact fp64
// results before any output rounding, except where a convention rounds an intermediate
// (add + RMSNorm convention B rounds the sum to the io precision before squaring).
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "oracles/half.h"

namespace ladder::oracles {

enum class WeightMode { None, Plain, Gemma };     // y *= 1, y *= w, y *= (1 + w)
enum class AddConvention { A, B };                // see oracles/README.md

struct RmsNormOut { std::vector<double> y, rstd; };
struct AddRmsNormOut { std::vector<double> y, h, rstd; };
struct LayerNormOut { std::vector<double> y, mean, rstd; };
struct RmsNormGrad { std::vector<double> dx, dw; };
struct LayerNormGrad { std::vector<double> dx, dgamma, dbeta; };
struct AddRmsNormGrad { std::vector<double> dx, dr, dw; };  // dx == dr: one gradient reaches both

RmsNormOut rmsnorm(std::span<const double> x, std::span<const double> w, std::size_t rows,
                   std::size_t d, double eps, WeightMode mode);

// h = x + r. Convention A: h (fp64 sum) is normalized as is; h is returned unrounded and the
// caller compares the stored h after rounding to io. Convention B: h is rounded to `io` first,
// and that rounded h is squared and normalized.
AddRmsNormOut add_rmsnorm(std::span<const double> x, std::span<const double> r,
                          std::span<const double> w, std::size_t rows, std::size_t d, double eps,
                          WeightMode mode, AddConvention conv, Precision io);

// gamma/beta may be empty (no affine parameters).
LayerNormOut layernorm(std::span<const double> x, std::span<const double> gamma,
                       std::span<const double> beta, std::size_t rows, std::size_t d, double eps);

RmsNormGrad rmsnorm_backward(std::span<const double> x, std::span<const double> w,
                             std::span<const double> dy, std::size_t rows, std::size_t d,
                             double eps, WeightMode mode);

LayerNormGrad layernorm_backward(std::span<const double> x, std::span<const double> gamma,
                                 std::span<const double> dy, std::size_t rows, std::size_t d,
                                 double eps);

// Gradient of y = rmsnorm(x + r) with respect to x and r (identical), plus dw. The
// gradient of h itself (dh), when h is also consumed downstream, is added to dx/dr.
AddRmsNormGrad add_rmsnorm_backward(std::span<const double> x, std::span<const double> r,
                                    std::span<const double> w, std::span<const double> dy,
                                    std::span<const double> dh, std::size_t rows, std::size_t d,
                                    double eps, WeightMode mode);

// Error scales: for each output element, the magnitude its rounding error is proportional to
// (oracles/README.md, "Scales"). Same layout and sizes as the matching output. For a product
// (RMSNorm's y) the scale is |y|; where an output is a difference of larger terms (LayerNorm's
// x - mean, the backward's projections, a one-pass variance) it is the size of those terms, so a
// bound built on it does not blame a kernel for cancellation that no fp32 order can avoid.
RmsNormOut rmsnorm_scales(std::span<const double> x, std::span<const double> w, std::size_t rows,
                          std::size_t d, double eps, WeightMode mode);
AddRmsNormOut add_rmsnorm_scales(std::span<const double> x, std::span<const double> r,
                                 std::span<const double> w, std::size_t rows, std::size_t d,
                                 double eps, WeightMode mode, AddConvention conv, Precision io);
LayerNormOut layernorm_scales(std::span<const double> x, std::span<const double> gamma,
                              std::span<const double> beta, std::size_t rows, std::size_t d,
                              double eps);
RmsNormGrad rmsnorm_backward_scales(std::span<const double> x, std::span<const double> w,
                                    std::span<const double> dy, std::size_t rows, std::size_t d,
                                    double eps, WeightMode mode);
LayerNormGrad layernorm_backward_scales(std::span<const double> x, std::span<const double> gamma,
                                        std::span<const double> dy, std::size_t rows,
                                        std::size_t d, double eps);
AddRmsNormGrad add_rmsnorm_backward_scales(std::span<const double> x, std::span<const double> r,
                                           std::span<const double> w, std::span<const double> dy,
                                           std::span<const double> dh, std::size_t rows,
                                           std::size_t d, double eps, WeightMode mode);

const char* label(WeightMode mode);      // "none", "plain", "gemma"
const char* label(AddConvention conv);   // "A", "B"

}  // namespace ladder::oracles
