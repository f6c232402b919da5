#include "harness/bench/l2_flush.h"

#include "harness/bench/builtin_kernel.h"

namespace ladder::bench {
namespace {

// Reads every 16-byte chunk once. The xor of the values can only reach the buffer (its first
// word) when it equals a constant no memset pattern gives, so the loads are kept and nothing is
// written.
constexpr const char* kReadSource = R"(
extern "C" __global__ void ladder_l2_read(const uint4* p, unsigned long long chunks) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < chunks;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *(unsigned*)p = acc;
}
)";

}  // namespace

const char* l2_read_source() { return kReadSource; }

L2Flush L2Flush::create(const toolchain::Nvrtc& nvrtc, const std::string& arch, std::size_t bytes,
                        int sm_count) {
  L2Flush f;
  f.module_ = load_builtin_kernel(nvrtc, arch, "ladder_l2_read.cu", kReadSource, "the L2 flush's read kernel");
  f.buffer_ = toolchain::DeviceMemory::allocate(bytes < 16 ? 16 : bytes);
  f.read_ = f.module_.function("ladder_l2_read");
  f.sm_count_ = sm_count > 0 ? sm_count : 1;
  return f;
}

void L2Flush::dirty(int round) const {
  toolchain::check(toolchain::driver()->MemsetD8Async(buffer_.get(), static_cast<unsigned char>(round),
                                                      buffer_.size(), nullptr),
                   "cuMemsetD8Async (flush)");
}

void L2Flush::clean(int round) const {
  dirty(round);
  CUdeviceptr p = buffer_.get();
  unsigned long long chunks = buffer_.size() / 16;
  void* params[] = {&p, &chunks};
  toolchain::check(toolchain::launch(read_, {static_cast<std::uint32_t>(sm_count_) * 8, 1, 1}, {256, 1, 1}, 0,
                                     params),
                   "cuLaunchKernel (L2 read flush)");
}

}  // namespace ladder::bench
