#include "harness/cli/bench_builds.h"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bench/every_build.h"
#include "harness/cli/run_common.h"
#include "harness/kernels/kernel_sources.h"
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
  bench::EveryBuild compiled;
  try {
    compiled = bench::compile_every_build(nvrtc, target);
  } catch (const std::exception& e) {
    std::cerr << "ladder bench: " << e.what() << "\n";
    return kExitHarness;
  }
  const auto& ok = compiled.builds;
  const auto& failures = compiled.failures;
  const auto version = nvrtc.version();
  std::cout << fmt::format("{} builds for {}, NVRTC {}.{}\n\n", ok.size() + failures.size(), target, version.major,
                           version.minor)
            << report::build_resources_markdown(ok);
  for (const auto& f : failures) std::cout << "error: " << f << "\n";
  if (!json_path.empty()) {
    nlohmann::json doc = {{"tool", "ladder-bench"},
                          {"every_build", true},
                          {"arch", target},
                          {"nvrtc_version", fmt::format("{}.{}", version.major, version.minor)},
                          {"date", now_iso8601()},
                          {"commit", current_commit()},
                          {"kernels", kernels::to_json(kernels::kernel_sources())},
                          {"failures", failures},
                          {"builds", nlohmann::json::array()}};
    for (const auto& b : ok) {
      nlohmann::json build = {{"entry", b.entry},
                              {"registers", b.resources.registers},
                              {"local_bytes", b.resources.local_bytes},
                              {"static_shared_bytes", b.resources.static_shared_bytes}};
      if (!b.resources.code_digest.empty()) build["code"] = b.resources.code_digest;
      doc["builds"].push_back(std::move(build));
    }
    write_file_atomic(json_path, doc.dump(1) + "\n");
  }
  return failures.empty() ? kExitOk : kExitFailure;
}

}  // namespace ladder::cli
