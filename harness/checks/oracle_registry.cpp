#include "harness/checks/oracle_registry.h"

#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

namespace ladder {
namespace {
std::map<std::string, OracleFn, std::less<>>& table() {
  static std::map<std::string, OracleFn, std::less<>> t;
  return t;
}
}  // namespace

const HostTensor& OracleInput::at(const std::string& name) const {
  auto it = initial.find(name);
  if (it == initial.end())
    throw std::out_of_range(fmt::format("oracle '{}' needs an input buffer named '{}'", launch.oracle, name));
  return it->second;
}

double OracleInput::scalar(const std::string& name) const {
  auto it = launch.scalars.find(name);
  if (it == launch.scalars.end())
    throw std::out_of_range(fmt::format("oracle '{}' needs a scalar named '{}'", launch.oracle, name));
  return it->second;
}

void register_oracle(const std::string& name, OracleFn fn) { table()[name] = std::move(fn); }

const OracleFn* find_oracle(std::string_view name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> oracle_names() {
  std::vector<std::string> out;
  for (const auto& [k, v] : table()) out.push_back(k);
  return out;
}

void register_builtin_oracles() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_probe_oracles();
    register_kernel_oracles();
  });
}

}  // namespace ladder
