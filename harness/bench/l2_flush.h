// How a cold timing empties the L2 first. Two ways, both timed by `ladder bench`:
// - dirty: overwrite a buffer twice the L2's size (cuMemsetD8). The L2 is then full of the
//   buffer's dirty lines, and the timed launch pays for writing them back as it evicts them
//   (about 50 MB on an H200: 12 us of DRAM time at 4.2 TB/s).
// - clean: the same, then read the buffer once more with a small kernel, so that the L2 holds
//   only clean lines and the launch is charged for its own traffic alone (what Nsight Compute's
//   --cache-control all gives).
// Why both: peers are timed the dirty way by convention (Triton's do_bench, nvbench), and the
// write-back it adds lands differently on different kernels.
#pragma once
#include <cstddef>

#include "harness/toolchain/driver.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder::bench {

// The read kernel's CUDA source (extern "C" ladder_l2_read), for the compile tests.
const char* l2_read_source();

class L2Flush {
 public:
  // Compiles the read kernel for `arch` (throws std::runtime_error with NVRTC's log on failure)
  // and allocates `bytes` (at least 16).
  static L2Flush create(const toolchain::Nvrtc& nvrtc, const std::string& arch, std::size_t bytes,
                        int sm_count);
  // Queues the flush on the default stream; `round` varies the bytes written.
  void dirty(int round) const;
  void clean(int round) const;

 private:
  toolchain::DeviceMemory buffer_;
  toolchain::Module module_;
  CUfunction read_ = nullptr;
  int sm_count_ = 1;
};

}  // namespace ladder::bench
