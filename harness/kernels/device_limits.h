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

  // The machine the planner's choices were measured on (reports/h200/): the default wherever
  // no device is at hand.
  static constexpr DeviceLimits h200() { return {132, 2048, 227 * 1024, 228 * 1024, 90}; }
  // sm_80, for tests: fewer SMs and 64 KiB less shared memory a block than the H200.
  static constexpr DeviceLimits a100() { return {108, 2048, 163 * 1024, 164 * 1024, 80}; }
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
