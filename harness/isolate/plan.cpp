#include "harness/isolate/plan.h"

#include "harness/kernels/catalog.h"

namespace ladder::isolate {

std::vector<KernelLaunch> plan_case(const Rung& rung, const Case& c) {
  if (!rung.kernel) return {resolve_launch(rung, c)};
  auto launches = kernels::plan(*rung.kernel, c, rung.scalars);
  for (auto& l : launches) {
    l.seed = rung.seed;
    for (const auto& o : rung.options) l.options.push_back(o);
  }
  return launches;
}

}  // namespace ladder::isolate
