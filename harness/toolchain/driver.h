// The CUDA driver API, opened at run time from libcuda.so.1, and move-only owners for its
// objects. Only child processes call into it: the parent never initializes CUDA.
#pragma once
#include <cuda.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ladder::toolchain {

struct DriverApi {
  CUresult (*Init)(unsigned) = nullptr;
  CUresult (*DriverGetVersion)(int*) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*ModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*ModuleUnload)(CUmodule) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*FuncSetAttribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*FuncGetAttribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemGetInfo)(std::size_t*, std::size_t*) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream) = nullptr;
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, std::size_t) = nullptr;
  CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream) = nullptr;
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void**, void**) = nullptr;
  // Optional (null where the driver lacks it): launch() then falls back to LaunchKernel.
  CUresult (*LaunchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
  CUresult (*EventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*GetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char**) = nullptr;
  // Optional (null where the driver lacks them, before CUDA 12.4): green contexts, which give a
  // context a share of the SMs (Context::create's `sms`).
  CUresult (*DeviceGetDevResource)(CUdevice, CUdevResource*, CUdevResourceType) = nullptr;
  CUresult (*DevSmResourceSplitByCount)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned,
                                        unsigned) = nullptr;
  CUresult (*DevResourceGenerateDesc)(CUdevResourceDesc*, CUdevResource*, unsigned) = nullptr;
  CUresult (*GreenCtxCreate)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned) = nullptr;
  CUresult (*GreenCtxDestroy)(CUgreenCtx) = nullptr;
  CUresult (*CtxFromGreenCtx)(CUcontext*, CUgreenCtx) = nullptr;
};

// The process-wide driver table; nullptr when libcuda.so.1 is absent or incomplete, and then
// driver_load_error() says why. Loading it does not call cuInit.
const DriverApi* driver();
const std::string& driver_load_error();

std::string error_name(CUresult rc);    // "CUDA_ERROR_ILLEGAL_ADDRESS"
std::string error_string(CUresult rc);  // the driver's sentence

// How a launch is made beyond its geometry.
// programmatic: the launch may begin while the previous one in the stream drains (programmatic
// dependent launch, sm_90 and later); the kernel must wait (griddepcontrol.wait) before it reads
// what that launch wrote. Where the driver or device lacks it the launch is an ordinary one,
// which is also correct.
// cooperative: every block of the grid resident at once (a kernel with a grid-wide barrier); the
// launch fails (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) rather than start a grid that could
// deadlock, and is refused (CUDA_ERROR_NOT_SUPPORTED) where the driver lacks cuLaunchKernelEx.
struct LaunchFlags {
  bool programmatic = false;
  bool cooperative = false;
};

// One kernel launch on the default stream.
CUresult launch(CUfunction fn, const std::array<std::uint32_t, 3>& grid, const std::array<std::uint32_t, 3>& block,
                std::uint32_t shared_bytes, void** params, LaunchFlags flags = {});

// A failed driver call: which call, which code. Thrown only inside child processes.
class DriverError : public std::runtime_error {
 public:
  DriverError(const std::string& call, CUresult rc);
  std::string call;
  CUresult code;
  std::string name;
};
void check(CUresult rc, const char* call);  // throws DriverError unless CUDA_SUCCESS

// Errors after which the context is unusable: the rest of the cases need a fresh process.
bool is_sticky(CUresult rc);

struct DeviceInfo {
  std::string name;
  // sm_count: the SMs the context may run on, which the planner sizes resident grids for;
  // device_sm_count: the device's. They differ only in a context given a share of the SMs.
  int ordinal = 0, cc_major = 0, cc_minor = 0, sm_count = 0, device_sm_count = 0, driver_version = 0;
  int max_threads_per_block = 0, l2_bytes = 0;
  // The SMs' and the DRAM's peak clocks (kHz) and the DRAM's bus (bits): its peak bytes a cycle
  // of an SM (kernels::DeviceLimits::from).
  int clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;
  // What the kernel planner sizes staged shared memory and resident grids from
  // (kernels::DeviceLimits::from): the most one block may opt into, the SM's whole pool
  // (which also holds each block's 1 KiB runtime reservation), and resident threads.
  int shared_per_block_optin = 0, shared_per_sm = 0, max_threads_per_sm = 0;
  std::size_t total_memory = 0;
  std::string arch() const;  // "sm_90"
};

// cuInit + a context of one device, made current: the primary context, or with `sms` > 0 a green
// context on that many of the SMs, rounded up to the device's partition granularity (8 on
// sm_90). Why: an H100 given 0.70 of its SMs has an H200's SM cycles for each byte of DRAM
// traffic, so the kernels that an H200 holds by issue rate can be timed on an H100 (the driver
// may still run a launch on more SMs than provisioned under MPS or after a module with dynamic
// parallelism: cuda.h's green-context notes). Releases or destroys it on destruction.
class Context {
 public:
  static Context create(int ordinal = 0, int sms = 0);  // throws DriverError or std::runtime_error
  Context() = default;
  ~Context();
  Context(Context&& o) noexcept;
  Context& operator=(Context&& o) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  const DeviceInfo& device() const { return info_; }

 private:
  CUdevice dev_ = 0;
  bool held_ = false;           // the primary context, retained
  CUgreenCtx green_ = nullptr;  // or a green context, owned
  DeviceInfo info_;
};

class Module {
 public:
  static Module load(const std::string& image);  // throws DriverError
  Module() = default;
  ~Module();
  Module(Module&& o) noexcept;
  Module& operator=(Module&& o) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  CUfunction function(const std::string& lowered_name) const;  // throws DriverError

 private:
  CUmodule mod_ = nullptr;
};

class DeviceMemory {
 public:
  static DeviceMemory allocate(std::size_t bytes);  // throws DriverError
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& o) noexcept;
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  CUdeviceptr get() const { return ptr_; }
  std::size_t size() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

class Event {
 public:
  static Event create();  // throws DriverError
  Event() = default;
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record() const;
  static float elapsed_ms(const Event& start, const Event& stop);  // synchronizes on stop

 private:
  CUevent ev_ = nullptr;
};

}  // namespace ladder::toolchain
