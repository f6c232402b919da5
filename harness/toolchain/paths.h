// Where the toolkit and the project's own folders are. Every path default lives here, and every
// one can be overridden from the environment, so a binary carried to another machine still works.
#pragma once
#include <string>
#include <vector>

namespace ladder::toolchain {

std::string toolkit_root();                      // $LADDER_CUDA_HOME, else the build's toolkit, else /usr/local/cuda
std::vector<std::string> default_nvrtc_candidates();
std::string source_dir();                        // $LADDER_SOURCE_DIR, else the build's source dir
std::string probes_dir();                        // <source>/probes
std::string self_executable();                   // /proc/self/exe

}  // namespace ladder::toolchain
