#include "harness/bench/sm_census.h"

#include <algorithm>
#include <vector>

#include "harness/bench/builtin_kernel.h"
#include "harness/toolchain/driver.h"

namespace ladder::bench {
namespace {

constexpr int kSmSlots = 4096;  // above any %smid a device has today

// Each block marks its SM and then spins, so that blocks launched together cannot all land on
// the few SMs that finish first.
constexpr const char* kCensusSource = R"(
extern "C" __global__ void ladder_sm_census(unsigned* seen, int slots) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0 && smid < (unsigned)slots) seen[smid] = 1u;
  const long long start = clock64();
  while (clock64() - start < 40000) {
  }
}
)";

}  // namespace

const char* sm_census_source() { return kCensusSource; }

int count_sms_used(const toolchain::Nvrtc& nvrtc, const std::string& arch, int blocks) {
  const auto module = load_builtin_kernel(nvrtc, arch, "ladder_sm_census.cu", kCensusSource, "the SM census kernel");
  const CUfunction census = module.function("ladder_sm_census");
  auto seen = toolchain::DeviceMemory::allocate(kSmSlots * sizeof(unsigned));
  const auto& api = *toolchain::driver();
  toolchain::check(api.MemsetD8(seen.get(), 0, seen.size()), "cuMemsetD8 (SM census)");
  CUdeviceptr p = seen.get();
  int slots = kSmSlots;
  void* params[] = {&p, &slots};
  toolchain::check(toolchain::launch(census, {static_cast<std::uint32_t>(std::max(blocks, 1)), 1, 1}, {128, 1, 1}, 0, params),
                   "cuLaunchKernel (SM census)");
  toolchain::check(api.CtxSynchronize(), "cuCtxSynchronize (SM census)");
  std::vector<unsigned> marks(kSmSlots);
  toolchain::check(api.MemcpyDtoH(marks.data(), seen.get(), seen.size()), "cuMemcpyDtoH (SM census)");
  return static_cast<int>(std::count(marks.begin(), marks.end(), 1u));
}

}  // namespace ladder::bench
