#include "harness/bench/every_build.h"

#include <map>

#include "harness/core/parallel.h"
#include "harness/core/text.h"
#include "harness/kernels/catalog.h"
#include "harness/toolchain/cubin_resources.h"

namespace ladder::bench {

EveryBuild compile_every_build(const toolchain::Nvrtc& nvrtc, const std::string& arch) {
  const auto builds = kernels::all_builds();
  std::map<std::string, std::string> texts;
  for (const auto& b : builds)
    if (!texts.count(b.source)) texts[b.source] = read_file(b.source, "kernel source");
  // Each compile writes its own slot: what it read, or why it failed.
  std::vector<report::BuildResources> found(builds.size());
  std::vector<std::string> failed(builds.size());
  parallel_each(builds.size(), 0, [&](std::size_t i) {
    toolchain::CompileRequest req;
    req.source_path = builds[i].source;
    req.source_text = texts.at(builds[i].source);
    req.entry = builds[i].entry;
    req.arch = arch;
    const auto r = nvrtc.compile(req);
    const bool compiled = r.ok && !r.lowered_name.empty();
    const auto k = compiled ? toolchain::kernel_resources(r.image, r.lowered_name) : toolchain::KernelResourcesResult{};
    if (compiled && k.ok) found[i] = {builds[i].entry, k.resources};
    else failed[i] = builds[i].entry + ": " + (compiled ? k.error : r.ok ? "no lowered name" : r.error + "\n" + r.log);
  });
  EveryBuild out;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    if (!found[i].entry.empty()) out.builds.push_back(std::move(found[i]));
    if (!failed[i].empty()) out.failures.push_back(std::move(failed[i]));
  }
  return out;
}

}  // namespace ladder::bench
