// Turns a rung and a case into the launches to run: hand-written rungs through their
// expressions, production-kernel rungs through the kernel catalog.
#pragma once
#include <vector>

#include "harness/ladder/launch.h"

namespace ladder::isolate {

std::vector<KernelLaunch> plan_case(const Rung& rung, const Case& c);  // throws std::invalid_argument

}  // namespace ladder::isolate
