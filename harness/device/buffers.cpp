#include "harness/device/buffers.h"

#include <stdexcept>

#include <fmt/format.h>

namespace ladder {
using toolchain::check;
using toolchain::driver;

std::size_t storage_bytes(const ConcreteBuffer& b) {
  return static_cast<std::size_t>(b.storage_elements()) * size_of(b.dtype);
}

DeviceBuffers::DeviceBuffers(const std::vector<ConcreteBuffer>& specs, std::size_t redzone_bytes)
    : redzone_bytes_(redzone_bytes) {
  // Storage stays 256-byte aligned, as cuMemAlloc's own pointers are.
  if (redzone_bytes % 256 != 0) throw std::invalid_argument("redzone bytes must be a multiple of 256");
  for (const auto& b : specs) {
    Slot s;
    s.spec = b;
    s.storage_bytes = storage_bytes(b);
    if (b.alias_of.empty()) s.memory = toolchain::DeviceMemory::allocate(s.storage_bytes + 2 * redzone_bytes_);
    slots_.emplace(b.name, std::move(s));
  }
  for (const auto& [name, s] : slots_) {
    if (s.spec.alias_of.empty()) continue;
    const Slot& target = slot(s.spec.alias_of);
    if (!target.spec.alias_of.empty() || s.storage_bytes > target.storage_bytes)
      throw std::invalid_argument(fmt::format("buffer {} aliases {}, which is itself an alias or smaller", name, s.spec.alias_of));
  }
}

const DeviceBuffers::Slot& DeviceBuffers::slot(const std::string& name) const {
  auto it = slots_.find(name);
  if (it == slots_.end()) throw std::out_of_range("no buffer named " + name);
  return it->second;
}

CUdeviceptr DeviceBuffers::pointer(const std::string& name) const {
  const Slot& s = slot(name);
  if (!s.spec.alias_of.empty()) return pointer(s.spec.alias_of);
  return s.memory.get() + redzone_bytes_;
}

const ConcreteBuffer& DeviceBuffers::spec(const std::string& name) const { return slot(name).spec; }

std::size_t DeviceBuffers::bytes_allocated() const {
  std::size_t n = 0;
  for (const auto& [name, s] : slots_) n += s.memory.size();
  return n;
}

void DeviceBuffers::prepare(const std::map<std::string, std::vector<std::byte>>& host_inputs, std::byte sentinel) {
  const auto& api = *driver();
  for (const auto& [name, s] : slots_) {
    if (!s.spec.alias_of.empty()) continue;
    const CUdeviceptr base = s.memory.get();
    if (redzone_bytes_)
      check(api.MemsetD8(base, static_cast<unsigned char>(kRedzoneFill), s.memory.size()), "cuMemsetD8 (redzones)");
    const bool uploaded = s.spec.role == BufferRole::Input || s.spec.role == BufferRole::InOut;
    if (uploaded) {
      auto it = host_inputs.find(name);
      if (it == host_inputs.end() || it->second.size() != s.storage_bytes)
        throw std::logic_error("no host data of the right size for buffer " + name);
      if (s.storage_bytes)
        check(api.MemcpyHtoD(base + redzone_bytes_, it->second.data(), s.storage_bytes), "cuMemcpyHtoD");
    } else if (s.storage_bytes) {
      check(api.MemsetD8(base + redzone_bytes_, static_cast<unsigned char>(sentinel), s.storage_bytes),
            "cuMemsetD8 (sentinel)");
    }
  }
}

std::map<std::string, Readback> DeviceBuffers::read_all() const {
  const auto& api = *driver();
  std::map<std::string, Readback> out;
  for (const auto& [name, s] : slots_) {
    if (!s.spec.alias_of.empty()) continue;
    std::vector<std::byte> all(s.memory.size());
    if (!all.empty()) check(api.MemcpyDtoH(all.data(), s.memory.get(), all.size()), "cuMemcpyDtoH");
    const auto zone = static_cast<long>(redzone_bytes_), storage = static_cast<long>(s.storage_bytes);
    Readback r;
    r.front.assign(all.begin(), all.begin() + zone);
    r.storage.assign(all.begin() + zone, all.begin() + zone + storage);
    r.back.assign(all.begin() + zone + storage, all.end());
    out.emplace(name, std::move(r));
  }
  return out;
}

}  // namespace ladder
