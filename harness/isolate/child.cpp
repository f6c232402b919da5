#include "harness/isolate/child.h"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/checks/evaluate.h"
#include "harness/checks/oracle_registry.h"
#include "harness/core/result.h"
#include "harness/device/buffers.h"
#include "harness/device/generators.h"
#include "harness/isolate/launcher.h"
#include "harness/isolate/plan.h"
#include "harness/isolate/trace.h"
#include "harness/ladder/manifest.h"
#include "harness/toolchain/compile_cache.h"
#include "harness/toolchain/cubin_resources.h"
#include "harness/toolchain/driver.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder::isolate {
namespace {
using nlohmann::json;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  // Every line carries its sending time, for `--trace` (trace.h).
  void send(json j) const {
    j["t_us"] = monotonic_us();
    std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    const char* p = line.data();
    std::size_t left = line.size();
    while (left) {
      const ssize_t n = ::write(fd_, p, left);
      if (n <= 0) return;  // the parent is gone; nothing useful to do
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
};

}  // namespace

int child_main(const ChildOptions& opts) {
  json stamps = {{"main", monotonic_us()}};
  const Channel out(opts.result_fd);
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  Rung rung;
  try {
    auto lad = parse_ladder(text, "<rung from parent>", "");
    if (lad.rungs.size() != 1) throw std::invalid_argument("expected exactly one rung");
    rung = std::move(lad.rungs.front());
  } catch (const std::exception& e) {
    out.send({{"type", "unresolved"}, {"evidence", e.what()}});
    return 2;
  }
  register_builtin_oracles();

  // Device first: its arch is the default compile target.
  std::optional<toolchain::Context> ctx;
  std::string no_device;
  double context_ms = 0;
  // The context's span includes loading the driver library.
  if (!opts.compile_only) stamps["context_begin"] = monotonic_us();
  if (opts.compile_only) {
    no_device = "compile only";
  } else if (!toolchain::driver()) {
    no_device = "no CUDA device: " + toolchain::driver_load_error();
  } else {
    const auto t0 = Clock::now();
    try {
      ctx = toolchain::Context::create(0);
    } catch (const toolchain::DriverError& e) {
      no_device = "no CUDA device: " + e.name;
    } catch (const std::exception& e) {
      no_device = std::string("no CUDA device: ") + e.what();
    }
    context_ms = ms_since(t0);
    stamps["context_end"] = monotonic_us();
  }
  const std::string arch = !opts.arch.empty() ? opts.arch : ctx ? ctx->device().arch() : "sm_90";
  // Plans fit this device's shared memory and SMs; without one, the H200's, as for the arch.
  const kernels::DeviceLimits limits =
      ctx ? kernels::DeviceLimits::from(ctx->device()) : kernels::DeviceLimits::h200();

  stamps["nvrtc_begin"] = monotonic_us();
  const toolchain::Nvrtc nvrtc(opts.nvrtc_path);
  toolchain::CompileCache cache(opts.cache_dir);
  cache.enabled = !opts.no_cache;
  stamps["nvrtc_end"] = monotonic_us();
  {
    json t = {{"type", "toolchain"}, {"arch", arch}, {"nvrtc_path", nvrtc.library_path()},
              {"nvrtc_version", fmt::format("{}.{}", nvrtc.version().major, nvrtc.version().minor)},
              {"nvrtc_error", nvrtc.load_error()}, {"context_ms", context_ms}, {"no_device", no_device},
              {"stamps", stamps}};
    if (ctx) {
      const auto& d = ctx->device();
      t["gpu"] = d.name;
      t["driver_version"] = d.driver_version;
      t["sm_count"] = d.sm_count;
    }
    out.send(t);
  }

  ImageSet images(nvrtc, cache, arch, [&](const CompiledImage& img) {
    json m = {{"type", "compile"}, {"source", img.source}, {"entry", img.entry}, {"ok", img.ok},
              {"error", img.error}, {"log", img.log}, {"options", img.options},
              {"cache_hit", img.cache_hit}, {"ms", img.ms}};
    if (img.ok && img.is_cubin) {
      const auto r = toolchain::kernel_resources(img.image, img.lowered_name);
      if (r.ok)
        m["resources"] = ImageResources{img.entry, r.resources.registers, r.resources.local_bytes,
                                        r.resources.static_shared_bytes};
    }
    out.send(m);
  });

  for (std::size_t i = opts.first_case; i < rung.cases.size(); ++i) {
    out.send({{"type", "begin"}, {"index", i}});
    CaseResult cr;
    cr.index = i;
    cr.shape = rung.cases[i];
    bool sticky = false;
    try {
      const auto plans = plan_case(rung, rung.cases[i], limits);
      run_case(rung, plans, images, ctx ? &*ctx : nullptr, no_device, opts.bare_allocations ? 0 : kRedzoneBytes,
               cr, sticky);
    } catch (const std::exception& e) {
      cr.unresolved = true;
      cr.evidence = e.what();
    }
    json line = cr;
    line["type"] = "case";
    out.send(line);
    if (sticky) {
      out.send({{"type", "stopped"}, {"next", i + 1}});
      return 0;
    }
    // A compile failure is the same for every case; one report is the evidence.
    if (cr.failure == FailReason::Compile || cr.failure == FailReason::Load) break;
  }
  out.send({{"type", "done"}});
  return 0;
}

int selftest_child_main(const std::string& mode, int result_fd) {
  const Channel out(result_fd);
  if (mode == "segv") {
    std::raise(SIGSEGV);
  } else if (mode == "abort") {
    std::abort();
  } else if (mode == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (mode == "exit3") {
    return 3;
  } else if (mode == "garbage") {
    const char junk[] = "this is not json {{{\n";
    if (::write(result_fd, junk, sizeof junk - 1) < 0) return 1;
    return 0;
  } else if (mode == "ok") {
    out.send({{"type", "done"}});
    return 0;
  } else if (mode == "ready-then-hang") {
    out.send({{"type", "toolchain"}});
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (mode == "slow-cases") {  // ready at once, then four cases of 0.3 s
    out.send({{"type", "toolchain"}});
    for (int i = 0; i < 4; ++i) {
      out.send({{"type", "begin"}, {"index", i}});
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    out.send({{"type", "done"}});
    return 0;
  } else if (mode == "slow-ready") {  // a long wait for a context, then quick work
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    out.send({{"type", "toolchain"}});
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    out.send({{"type", "done"}});
    return 0;
  }
  return 2;
}

}  // namespace ladder::isolate
