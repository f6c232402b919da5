// How many blocks of a launch an SM holds at once, what limits it, and how many rounds (waves)
// of the device's SMs its grid takes: the "registers, occupancy, waves" behind a kernel's
// bandwidth. The rules of the CUDA occupancy calculator for sm_80 and sm_90: registers are given
// a warp at a time in units of 256 from each of the SM's four sub-partitions (16384 a
// sub-partition), shared memory in units of 128 bytes plus the runtime's 1 KiB a block, at most
// 32 blocks and max_threads_per_sm threads an SM.
#pragma once
#include <cstdint>
#include <string>

#include "harness/kernels/device_limits.h"

namespace ladder::kernels {

struct Occupancy {
  int blocks_per_sm = 0;   // 0: the block can never be resident (too many registers or bytes)
  std::string limited_by;  // "threads", "registers", "shared memory" or "blocks"
  double waves = 0;        // grid blocks / (blocks_per_sm * SMs); 0 where blocks_per_sm is 0
};

// threads: a block's; registers: a thread's; shared_bytes: a block's static plus dynamic.
Occupancy occupancy(const DeviceLimits& device, std::int64_t threads, int registers,
                    std::int64_t shared_bytes, std::int64_t grid_blocks);

}  // namespace ladder::kernels
