#include "harness/cli/bench_builds.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/run_common.h"
#include "harness/kernels/catalog.h"
#include "harness/report/build_resources.h"
#include "harness/report/run_document.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder::cli {

int every_build_resources(const std::string& arch, const std::string& nvrtc_path, const std::string& json_path) {
  const toolchain::Nvrtc nvrtc(nvrtc_path);
  if (!nvrtc.available()) {
    std::cerr << "ladder bench: NVRTC not available: " << nvrtc.load_error() << "\n";
    return kExitHarness;
  }
  const std::string target = arch.empty() ? "sm_90" : arch;
  const auto builds = kernels::all_builds();
  std::map<std::string, std::string> texts;
  for (const auto& b : builds)
    if (!texts.count(b.source)) {
      std::ifstream in(b.source, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      texts[b.source] = ss.str();
    }
  std::vector<report::BuildResources> found(builds.size());
  std::vector<std::string> failures;
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  auto worker = [&] {
    for (std::size_t i = next++; i < builds.size(); i = next++) {
      toolchain::CompileRequest req;
      req.source_path = builds[i].source;
      req.source_text = texts.at(builds[i].source);
      req.entry = builds[i].entry;
      req.arch = target;
      const auto r = nvrtc.compile(req);
      const auto k = r.ok ? toolchain::kernel_resources(r.image, r.lowered_name) : toolchain::KernelResourcesResult{};
      std::lock_guard<std::mutex> lock(mu);
      if (!r.ok || !k.ok) {
        failures.push_back(builds[i].entry + ": " + (r.ok ? k.error : r.error + "\n" + r.log));
        continue;
      }
      found[i] = {builds[i].entry, k.resources};
    }
  };
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  std::vector<report::BuildResources> ok;
  for (const auto& f : found)
    if (!f.entry.empty()) ok.push_back(f);
  const auto version = nvrtc.version();
  std::cout << fmt::format("{} builds for {}, NVRTC {}.{}\n\n", builds.size(), target, version.major, version.minor)
            << report::build_resources_markdown(ok);
  for (const auto& f : failures) std::cout << "error: " << f << "\n";
  if (!json_path.empty()) {
    nlohmann::json doc = {{"tool", "ladder-bench"},
                          {"every_build", true},
                          {"arch", target},
                          {"nvrtc_version", fmt::format("{}.{}", version.major, version.minor)},
                          {"date", now_iso8601()},
                          {"commit", current_commit()},
                          {"failures", failures},
                          {"builds", nlohmann::json::array()}};
    for (const auto& b : ok)
      doc["builds"].push_back({{"entry", b.entry},
                               {"registers", b.resources.registers},
                               {"local_bytes", b.resources.local_bytes},
                               {"static_shared_bytes", b.resources.static_shared_bytes}});
    write_file_atomic(json_path, doc.dump(1) + "\n");
  }
  return failures.empty() ? kExitOk : kExitFailure;
}

}  // namespace ladder::cli
