// The limits of the device a plan is for: what sizes the staged kernels' shared memory and the
// resident grids (staged, backward) and decides "few rows". Planning runs in child processes,
// which read them from their device, and in the parent (which never initializes CUDA) and in
// tests, which take a named device.
#pragma once
#include <cstdint>
#include <string_view>

namespace ladder::toolchain {
struct DeviceInfo;
}

namespace ladder::kernels {

struct DeviceLimits {
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::int64_t shared_per_block_optin = 0;  // the most one block may opt into, static included
  std::int64_t shared_per_sm = 0;           // the SM's pool, the runtime's per-block 1 KiB included
  int compute_capability = 0;               // major * 10 + minor: 90 for sm_90
  // Peak DRAM bytes for each cycle of each SM the plan runs on (the context's SMs): how many
  // bytes an SM must keep in flight to keep up, which decides where loading rows earlier pays
  // (plan_backward.cpp, early).
  double dram_bytes_per_sm_cycle = 0;

  // Peak DRAM bytes a cycle of an SM from the clocks (kHz, double data rate) and the bus.
  static constexpr double bytes_per_sm_cycle(double memory_clock_khz, double bus_bits, int sms,
                                             double clock_khz) {
    return 2.0 * memory_clock_khz * (bus_bits / 8.0) / (sms * clock_khz);
  }
  // The machine the planner's choices were measured on (reports/h200/): the default wherever
  // no device is at hand. Its DRAM: 4.8 TB/s over 132 SMs at 1980 MHz.
  static constexpr DeviceLimits h200() {
    return {132, 2048, 227 * 1024, 228 * 1024, 90, 4.8e12 / (132 * 1.98e9)};
  }
  // sm_80, for tests: fewer SMs and 64 KiB less shared memory a block than the H200; 1555 GB/s
  // over 108 SMs at 1410 MHz.
  static constexpr DeviceLimits a100() {
    return {108, 2048, 163 * 1024, 164 * 1024, 80, 1.555e12 / (108 * 1.41e9)};
  }
  // An H100 SXM (3.35 TB/s, 132 SMs at 1980 MHz), for tests of rules that differ from the H200's.
  static constexpr DeviceLimits h100() {
    return {132, 2048, 227 * 1024, 228 * 1024, 90, 3.35e12 / (132 * 1.98e9)};
  }
  // The reference device of an arch, for plans and occupancy without a GPU: sm_8x the A100's,
  // any other the H200's.
  static DeviceLimits for_arch(std::string_view arch);
  // That device's name ("A100", "H200").
  static const char* reference_name(std::string_view arch);
  // From a context's device. An attribute the driver did not report (0) keeps the H200's value.
  static DeviceLimits from(const toolchain::DeviceInfo& device);
};

// Shared memory the planner leaves below a block's opt-in maximum for a kernel's static shared
// memory: the driver caps dynamic shared memory at the opt-in maximum less the static part, and
// the staged kernels' static reduce scratch (norm::ReduceScratch<1>) is 256 bytes.
constexpr std::int64_t kStaticSharedReserve = 1024;

// The shared memory the runtime reserves for each resident block (sm_80 and later), out of the
// SM's pool: what resident-grid planners charge a block beside its own.
constexpr std::int64_t kRuntimeSharedPerBlock = 1024;

}  // namespace ladder::kernels
