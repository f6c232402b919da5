// What every kernel build costs an SM, summed up a template at a time: how many builds, their
// registers' range, and which hold local memory (spills or local arrays). kernels/README.md
// carries this table for sm_90 and the NVRTC the CI compiles with; the CI's compile of every
// build checks it, so a change that adds a spill or moves a template's registers shows there.
#pragma once
#include <string>
#include <vector>

#include "harness/toolchain/cubin_resources.h"

namespace ladder::report {

struct BuildResources {
  std::string entry;  // the name expression, "ladder::rmsnorm_fwd<float, 4>"
  toolchain::KernelResources resources;
};

// One row a template, in name order: | `name` | builds | registers | builds with local memory |.
// The last cell is "none", or the count with the most bytes a thread and up to three of the
// builds. The header line is part of it.
std::string build_resources_markdown(const std::vector<BuildResources>& builds);

}  // namespace ladder::report
