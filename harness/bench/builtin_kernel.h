// The bench's own small kernels (the L2 flush's read, the SM census): one CUDA source in the
// binary, compiled for the bench's arch and loaded into the current context.
#pragma once
#include <string>

#include "harness/toolchain/driver.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder::bench {

// Compiles `source` (named `file` in NVRTC's log) for `arch` and loads it. Throws
// std::runtime_error naming `what`, with NVRTC's log, when it does not compile, and
// toolchain::DriverError when it does not load.
toolchain::Module load_builtin_kernel(const toolchain::Nvrtc& nvrtc, const std::string& arch, const char* file,
                                      const char* source, const std::string& what);

}  // namespace ladder::bench
