// `ladder bench --resources --every-build`: every kernel build the catalog can plan, compiled for
// one arch with NVRTC, and what each costs an SM (registers, local and static shared memory);
// printed a template at a time (the table kernels/README.md carries), and with --json a build at
// a time. Needs no GPU.
#pragma once
#include <string>

namespace ladder::cli {

// Returns the exit code: 0 when every build compiled and its numbers were read, 1 when one did
// not, 2 when NVRTC does not load or a kernel source cannot be read.
int every_build_resources(const std::string& arch, const std::string& nvrtc_path, const std::string& json_path);

}  // namespace ladder::cli
