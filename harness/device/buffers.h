// Device buffers for one case: each allocation is [redzone | storage | redzone]. Outputs are
// prefilled with a sentinel, redzones with a fill pattern; everything is read back whole so the
// checks can see both what was written and what should not have been.
// Bare allocations (redzone_bytes 0, `--bare-allocations`) hold the storage alone, so an
// out-of-bounds checker such as compute-sanitizer memcheck sees each buffer's exact bounds: reads
// just past a buffer, which no value check can see, land outside its allocation.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "harness/ladder/launch.h"
#include "harness/toolchain/driver.h"

namespace ladder {

inline constexpr std::size_t kRedzoneBytes = 512;  // keeps storage 256-byte aligned

// Sentinels and the redzone fill. The two sentinels differ in every byte so an element that
// holds sentinel A after run A and sentinel B after run B was never written.
inline constexpr std::byte kSentinelA{0xFE};
inline constexpr std::byte kSentinelB{0x7B};
inline constexpr std::byte kRedzoneFill{0xA5};

struct Readback {
  std::vector<std::byte> front, storage, back;
};

class DeviceBuffers {
 public:
  // Allocates every non-alias buffer. Throws DriverError (out of memory, ...).
  explicit DeviceBuffers(const std::vector<ConcreteBuffer>& specs, std::size_t redzone_bytes = kRedzoneBytes);

  // Fills redzones, prefills outputs and scratch with `sentinel`, uploads inputs and in-outs.
  void prepare(const std::map<std::string, std::vector<std::byte>>& host_inputs, std::byte sentinel);
  // Reads every allocation back (after a synchronize).
  std::map<std::string, Readback> read_all() const;

  CUdeviceptr pointer(const std::string& name) const;  // aliases resolve to their target
  const ConcreteBuffer& spec(const std::string& name) const;
  std::size_t bytes_allocated() const;
  std::size_t redzone_bytes() const { return redzone_bytes_; }

 private:
  struct Slot {
    ConcreteBuffer spec;
    toolchain::DeviceMemory memory;  // empty for an alias
    std::size_t storage_bytes = 0;
  };
  const Slot& slot(const std::string& name) const;
  std::map<std::string, Slot> slots_;
  std::size_t redzone_bytes_;
};

std::size_t storage_bytes(const ConcreteBuffer& b);

}  // namespace ladder
