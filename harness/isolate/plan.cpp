#include "harness/isolate/plan.h"

#include <stdexcept>

#include <fmt/format.h>

#include "harness/kernels/catalog.h"

namespace ladder::isolate {
namespace {

// A production-kernel rung may replace the generator of some inputs (KernelRef::inits). An
// override that names no input of the plan is a mapping mistake: refusing it keeps a fixture
// input from being silently dropped, or a kernel input from silently staying random.
void apply_init_overrides(const Rung& rung, std::vector<KernelLaunch>& launches) {
  const auto& inits = rung.kernel->inits;
  if (inits.empty() || launches.empty()) return;
  std::string inputs;
  for (const auto& b : launches.front().buffers)
    if (b.is_filled_input())
      inputs += (inputs.empty() ? "" : ", ") + b.name;
  for (const auto& [name, init] : inits) {
    bool found = false;
    for (const auto& b : launches.front().buffers)
      found |= b.name == name && b.is_filled_input();
    if (!found)
      throw std::invalid_argument(fmt::format("rung {}: kernel init for '{}': {} has no input buffer of that name "
                                              "(its inputs: {})", rung.name, name, rung.kernel->op, inputs));
  }
  for (auto& l : launches)
    for (auto& b : l.buffers)
      if (auto it = inits.find(b.name); it != inits.end() && b.alias_of.empty()) b.init = it->second;
}

}  // namespace

std::vector<KernelLaunch> plan_case(const Rung& rung, const Case& c,
                                    const kernels::DeviceLimits& device) {
  if (!rung.kernel) return {resolve_launch(rung, c)};
  auto launches = kernels::plan(*rung.kernel, c, rung.scalars, device);
  for (auto& l : launches) {
    l.seed = rung.seed;
    for (const auto& o : rung.options) l.options.push_back(o);
  }
  apply_init_overrides(rung, launches);
  return launches;
}

}  // namespace ladder::isolate
