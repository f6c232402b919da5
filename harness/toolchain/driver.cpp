#include "harness/toolchain/driver.h"

#include <mutex>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "harness/toolchain/dynlib.h"

namespace ladder::toolchain {
namespace {

struct Loaded {
  DynLib lib;
  DriverApi api;
  std::string error;
  bool ok = false;
};

Loaded& loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    l.lib = DynLib::open("libcuda.so.1");
    if (!l.lib.ok()) {
      l.error = "no CUDA driver (" + l.lib.error() + ")";
      return;
    }
    auto& a = l.api;
    const auto& d = l.lib;
    // Versioned names are the ones cuda.h maps the plain names to.
    l.ok = d.bind(a.Init, "cuInit") && d.bind(a.DriverGetVersion, "cuDriverGetVersion") &&
           d.bind(a.DeviceGetCount, "cuDeviceGetCount") && d.bind(a.DeviceGet, "cuDeviceGet") &&
           d.bind(a.DeviceGetName, "cuDeviceGetName") &&
           d.bind(a.DeviceGetAttribute, "cuDeviceGetAttribute") &&
           d.bind(a.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
           d.bind(a.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
           d.bind(a.CtxSetCurrent, "cuCtxSetCurrent") && d.bind(a.CtxSynchronize, "cuCtxSynchronize") &&
           d.bind(a.ModuleLoadData, "cuModuleLoadData") && d.bind(a.ModuleUnload, "cuModuleUnload") &&
           d.bind(a.ModuleGetFunction, "cuModuleGetFunction") &&
           d.bind(a.FuncSetAttribute, "cuFuncSetAttribute") &&
           d.bind(a.FuncGetAttribute, "cuFuncGetAttribute") &&
           d.bind(a.MemAlloc, "cuMemAlloc_v2") && d.bind(a.MemFree, "cuMemFree_v2") &&
           d.bind(a.MemGetInfo, "cuMemGetInfo_v2") && d.bind(a.MemcpyHtoD, "cuMemcpyHtoD_v2") &&
           d.bind(a.MemcpyDtoH, "cuMemcpyDtoH_v2") && d.bind(a.MemcpyDtoD, "cuMemcpyDtoD_v2") &&
           d.bind(a.MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2") &&
           d.bind(a.MemsetD8, "cuMemsetD8_v2") && d.bind(a.MemsetD8Async, "cuMemsetD8Async") &&
           d.bind(a.LaunchKernel, "cuLaunchKernel") && d.bind(a.EventCreate, "cuEventCreate") &&
           d.bind(a.EventDestroy, "cuEventDestroy_v2") && d.bind(a.EventRecord, "cuEventRecord") &&
           d.bind(a.EventSynchronize, "cuEventSynchronize") &&
           d.bind(a.GetErrorName, "cuGetErrorName") && d.bind(a.GetErrorString, "cuGetErrorString");
    d.bind(a.LaunchKernelEx, "cuLaunchKernelEx");  // optional: null where the driver lacks it
    d.bind(a.DeviceGetDevResource, "cuDeviceGetDevResource");  // optional, as the five below
    d.bind(a.DevSmResourceSplitByCount, "cuDevSmResourceSplitByCount");
    d.bind(a.DevResourceGenerateDesc, "cuDevResourceGenerateDesc");
    d.bind(a.GreenCtxCreate, "cuGreenCtxCreate");
    d.bind(a.GreenCtxDestroy, "cuGreenCtxDestroy");
    d.bind(a.CtxFromGreenCtx, "cuCtxFromGreenCtx");
    if (!d.bind(a.EventElapsedTime, "cuEventElapsedTime_v2"))
      d.bind(a.EventElapsedTime, "cuEventElapsedTime");
    if (!l.ok || !a.EventElapsedTime) {
      l.ok = false;
      l.error = "libcuda.so.1 lacks a required driver entry point";
    }
  });
  return l;
}

const DriverApi& api() { return loaded().api; }

}  // namespace

const DriverApi* driver() { return loaded().ok ? &loaded().api : nullptr; }
const std::string& driver_load_error() { return loaded().error; }

CUresult launch(CUfunction fn, const std::array<std::uint32_t, 3>& grid, const std::array<std::uint32_t, 3>& block,
                std::uint32_t shared_bytes, void** params, LaunchFlags flags) {
  const DriverApi& a = api();
  if (flags.cooperative && a.LaunchKernelEx == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  if ((!flags.programmatic && !flags.cooperative) || a.LaunchKernelEx == nullptr)
    return a.LaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                          shared_bytes, nullptr, params, nullptr);
  std::array<CUlaunchAttribute, 2> attrs{};
  unsigned count = 0;
  if (flags.programmatic) {
    attrs[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (flags.cooperative) {
    attrs[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[count++].value.cooperative = 1;
  }
  CUlaunchConfig config{};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = shared_bytes;
  config.hStream = nullptr;
  config.attrs = attrs.data();
  config.numAttrs = count;
  return a.LaunchKernelEx(&config, fn, params, nullptr);
}

std::string error_name(CUresult rc) {
  const char* s = nullptr;
  if (driver() && api().GetErrorName(rc, &s) == CUDA_SUCCESS && s) return s;
  return fmt::format("CUresult {}", static_cast<int>(rc));
}

std::string error_string(CUresult rc) {
  const char* s = nullptr;
  if (driver() && api().GetErrorString(rc, &s) == CUDA_SUCCESS && s) return s;
  return error_name(rc);
}

DriverError::DriverError(const std::string& c, CUresult rc)
    : std::runtime_error(fmt::format("{}: {} ({})", c, error_name(rc), error_string(rc))),
      call(c), code(rc), name(error_name(rc)) {}

void check(CUresult rc, const char* call) {
  if (rc != CUDA_SUCCESS) throw DriverError(call, rc);
}

bool is_sticky(CUresult rc) {
  switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

std::string DeviceInfo::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

namespace {

// A green context on `sms` of the device's SMs (rounded up by the driver), and its SM count.
std::pair<CUgreenCtx, int> green_context(CUdevice dev, int sms) {
  const auto& a = api();
  if (!a.DeviceGetDevResource || !a.DevSmResourceSplitByCount || !a.DevResourceGenerateDesc ||
      !a.GreenCtxCreate || !a.GreenCtxDestroy || !a.CtxFromGreenCtx)
    throw std::runtime_error("a share of the SMs needs green contexts, which this CUDA driver lacks (12.4 or later has them)");
  CUdevResource all{};
  check(a.DeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
  if (sms > static_cast<int>(all.sm.smCount))
    throw std::runtime_error(fmt::format("{} SMs asked for; the device has {}", sms, all.sm.smCount));
  CUdevResource part{}, rest{};
  unsigned groups = 1;
  check(a.DevSmResourceSplitByCount(&part, &groups, &all, &rest, 0, static_cast<unsigned>(sms)),
        "cuDevSmResourceSplitByCount");
  if (groups != 1)
    throw std::runtime_error(fmt::format("no partition of {} SMs: the device's {} SMs split in partitions of at least {}, "
                                         "a multiple of {}", sms, all.sm.smCount, all.sm.minSmPartitionSize,
                                         all.sm.smCoscheduledAlignment));
  CUdevResourceDesc desc = nullptr;
  check(a.DevResourceGenerateDesc(&desc, &part, 1), "cuDevResourceGenerateDesc");
  CUgreenCtx green = nullptr;
  check(a.GreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
  return {green, static_cast<int>(part.sm.smCount)};
}

}  // namespace

Context Context::create(int ordinal, int sms) {
  if (!driver()) throw std::runtime_error(driver_load_error());
  const auto& a = api();
  check(a.Init(0), "cuInit");
  Context c;
  check(a.DeviceGet(&c.dev_, ordinal), "cuDeviceGet");
  CUcontext ctx = nullptr;
  int green_sms = 0;
  if (sms > 0) {
    std::tie(c.green_, green_sms) = green_context(c.dev_, sms);
    check(a.CtxFromGreenCtx(&ctx, c.green_), "cuCtxFromGreenCtx");
  } else {
    check(a.DevicePrimaryCtxRetain(&ctx, c.dev_), "cuDevicePrimaryCtxRetain");
    c.held_ = true;
  }
  check(a.CtxSetCurrent(ctx), "cuCtxSetCurrent");
  char name[256] = {};
  a.DeviceGetName(name, sizeof name, c.dev_);
  auto attr = [&](CUdevice_attribute at) {
    int v = 0;
    a.DeviceGetAttribute(&v, at, c.dev_);
    return v;
  };
  c.info_.name = name;
  c.info_.ordinal = ordinal;
  c.info_.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  c.info_.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  c.info_.device_sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  c.info_.sm_count = green_sms > 0 ? green_sms : c.info_.device_sm_count;
  c.info_.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  c.info_.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  c.info_.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  c.info_.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  c.info_.memory_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  c.info_.shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  c.info_.shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  c.info_.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  a.DriverGetVersion(&c.info_.driver_version);
  std::size_t free_bytes = 0;
  a.MemGetInfo(&free_bytes, &c.info_.total_memory);
  return c;
}

Context::~Context() {
  if (green_) {
    api().CtxSetCurrent(nullptr);
    api().GreenCtxDestroy(green_);
  }
  if (held_) api().DevicePrimaryCtxRelease(dev_);
}
Context::Context(Context&& o) noexcept
    : dev_(o.dev_), held_(std::exchange(o.held_, false)), green_(std::exchange(o.green_, nullptr)),
      info_(std::move(o.info_)) {}
Context& Context::operator=(Context&& o) noexcept {
  std::swap(dev_, o.dev_);
  std::swap(held_, o.held_);
  std::swap(green_, o.green_);
  std::swap(info_, o.info_);
  return *this;
}

Module Module::load(const std::string& image) {
  Module m;
  check(api().ModuleLoadData(&m.mod_, image.c_str()), "cuModuleLoadData");
  return m;
}
Module::~Module() {
  if (mod_) api().ModuleUnload(mod_);
}
Module::Module(Module&& o) noexcept : mod_(std::exchange(o.mod_, nullptr)) {}
Module& Module::operator=(Module&& o) noexcept {
  std::swap(mod_, o.mod_);
  return *this;
}
CUfunction Module::function(const std::string& lowered_name) const {
  CUfunction f = nullptr;
  check(api().ModuleGetFunction(&f, mod_, lowered_name.c_str()), "cuModuleGetFunction");
  return f;
}

DeviceMemory DeviceMemory::allocate(std::size_t bytes) {
  DeviceMemory m;
  check(api().MemAlloc(&m.ptr_, bytes == 0 ? 1 : bytes), "cuMemAlloc");
  m.bytes_ = bytes;
  return m;
}
DeviceMemory::~DeviceMemory() {
  if (ptr_) api().MemFree(ptr_);
}
DeviceMemory::DeviceMemory(DeviceMemory&& o) noexcept
    : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

Event Event::create() {
  Event e;
  check(api().EventCreate(&e.ev_, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}
Event::~Event() {
  if (ev_) api().EventDestroy(ev_);
}
Event::Event(Event&& o) noexcept : ev_(std::exchange(o.ev_, nullptr)) {}
Event& Event::operator=(Event&& o) noexcept {
  std::swap(ev_, o.ev_);
  return *this;
}
void Event::record() const { check(api().EventRecord(ev_, nullptr), "cuEventRecord"); }
float Event::elapsed_ms(const Event& start, const Event& stop) {
  check(api().EventSynchronize(stop.ev_), "cuEventSynchronize");
  float ms = 0;
  check(api().EventElapsedTime(&ms, start.ev_, stop.ev_), "cuEventElapsedTime");
  return ms;
}

}  // namespace ladder::toolchain
