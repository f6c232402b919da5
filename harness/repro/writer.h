// `ladder repro`: one case of one rung as a standalone reproducer, for a compiler or driver bug
// report. The folder holds the kernel sources, the exact inputs the harness generates for the
// case, the fp64 reference of each output, the launch plan as data (case.inc), and a host program
// that needs only NVRTC and the CUDA driver (repro.cpp, build.sh, README.md).
#pragma once
#include <string>
#include <vector>

#include "harness/ladder/manifest.h"

namespace ladder::repro {

// Writes the reproducer of `rung` at case `c` into `out_dir`, which must not exist or be empty.
// Returns the files written, relative to out_dir. Throws std::invalid_argument (a case the rung
// cannot plan, a non-empty folder) or std::runtime_error (a file that cannot be written).
std::vector<std::string> write_reproducer(const Rung& rung, const Case& c, const std::string& out_dir,
                                          const std::string& commit);

// repro.cpp, the same for every case (host_program.cpp).
std::string host_program_source();

}  // namespace ladder::repro
