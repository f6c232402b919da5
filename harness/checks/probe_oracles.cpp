// Oracles for the hand-written probe rungs (probes/README.md lists them).
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/checks/oracle_registry.h"
#include "harness/core/element.h"
#include "oracles/norms.h"

namespace ladder {
namespace {

const ConcreteBuffer& output_spec(const OracleInput& in, const std::string& name) {
  for (const auto& b : in.launch.buffers)
    if (b.name == name) return b;
  throw std::out_of_range(fmt::format("oracle '{}' needs an output buffer named '{}'", in.launch.oracle, name));
}

oracles::Tolerance tol(const ConcreteBuffer& out, std::size_t reduction) {
  return oracles::tolerance_for(precision_of(out.dtype), reduction);
}

std::map<std::string, Expected> mul(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto& w = in.at("w");
  const auto& y = output_spec(in, "y");
  Expected e{std::vector<double>(x.values.size()), tol(y, 1)};
  const bool broadcast = w.values.size() != x.values.size();
  if (broadcast && static_cast<std::int64_t>(w.values.size()) != x.spec.cols)
    throw std::invalid_argument("oracle 'mul': w must have d or rows*d elements");
  for (std::size_t i = 0; i < x.values.size(); ++i)
    e.values[i] = x.values[i] * w.values[broadcast ? i % static_cast<std::size_t>(x.spec.cols) : i];
  return {{"y", std::move(e)}};
}

std::map<std::string, Expected> scale(const OracleInput& in) {
  const auto& x = in.at("x");
  const double s = in.scalar("scale");
  Expected e{std::vector<double>(x.values.size()), tol(output_spec(in, "y"), 1)};
  for (std::size_t i = 0; i < x.values.size(); ++i) e.values[i] = x.values[i] * s;
  return {{"y", std::move(e)}};
}

std::map<std::string, Expected> copy(const OracleInput& in) {
  const auto& x = in.at("x");
  return {{"y", Expected{x.values, tol(output_spec(in, "y"), 1)}}};
}

std::map<std::string, Expected> row_sumsq(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto rows = static_cast<std::size_t>(x.spec.rows), d = static_cast<std::size_t>(x.spec.cols);
  Expected e{std::vector<double>(rows, 0.0), tol(output_spec(in, "s"), d)};
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < d; ++c) e.values[r] += x.values[r * d + c] * x.values[r * d + c];
  return {{"s", std::move(e)}};
}

std::map<std::string, Expected> rmsnorm(const OracleInput& in) {
  const auto& x = in.at("x");
  const auto rows = static_cast<std::size_t>(x.spec.rows), d = static_cast<std::size_t>(x.spec.cols);
  const bool has_w = in.initial.count("w") > 0;
  const std::vector<double> none;
  const auto& w = has_w ? in.at("w").values : none;
  auto out = oracles::rmsnorm(x.values, w, rows, d, in.scalar("eps"),
                              has_w ? oracles::WeightMode::Plain : oracles::WeightMode::None);
  return {{"y", Expected{std::move(out.y), tol(output_spec(in, "y"), d)}}};
}

}  // namespace

void register_probe_oracles() {
  register_oracle("mul", mul);
  register_oracle("scale", scale);
  register_oracle("copy", copy);
  register_oracle("row_sumsq", row_sumsq);
  register_oracle("rmsnorm", rmsnorm);
}

}  // namespace ladder
