#include "harness/bench/every_build.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "harness/core/text.h"
#include "harness/kernels/catalog.h"
#include "harness/toolchain/cubin_resources.h"

namespace ladder::bench {

EveryBuild compile_every_build(const toolchain::Nvrtc& nvrtc, const std::string& arch, unsigned threads) {
  const auto builds = kernels::all_builds();
  std::map<std::string, std::string> texts;
  for (const auto& b : builds)
    if (!texts.count(b.source)) texts[b.source] = read_file(b.source, "kernel source");
  std::vector<report::BuildResources> found(builds.size());
  EveryBuild out;
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  auto worker = [&] {
    for (std::size_t i = next++; i < builds.size(); i = next++) {
      toolchain::CompileRequest req;
      req.source_path = builds[i].source;
      req.source_text = texts.at(builds[i].source);
      req.entry = builds[i].entry;
      req.arch = arch;
      const auto r = nvrtc.compile(req);
      const bool compiled = r.ok && !r.lowered_name.empty();
      const auto k = compiled ? toolchain::kernel_resources(r.image, r.lowered_name) : toolchain::KernelResourcesResult{};
      if (compiled && k.ok) {
        found[i] = {builds[i].entry, k.resources};  // each worker writes its own slots
        continue;
      }
      std::lock_guard<std::mutex> lock(mu);
      out.failures.push_back(builds[i].entry + ": " +
                             (compiled ? k.error : r.ok ? "no lowered name" : r.error + "\n" + r.log));
    }
  };
  const unsigned n = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  for (auto& f : found)
    if (!f.entry.empty()) out.builds.push_back(std::move(f));
  return out;
}

}  // namespace ladder::bench
