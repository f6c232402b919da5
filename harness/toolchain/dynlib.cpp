#include "harness/toolchain/dynlib.h"

#include <dlfcn.h>

#include <utility>

namespace ladder::toolchain {

DynLib DynLib::open(const std::string& path) {
  DynLib lib;
  lib.path_ = path;
  lib.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle_) {
    const char* why = dlerror();
    lib.error_ = why ? why : ("cannot open " + path);
  }
  return lib;
}

DynLib::~DynLib() {
  // Unloading the driver while a context lives can crash at exit; the OS reclaims it anyway.
  // NVRTC is safe to close, but keeping one rule is simpler: libraries live until exit.
  handle_ = nullptr;
}

DynLib::DynLib(DynLib&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      error_(std::move(other.error_)) {}

DynLib& DynLib::operator=(DynLib&& other) noexcept {
  handle_ = std::exchange(other.handle_, nullptr);
  path_ = std::move(other.path_);
  error_ = std::move(other.error_);
  return *this;
}

void* DynLib::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

}  // namespace ladder::toolchain
