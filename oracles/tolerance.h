// The tolerance policy: bounds derived from the dtype's unit roundoff and the reduction length.
// oracles/README.md states the policy; everything that compares numbers uses these functions.
#pragma once
#include <cstddef>
#include <span>
#include <string>

#include "oracles/half.h"

namespace ladder::oracles {

struct Tolerance {
  double atol = 0;  // absolute floor
  double rtol = 0;  // relative to |reference|
  double bound(double reference) const;  // atol + rtol * |reference|
};

// io: the precision outputs are stored in; reduction_len: the longest sum each output depends on.
// Accumulation is assumed fp32 (compute F32) unless the caller says otherwise.
Tolerance tolerance_for(Precision io, std::size_t reduction_len, Precision compute = Precision::F32);

struct Comparison {
  bool ok = true;
  std::size_t count = 0;          // elements compared
  std::size_t failures = 0;       // elements over their bound
  std::size_t worst_index = 0;    // flat index of the largest error / bound ratio
  double worst_error = 0;         // |got - ref| there
  double worst_reference = 0;     // ref there
  double worst_got = 0;           // got there
  double worst_bound = 0;         // the bound it was held to
  double worst_ratio = 0;         // error / bound (<= 1 passes)
  std::size_t cols = 0;           // row length for [row,col] positions; 0 prints a flat index
  std::string summary() const;    // "worst |err| 3.1e-07 at [2,17] (got .., ref ..), bound 1.2e-06"
};

// NaN in got passes only where ref is NaN at the same place; Inf must match sign exactly.
// `cols` (>0) makes the summary print [row,col] instead of a flat index.
Comparison compare(std::span<const double> got, std::span<const double> ref, const Tolerance& tol,
                   std::size_t cols = 0);

// The same with an error scale per element (oracles/norms.h, "*_scales"): element k is held to
// atol + rtol * max(|ref[k]|, scale[k]). Used where an output is a difference of larger terms.
Comparison compare(std::span<const double> got, std::span<const double> ref,
                   std::span<const double> scale, const Tolerance& tol, std::size_t cols = 0);

// Roundings outside the reduction that every bound allows for: the square, the division by d,
// adding eps, the square root, the reciprocal (rsqrt may be 2 ulp), the scale by rstd, the weight,
// the bias. See oracles/README.md.
inline constexpr std::size_t kFixedRoundings = 8;

// The smallest positive subnormal of p: the absolute floor a rounding can leave behind.
double subnormal_quantum(Precision p);

}  // namespace ladder::oracles
