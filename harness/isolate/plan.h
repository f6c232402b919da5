// Turns a rung and a case into the launches to run: hand-written rungs through their
// expressions, production-kernel rungs through the kernel catalog.
#pragma once
#include <vector>

#include "harness/kernels/device_limits.h"
#include "harness/ladder/launch.h"

namespace ladder::isolate {

// `device`: the limits of the child's device (kernels::DeviceLimits::from), or the H200 default
// where the child has none (its compile stages still run). Throws std::invalid_argument.
std::vector<KernelLaunch> plan_case(const Rung& rung, const Case& c,
                                    const kernels::DeviceLimits& device = kernels::DeviceLimits::h200());

}  // namespace ladder::isolate
