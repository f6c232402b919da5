// Named host oracles the checks compare device outputs against. Probe oracles (mul, scale,
// row_sumsq, rmsnorm) are registered by harness/checks/probe_oracles.cpp; production-kernel
// oracles by harness/kernels/kernel_oracles.cpp. Each wraps oracles/ (pure fp64 maths).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/ladder/launch.h"
#include "oracles/tolerance.h"

namespace ladder {

struct HostTensor {
  ConcreteBuffer spec;
  std::vector<double> values;  // logical elements, dense row-major (rows x cols)
};

struct OracleInput {
  const KernelLaunch& launch;
  std::map<std::string, HostTensor> initial;  // every input and in-out buffer, before the launch
  const HostTensor& at(const std::string& name) const;  // throws std::out_of_range with the name
  double scalar(const std::string& name) const;         // throws std::out_of_range with the name
};

struct Expected {
  std::vector<double> values;  // logical elements of one output (or in-out) buffer
  oracles::Tolerance tolerance;
};

// Returns expected values for some or all output buffers, keyed by buffer name.
using OracleFn = std::function<std::map<std::string, Expected>(const OracleInput&)>;

void register_oracle(const std::string& name, OracleFn fn);
const OracleFn* find_oracle(std::string_view name);  // nullptr when unknown
std::vector<std::string> oracle_names();

// Registers every built-in oracle once; safe to call repeatedly.
void register_builtin_oracles();
void register_probe_oracles();   // harness/checks/probe_oracles.cpp
void register_kernel_oracles();  // harness/kernels/kernel_oracles.cpp

}  // namespace ladder
