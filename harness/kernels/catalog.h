// The production kernels in kernels/, described as data the harness can launch: which source,
// which name expression, which buffers and arguments, and the launch geometry for a shape.
// The same descriptions serve `ladder verify`, `ladder bench`, manifest rungs with a "kernel"
// field (p8, p11) and the CI check that compiles every specialization.
#pragma once
#include <string>
#include <vector>

#include "harness/kernels/device_limits.h"
#include "harness/ladder/launch.h"
#include "harness/ladder/manifest.h"

namespace ladder::kernels {

// Ops: "rmsnorm", "add_rmsnorm", "layernorm", "rmsnorm_bwd", "add_rmsnorm_bwd", "layernorm_bwd",
// plus any helper kernels (e.g. the backward dw reduce) that the op launches.
std::vector<std::string> ops();

// Plans one case. The case gives at least "rows" and "d"; scalars give "eps" (must be > 0).
// `ref.variant` selects options such as weight mode, convention, in-place, strides.
// Throws std::invalid_argument with a message naming the op and the problem.
// An op that needs several launches (e.g. a partial reduce then a final reduce) returns them in
// order; the harness runs them back to back. Buffers are declared by the first launch and
// shared by all; the oracle is the first launch's.
// `device` sizes staged shared memory and resident grids: a process with a CUDA context passes
// DeviceLimits::from(its device). Plans for other devices may differ in kernel (staged or
// register), ITEMS, stages and grid, never in buffer names or arguments.
std::vector<KernelLaunch> plan(const KernelRef& ref, const Case& c,
                               const std::map<std::string, double>& scalars,
                               const DeviceLimits& device = DeviceLimits::h200());

// Every (op, dtype, variant) specialization the CI compile check must build. It enumerates the
// template axes and ITEMS, not shapes or devices, so it covers what a plan for any device picks.
std::vector<KernelRef> all_specializations();

// One kernel build: the source and name expression a plan launches.
struct Build {
  std::string source, entry;
  bool operator<(const Build& o) const { return source != o.source ? source < o.source : entry < o.entry; }
};

// Every distinct build the plans of every specialization launch, each specialization planned at
// shapes that reach all its builds: what the CI compiles and kernels/README.md documents.
std::vector<Build> all_builds();

// $LADDER_KERNELS_DIR where it is set and not empty, else null: the one place that reads it.
const char* kernels_dir_from_env();
// Absolute path of kernels/ (from the build's source dir, or $LADDER_KERNELS_DIR).
std::string kernels_dir();

}  // namespace ladder::kernels
