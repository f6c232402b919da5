// Oracles for the production kernels (harness/kernels/catalog): each reads the initial host
// tensors, calls the fp64 reference in oracles/norms.h and returns, per output buffer, the exact
// values and the tolerance for the dtype that output is stored in. Buffer names and the scalars
// (eps, weight_mode, convention) are the ones the catalog's planners declare.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/checks/oracle_registry.h"
#include "harness/core/element.h"
#include "oracles/norms.h"
#include "oracles/tolerance.h"

namespace ladder {
namespace {

using Outputs = std::map<std::string, Expected>;
const std::vector<double> kNone;

const ConcreteBuffer& buffer_spec(const OracleInput& in, const std::string& name) {
  for (const auto& b : in.launch.buffers)
    if (b.name == name) return b;
  throw std::out_of_range("oracle '" + in.launch.oracle + "' needs a buffer named '" + name + "'");
}

bool has_buffer(const OracleInput& in, const std::string& name) {
  for (const auto& b : in.launch.buffers)
    if (b.name == name) return true;
  return false;
}

const std::vector<double>& optional_input(const OracleInput& in, const std::string& name) {
  return in.initial.count(name) ? in.at(name).values : kNone;
}

oracles::WeightMode weight_mode(const OracleInput& in) {
  const double code = in.scalar("weight_mode");
  if (code == 0) return oracles::WeightMode::None;
  if (code == 1) return oracles::WeightMode::Plain;
  if (code == 2) return oracles::WeightMode::Gemma;
  throw std::invalid_argument("oracle '" + in.launch.oracle + "': weight_mode must be 0, 1 or 2");
}

// Expected values with an error scale per element (oracles/norms.h "*_scales"). When Expected
// carries a scale of its own, the comparison uses it element by element; otherwise the largest
// excess of scale over |ref| widens the absolute floor, which is looser but never wrong.
// A template so that the branch for the Expected this build lacks is never instantiated.
template <typename E>
E with_scale(std::vector<double> values, const std::vector<double>& scale,
             oracles::Tolerance tol) {
  E e{std::move(values), tol};
  if constexpr (requires { e.scale; }) {
    e.scale = scale;
  } else {
    double excess = 0;
    for (std::size_t k = 0; k < scale.size() && k < e.values.size(); ++k)
      if (std::isfinite(scale[k]) && std::isfinite(e.values[k]))
        excess = std::max(excess, scale[k] - std::fabs(e.values[k]));
    e.tolerance.atol += e.tolerance.rtol * excess;
  }
  return e;
}

// Adds an output if the launch declares it; `reduction` is the longest sum it depends on.
void add_output(Outputs& out, const OracleInput& in, const std::string& name,
                std::vector<double> values, const std::vector<double>& scale,
                std::size_t reduction) {
  if (!has_buffer(in, name)) return;
  const auto tol = oracles::tolerance_for(precision_of(buffer_spec(in, name).dtype), reduction);
  out[name] = with_scale<Expected>(std::move(values), scale, tol);
}

// In-place calls: the overwritten input (an in-out buffer) must end up holding what its alias
// was meant to receive.
void mirror_aliases(Outputs& out, const OracleInput& in) {
  for (const auto& b : in.launch.buffers)
    if (!b.alias_of.empty() && out.count(b.name)) out[b.alias_of] = out[b.name];
}

struct Dims {
  std::size_t rows, d;
};
Dims dims_of(const HostTensor& x) {
  return {static_cast<std::size_t>(x.spec.rows), static_cast<std::size_t>(x.spec.cols)};
}

Outputs rmsnorm(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto [rows, d] = dims_of(x);
  const auto& w = optional_input(in, "w");
  const double eps = in.scalar("eps");
  const auto mode = weight_mode(in);
  auto ref = oracles::rmsnorm(x.values, w, rows, d, eps, mode);
  const auto scale = oracles::rmsnorm_scales(x.values, w, rows, d, eps, mode);
  Outputs out;
  add_output(out, in, "y", std::move(ref.y), scale.y, d);
  add_output(out, in, "rstd", std::move(ref.rstd), scale.rstd, d);
  mirror_aliases(out, in);
  return out;
}

Outputs add_rmsnorm(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto& r = in.at("r");
  const auto [rows, d] = dims_of(x);
  const auto& w = optional_input(in, "w");
  const double eps = in.scalar("eps");
  const auto mode = weight_mode(in);
  const auto conv = in.scalar("convention") == 1 ? oracles::AddConvention::B
                                                 : oracles::AddConvention::A;
  const auto io = precision_of(x.spec.dtype);
  auto ref = oracles::add_rmsnorm(x.values, r.values, w, rows, d, eps, mode, conv, io);
  const auto scale = oracles::add_rmsnorm_scales(x.values, r.values, w, rows, d, eps, mode, conv, io);
  Outputs out;
  add_output(out, in, "h", std::move(ref.h), scale.h, 1);
  add_output(out, in, "y", std::move(ref.y), scale.y, d);
  add_output(out, in, "rstd", std::move(ref.rstd), scale.rstd, d);
  mirror_aliases(out, in);
  return out;
}

Outputs layernorm(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto [rows, d] = dims_of(x);
  const auto& gamma = optional_input(in, "gamma");
  const auto& beta = optional_input(in, "beta");
  const double eps = in.scalar("eps");
  auto ref = oracles::layernorm(x.values, gamma, beta, rows, d, eps);
  const auto scale = oracles::layernorm_scales(x.values, gamma, beta, rows, d, eps);
  Outputs out;
  // Two sums of length d (mean, then squared deviations) feed every output.
  add_output(out, in, "y", std::move(ref.y), scale.y, 2 * d);
  add_output(out, in, "mean", std::move(ref.mean), scale.mean, d);
  add_output(out, in, "rstd", std::move(ref.rstd), scale.rstd, 2 * d);
  mirror_aliases(out, in);
  return out;
}

Outputs rmsnorm_bwd(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto [rows, d] = dims_of(x);
  const auto& w = optional_input(in, "w");
  const auto& dy = in.at("dy").values;
  const double eps = in.scalar("eps");
  const auto mode = weight_mode(in);
  auto ref = oracles::rmsnorm_backward(x.values, w, dy, rows, d, eps, mode);
  const auto scale = oracles::rmsnorm_backward_scales(x.values, w, dy, rows, d, eps, mode);
  Outputs out;
  add_output(out, in, "dx", std::move(ref.dx), scale.dx, 2 * d);
  // dw sums over rows terms that each carry a length-d reduction (rstd).
  add_output(out, in, "dw", std::move(ref.dw), scale.dw, rows + d);
  return out;
}

Outputs add_rmsnorm_bwd(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto& r = in.at("r");
  const auto [rows, d] = dims_of(x);
  const auto& w = optional_input(in, "w");
  const auto& dy = in.at("dy").values;
  const auto& dh = optional_input(in, "dh");
  const double eps = in.scalar("eps");
  const auto mode = weight_mode(in);
  auto ref = oracles::add_rmsnorm_backward(x.values, r.values, w, dy, dh, rows, d, eps, mode);
  const auto scale =
      oracles::add_rmsnorm_backward_scales(x.values, r.values, w, dy, dh, rows, d, eps, mode);
  Outputs out;
  add_output(out, in, "dx", std::move(ref.dx), scale.dx, 2 * d + 1);
  add_output(out, in, "dr", std::move(ref.dr), scale.dr, 2 * d + 1);
  add_output(out, in, "dw", std::move(ref.dw), scale.dw, rows + d + 1);
  return out;
}

Outputs layernorm_bwd(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto [rows, d] = dims_of(x);
  const auto& gamma = optional_input(in, "gamma");
  const auto& dy = in.at("dy").values;
  const double eps = in.scalar("eps");
  auto ref = oracles::layernorm_backward(x.values, gamma, dy, rows, d, eps);
  const auto scale = oracles::layernorm_backward_scales(x.values, gamma, dy, rows, d, eps);
  Outputs out;
  add_output(out, in, "dx", std::move(ref.dx), scale.dx, 4 * d);
  add_output(out, in, "dgamma", std::move(ref.dgamma), scale.dgamma, rows + 2 * d);
  add_output(out, in, "dbeta", std::move(ref.dbeta), scale.dbeta, rows);
  return out;
}

// The backward kernels' final reduce as an op of its own: out[c] = sum over rows of partial[r, c].
Outputs column_sum(const OracleInput& in) {
  const auto& p = in.at("partial");
  const auto [rows, d] = dims_of(p);
  std::vector<double> sum(d, 0.0), scale(d, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < d; ++c) {
      sum[c] += p.values[r * d + c];
      scale[c] += std::fabs(p.values[r * d + c]);
    }
  Outputs out;
  add_output(out, in, "out", std::move(sum), scale, rows);
  return out;
}

}  // namespace

void register_kernel_oracles() {
  register_oracle("kernel.rmsnorm", rmsnorm);
  register_oracle("kernel.add_rmsnorm", add_rmsnorm);
  register_oracle("kernel.layernorm", layernorm);
  register_oracle("kernel.rmsnorm_bwd", rmsnorm_bwd);
  register_oracle("kernel.add_rmsnorm_bwd", add_rmsnorm_bwd);
  register_oracle("kernel.layernorm_bwd", layernorm_bwd);
  register_oracle("kernel.column_sum", column_sum);
}

}  // namespace ladder
