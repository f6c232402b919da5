#include "harness/toolchain/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "harness/toolchain/nvrtc.h"

namespace ladder::toolchain {
namespace fs = std::filesystem;

namespace {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : fallback;
}
}  // namespace

std::string toolkit_root() {
  std::string root = env_or("LADDER_CUDA_HOME", LADDER_TOOLKIT_ROOT);
  if (!fs::exists(fs::path(root) / "include" / "cuda_fp16.h") && fs::exists("/usr/local/cuda/include"))
    root = "/usr/local/cuda";
  return root;
}

std::vector<std::string> default_nvrtc_candidates() {
  const std::string root = toolkit_root();
  return {root + "/lib64/libnvrtc.so", std::string(LADDER_TOOLKIT_LIBDIR) + "/libnvrtc.so",
          "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
}

std::vector<std::string> default_include_options() {
  const std::string inc = toolkit_root() + "/include";
  std::vector<std::string> out{"-I" + inc};
  // Some 13.x headers pull CCCL pieces that live one folder down.
  if (fs::exists(inc + "/cccl")) out.push_back("-I" + inc + "/cccl");
  out.push_back("-I" + source_dir() + "/kernels");
  return out;
}

std::string source_dir() {
  std::string dir = env_or("LADDER_SOURCE_DIR", LADDER_SOURCE_DIR);
  // A binary carried to another machine: the build's source folder is absent there, so take the
  // working directory when it is a checkout.
  if (!fs::exists(fs::path(dir) / "probes") && fs::exists("probes") && fs::exists("kernels"))
    dir = fs::current_path().string();
  return dir;
}
std::string probes_dir() { return source_dir() + "/probes"; }

std::string self_executable() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("ladder") : p.string();
}

}  // namespace ladder::toolchain
