#include "harness/kernels/kernel_sources.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "harness/core/hasher.h"
#include "harness/core/text.h"
#include "harness/kernels/catalog.h"

namespace ladder::kernels {
namespace fs = std::filesystem;

std::string sources_digest(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension();
    if ((ext == ".cuh" || ext == ".h") && it->is_regular_file()) files.push_back(it->path());
  }
  if (ec) throw std::runtime_error("kernel sources: cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  Hasher h;
  for (const auto& f : files) {
    h.add(f.filename().string());
    h.add(read_file(f.string(), "kernel source"));
  }
  return h.hex();
}

KernelSources kernel_sources() {
  KernelSources s;
  s.dir = kernels_dir();
  s.from_env = kernels_dir_from_env() != nullptr;
  try {
    s.digest = sources_digest(s.dir);
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

nlohmann::json to_json(const KernelSources& s) {
  nlohmann::json j = nlohmann::json::object();
  j["dir"] = s.dir;
  j["from_env"] = s.from_env;
  j["digest"] = s.digest;
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

}  // namespace ladder::kernels
