#include "harness/kernels/device_limits.h"

#include "harness/toolchain/driver.h"

namespace ladder::kernels {

namespace {
bool ampere_arch(std::string_view arch) { return arch.rfind("sm_8", 0) == 0 || arch.rfind("compute_8", 0) == 0; }
}  // namespace

DeviceLimits DeviceLimits::for_arch(std::string_view arch) { return ampere_arch(arch) ? a100() : h200(); }

const char* DeviceLimits::reference_name(std::string_view arch) { return ampere_arch(arch) ? "A100" : "H200"; }

DeviceLimits DeviceLimits::from(const toolchain::DeviceInfo& device) {
  constexpr DeviceLimits fallback = h200();
  auto or_fallback = [](auto value, auto otherwise) { return value > 0 ? value : otherwise; };
  DeviceLimits out;
  out.sm_count = or_fallback(device.sm_count, fallback.sm_count);
  out.max_threads_per_sm = or_fallback(device.max_threads_per_sm, fallback.max_threads_per_sm);
  out.shared_per_block_optin =
      or_fallback(std::int64_t{device.shared_per_block_optin}, fallback.shared_per_block_optin);
  out.shared_per_sm = or_fallback(std::int64_t{device.shared_per_sm}, fallback.shared_per_sm);
  out.compute_capability = device.cc_major > 0 ? device.cc_major * 10 + device.cc_minor
                                                : fallback.compute_capability;
  const bool clocks = device.clock_khz > 0 && device.memory_clock_khz > 0 && device.memory_bus_bits > 0;
  out.dram_bytes_per_sm_cycle =
      clocks ? bytes_per_sm_cycle(device.memory_clock_khz, device.memory_bus_bits, out.sm_count, device.clock_khz)
             : fallback.dram_bytes_per_sm_cycle;
  return out;
}

}  // namespace ladder::kernels
