#include "harness/bench/bench_child.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iostream>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bench/bench_spec.h"
#include "harness/bench/l2_flush.h"
#include "harness/bench/launch_resources.h"
#include "harness/bench/sm_census.h"
#include "harness/device/buffers.h"
#include "harness/device/generators.h"
#include "harness/isolate/launcher.h"
#include "harness/kernels/catalog.h"
#include "harness/toolchain/driver.h"

namespace ladder::bench {
namespace {
using nlohmann::json;
using toolchain::check;
using toolchain::Event;

void send(int fd, const json& j) {
  const std::string line = j.dump() + "\n";
  if (::write(fd, line.data(), line.size()) < 0) std::cerr << "bench child: result pipe closed\n";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct PackedLaunch {
  CUfunction fn;
  const KernelLaunch* plan;
  isolate::PackedParams params;
};

std::vector<PackedLaunch> pack(const std::vector<KernelLaunch>& plans, isolate::ImageSet& images,
                               const DeviceBuffers& buffers) {
  std::vector<PackedLaunch> out(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto& k = plans[i];
    const auto& img = images.image(k);
    if (!img.ok) throw std::runtime_error(fmt::format("{}: {} {}", k.entry, img.error, img.log));
    out[i].fn = images.function(k);
    out[i].plan = &k;
    isolate::pack_params(k, buffers, out[i].params);
  }
  return out;
}

void launch_all(std::vector<PackedLaunch>& launches) {
  for (auto& p : launches) {
    const auto& k = *p.plan;
    if (k.grid[0] == 0) continue;
    const char* failed_call = "";
    check(isolate::launch_planned(p.fn, k, p.params, &failed_call), failed_call);
  }
}

// Median microseconds of `reps` runs of `work`, each between two events, after `prepare(i)`
// (outside them: an L2 flush before a cold launch, nothing before a hot one). Kernels and copies
// are timed the same way.
// Cold timings of a case (its kernels, its same-size copy): a quarter of the hot launches, at least 5.
int cold_reps(int iters) { return std::max(5, iters / 4); }

template <typename Prepare, typename Work>
double median_timed(int reps, Prepare&& prepare, Work&& work) {
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    prepare(i);
    const Event a = Event::create(), b = Event::create();
    a.record();
    work();
    b.record();
    us.push_back(1000.0 * Event::elapsed_ms(a, b));
  }
  return median(us);
}

void no_flush(int) {}

// Hot: `iters` back-to-back launches between two events (launch gaps hidden by the queue).
// Cold: a flush of twice the L2 before each launch (dirty, and clean: l2_flush.h), events around
// the launch alone.
json time_plans(const std::vector<KernelLaunch>& plans, isolate::ImageSet& images,
                const L2Flush& flush, int iters) {
  const auto& api = *toolchain::driver();
  DeviceBuffers buffers(plans.front().buffers);
  const auto inputs = generate_inputs(plans.front().buffers, [&](const ConcreteBuffer& b) {
    return mix_seed(plans.front().seed, b.name);
  });
  buffers.prepare(inputs, kSentinelA);
  auto launches = pack(plans, images, buffers);
  for (int i = 0; i < 3; ++i) launch_all(launches);
  check(api.CtxSynchronize(), "cuCtxSynchronize (warm-up)");

  const double hot_us = median_timed(5, no_flush, [&] {
                          for (int i = 0; i < iters; ++i) launch_all(launches);
                        }) / iters;
  const double cold_us = median_timed(cold_reps(iters), [&](int i) { flush.dirty(i); },
                                      [&] { launch_all(launches); });
  const double cold_clean_us = median_timed(cold_reps(iters), [&](int i) { flush.clean(i); },
                                            [&] { launch_all(launches); });
  check(api.CtxSynchronize(), "cuCtxSynchronize");
  std::string geometry;
  for (const auto& k : plans)
    geometry += fmt::format("{}{} grid {}x{} block {}x{}", geometry.empty() ? "" : "; ", k.entry, k.grid[0], k.grid[1],
                            k.block[0], k.block[1]);
  return {{"hot_us", hot_us}, {"cold_us", cold_us}, {"cold_clean_us", cold_clean_us}, {"geometry", geometry},
          {"bytes", minimum_bytes(plans.front().buffers)}};
}

// Beside a case's cold time, a cold copy that moves the same minimum bytes (half read, half
// written). Why: a launch pays fixed costs (start, the L2's dirty lines, the last wave) that the
// 2 GiB ceiling copy spreads thin; at 128-256 MB they are several percent, for a copy as for a
// kernel, and this shows how much of a case's distance to the ceiling they are.
void add_same_size_copy(json& row, const toolchain::DeviceMemory& src, const toolchain::DeviceMemory& dst,
                        const L2Flush& flush, int iters) {
  const double bytes = row.value("bytes", 0.0);
  const auto half = static_cast<std::size_t>(bytes / 2) & ~std::size_t{15};
  if (half == 0 || half > src.size()) {
    row["copy_same_skipped"] = fmt::format("{} bytes is outside the copy buffers' 16 B to {} B", half, src.size());
    return;
  }
  row["copy_same_us"] = median_timed(cold_reps(iters), [&](int i) { flush.dirty(i); }, [&] {
    check(toolchain::driver()->MemcpyDtoDAsync(dst.get(), src.get(), half, nullptr), "cuMemcpyDtoDAsync");
  });
}

std::vector<KernelLaunch> plan_case(const BenchCase& c, const kernels::DeviceLimits& limits) {
  return kernels::plan(c.kernel, Case{{"rows", c.rows}, {"d", c.d}}, {{"eps", c.eps}}, limits);
}

// --resources: each case planned and compiled for the arch's reference device (no GPU needed, no
// context made), its launches' registers, memory, blocks an SM and waves reported, nothing timed.
int resources_only(const json& spec, const BenchChildOptions& opts) {
  try {
    const std::string arch = opts.arch.empty() ? "sm_90" : opts.arch;
    const kernels::DeviceLimits limits = kernels::DeviceLimits::for_arch(arch);
    const toolchain::Nvrtc nvrtc(opts.nvrtc_path);
    nvrtc.require_available();  // no compiler: UNRESOLVED, not every case's error
    toolchain::CompileCache cache(opts.cache_dir);
    isolate::ImageSet images(nvrtc, cache, arch, nullptr);
    send(opts.result_fd, {{"type", "toolchain"}, {"arch", arch}, {"sm_count", limits.sm_count},
                          {"reference_device", kernels::DeviceLimits::reference_name(arch)},
                          {"nvrtc_version", fmt::format("{}.{}", nvrtc.version().major, nvrtc.version().minor)}});
    for (const auto& jc : spec.at("cases")) {
      const BenchCase c = bench_case_from_json(jc);
      json row = to_json(c);
      row["type"] = "result";
      row["impl"] = "ladder";
      try {
        const auto plans = plan_case(c, limits);
        row["kernels"] = case_resources(plans, images, limits);
        row["bytes"] = minimum_bytes(plans.front().buffers);
        // A launch that did not compile is the case's error (the run then exits 1), not an
        // unknown register count.
        for (const auto& k : plans)
          if (const auto& image = images.image(k); !image.ok)
            row["error"] = fmt::format("{} did not compile for {}: {}", k.entry, arch, image.error);
      } catch (const std::exception& e) {
        row["error"] = e.what();
      }
      send(opts.result_fd, row);
    }
  } catch (const std::exception& e) {
    send(opts.result_fd, {{"type", "unresolved"}, {"evidence", e.what()}});
    return 1;
  }
  send(opts.result_fd, {{"type", "done"}});
  return 0;
}

}  // namespace

int bench_child_main(const BenchChildOptions& opts) {
  json spec;
  try {
    spec = json::parse(std::string((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>()));
  } catch (const std::exception& e) {
    send(opts.result_fd, {{"type", "unresolved"}, {"evidence", e.what()}});
    return 2;
  }
  if (spec.value("resources_only", false)) return resources_only(spec, opts);
  if (!toolchain::driver()) {
    send(opts.result_fd, {{"type", "skipped"}, {"evidence", "no CUDA device: " + toolchain::driver_load_error()}});
    return 0;
  }
  try {
    // "sms": a green context on that share of the SMs (`ladder bench --sms`); 0, the whole GPU.
    const int sms_asked = spec.value("sms", 0);
    auto ctx = toolchain::Context::create(0, sms_asked);
    const auto& dev = ctx.device();
    const std::string arch = opts.arch.empty() ? dev.arch() : opts.arch;
    const kernels::DeviceLimits limits = kernels::DeviceLimits::from(dev);  // what plans fit
    const toolchain::Nvrtc nvrtc(opts.nvrtc_path);
    nvrtc.require_available();  // no compiler: UNRESOLVED, not every case's error
    toolchain::CompileCache cache(opts.cache_dir);
    isolate::ImageSet images(nvrtc, cache, arch, nullptr);
    json toolchain_message = {{"type", "toolchain"}, {"gpu", dev.name}, {"arch", arch}, {"sm_count", dev.sm_count},
                              {"driver_version", dev.driver_version}, {"l2_bytes", dev.l2_bytes},
                              {"dram_bytes_per_sm_cycle", limits.dram_bytes_per_sm_cycle},
                              {"nvrtc_version", fmt::format("{}.{}", nvrtc.version().major, nvrtc.version().minor)}};
    // A share of the SMs is counted, not trusted (sm_census.h): eight blocks an SM of the device.
    const bool share = dev.sm_count != dev.device_sm_count;
    const int seen = share ? count_sms_used(nvrtc, arch, 8 * dev.device_sm_count) : 0;
    if (share) {
      toolchain_message["device_sm_count"] = dev.device_sm_count;
      toolchain_message["sms_asked"] = sms_asked;
      toolchain_message["sms_seen"] = seen;
    }
    send(opts.result_fd, toolchain_message);
    if (seen > dev.sm_count) {
      send(opts.result_fd, {{"type", "unresolved"},
                            {"evidence", fmt::format("--sms: the green context has {} SMs, but a launch in it ran on {} "
                                                     "(MPS or a module with dynamic parallelism can widen it); "
                                                     "nothing timed", dev.sm_count, seen)}});
      return 2;
    }
    const int iters = spec.value("iters", 50);
    const auto flush = L2Flush::create(nvrtc, arch, std::max<std::size_t>(2 * static_cast<std::size_t>(dev.l2_bytes), 256u << 20),
                                       dev.sm_count);

    // The ceiling: a large device-to-device copy, read plus write.
    const std::size_t copy_bytes = std::size_t{1} << 30;
    auto copy_src = toolchain::DeviceMemory::allocate(copy_bytes), copy_dst = toolchain::DeviceMemory::allocate(copy_bytes);
    {
      const auto& api = *toolchain::driver();
      check(api.MemsetD8(copy_src.get(), 1, copy_bytes), "cuMemsetD8");
      check(api.MemcpyDtoD(copy_dst.get(), copy_src.get(), copy_bytes), "cuMemcpyDtoD (warm-up)");
      const double t = median_timed(10, no_flush, [&] {
        check(api.MemcpyDtoDAsync(copy_dst.get(), copy_src.get(), copy_bytes, nullptr), "cuMemcpyDtoDAsync");
      });
      send(opts.result_fd, {{"type", "copy"}, {"bytes", 2.0 * copy_bytes}, {"us", t}, {"gbps", 2.0 * copy_bytes / (t * 1e3)}});
    }

    for (const auto& jc : spec.at("cases")) {
      const BenchCase c = bench_case_from_json(jc);
      json row = to_json(c);
      row["type"] = "result";
      try {
        const auto plans = plan_case(c, limits);
        row["impl"] = "ladder";
        row.update(time_plans(plans, images, flush, iters));
        row["kernels"] = case_resources(plans, images, limits);
        add_same_size_copy(row, copy_src, copy_dst, flush, iters);
        send(opts.result_fd, row);
        if (c.unfused_baseline) {
          json base = to_json(c);
          base["type"] = "result";
          base["impl"] = "unfused add + rmsnorm";
          const auto unfused = unfused_add_then_rmsnorm(c, limits);
          base.update(time_plans(unfused, images, flush, iters));
          base["kernels"] = case_resources(unfused, images, limits);
          base["bytes"] = row["bytes"];  // the same minimum work, done in two passes
          send(opts.result_fd, base);
        }
      } catch (const std::exception& e) {
        row["error"] = e.what();
        send(opts.result_fd, row);
        if (dynamic_cast<const toolchain::DriverError*>(&e) &&
            toolchain::is_sticky(dynamic_cast<const toolchain::DriverError&>(e).code))
          return 1;  // the context is gone; the parent reports the rest as not measured
      }
    }
  } catch (const std::exception& e) {
    send(opts.result_fd, {{"type", "unresolved"}, {"evidence", e.what()}});
    return 1;
  }
  send(opts.result_fd, {{"type", "done"}});
  return 0;
}

}  // namespace ladder::bench
