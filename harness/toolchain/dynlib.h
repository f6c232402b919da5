// A move-only handle to a library opened with dlopen. The driver and NVRTC come through here so
// that a machine without them still runs the binary, and `--nvrtc PATH` can swap the compiler.
#pragma once
#include <string>

namespace ladder::toolchain {

class DynLib {
 public:
  DynLib() = default;
  static DynLib open(const std::string& path);  // check ok() / error() afterwards
  ~DynLib();
  DynLib(DynLib&& other) noexcept;
  DynLib& operator=(DynLib&& other) noexcept;
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

  void* symbol(const char* name) const;  // nullptr when missing
  template <class Fn>
  bool bind(Fn& fn, const char* name) const {
    fn = reinterpret_cast<Fn>(symbol(name));
    return fn != nullptr;
  }

 private:
  void* handle_ = nullptr;
  std::string path_, error_;
};

}  // namespace ladder::toolchain
