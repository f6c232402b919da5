// Every kernel build the catalog can plan (kernels::all_builds), compiled for one arch with NVRTC
// on the machine's threads, and what each costs an SM read from its cubin. Serves `ladder bench
// --resources --every-build` and the CI's compile of every build. Needs no GPU.
#pragma once
#include <string>
#include <vector>

#include "harness/report/build_resources.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder::bench {

struct EveryBuild {
  std::vector<report::BuildResources> builds;  // the builds that compiled and were read, in catalog order
  std::vector<std::string> failures;           // "entry: error" (with NVRTC's log) for the others, in catalog order
};

// On as many threads as the machine has. Throws std::invalid_argument naming a kernel source that
// cannot be read (before any compile starts).
EveryBuild compile_every_build(const toolchain::Nvrtc& nvrtc, const std::string& arch);

}  // namespace ladder::bench
