// The fixed host program of every reproducer. It depends on nothing but NVRTC and the CUDA
// driver (opened with dlopen, so that the compile stage also reproduces on a machine without
// one); case.inc, written per case, holds the data.
#include "harness/repro/writer.h"

namespace ladder::repro {

std::string host_program_source() {
  return R"REPRO(// Standalone reproducer written by `ladder repro`. Build: ./build.sh; run: ./repro [sm_XX].
// It compiles each launch's source with NVRTC (the options ladder used), then, where a CUDA
// driver is present, allocates every buffer at its exact size, uploads the inputs ladder
// generated (data/*.bin), prefills outputs with 0xFE, launches, synchronizes, and checks that
// every output element was written and agrees with the fp64 reference (data/*.expected.f64).
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

enum Role { kInput, kOutput, kInOut, kScratch };
enum ArgKind { kBuffer, kI32, kI64, kU32, kF32, kF64 };
enum SourceKind { kCudaCpp, kPtx, kCubin };
struct BufferSpec { const char* name; size_t bytes; Role role; const char* alias; const char* file;
                    const char* dtype; long long rows, cols, stride; };
struct ArgSpec { ArgKind kind; const char* buffer; double value; };
struct LaunchSpec { const char* source; SourceKind kind; const char* entry; const char* const* options;
                    int n_options; unsigned grid[3], block[3], shared; const ArgSpec* args; int n_args; };
struct ExpectedSpec { const char* buffer; const char* file; double atol, rtol; };
#include "case.inc"

#define DRIVER(X) X(cuInit) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain) \
  X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleGetFunction) X(cuFuncSetAttribute) \
  X(cuMemAlloc_v2) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemsetD8_v2) X(cuLaunchKernel) X(cuGetErrorName)
#define DECLARE(f) static decltype(&f) p_##f;
DRIVER(DECLARE)

static std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) { std::fprintf(stderr, "REPRO: cannot read %s\n", path.c_str()); std::exit(2); }
  return std::string(std::istreambuf_iterator<char>(in), {});
}
static const char* err(CUresult r) { const char* s = "?"; if (p_cuGetErrorName) p_cuGetErrorName(r, &s); return s; }
static void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) { std::printf("REPRO: %s failed: %s\n", what, err(r)); std::exit(1); }
}
static double decode(const char* dtype, const unsigned char* p) {
  const std::string t = dtype;
  if (t == "f32") { float f; std::memcpy(&f, p, 4); return f; }
  if (t == "f64") { double d; std::memcpy(&d, p, 8); return d; }
  if (t == "i32") { int32_t i; std::memcpy(&i, p, 4); return i; }
  if (t == "u32") { uint32_t u; std::memcpy(&u, p, 4); return u; }
  if (t == "i64") { int64_t i; std::memcpy(&i, p, 8); return double(i); }
  if (t == "u8") return *p;
  uint16_t h; std::memcpy(&h, p, 2);
  if (t == "bf16") { uint32_t u = uint32_t(h) << 16; float f; std::memcpy(&f, &u, 4); return f; }
  const int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;  // f16
  const double v = exp == 0 ? std::ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : std::ldexp(man + 1024, exp - 25);
  return sign ? -v : v;
}
static size_t dtype_size(const char* t) {
  const std::string s = t;
  return (s == "f64" || s == "i64") ? 8 : (s == "f16" || s == "bf16") ? 2 : s == "u8" ? 1 : 4;
}

int main(int argc, char** argv) {
  std::printf("reproducer of %s, case %s\n", REPRO_RUNG, REPRO_CASE);
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  int major = 9, minor = 0;
  CUdevice dev = 0;
  if (cuda) {
#define BIND(f) p_##f = reinterpret_cast<decltype(&f)>(dlsym(cuda, #f));
    DRIVER(BIND)
    if (p_cuInit(0) != CUDA_SUCCESS) cuda = nullptr;
  }
  if (cuda) {
    check(p_cuDeviceGet(&dev, 0), "cuDeviceGet");
    p_cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    p_cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  }
  std::string arch = argc > 1 ? argv[1] : "sm_" + std::to_string(major * 10 + minor);
  const char* cuda_home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda";

  std::vector<std::string> images, lowered;
  for (const LaunchSpec& l : kLaunches) {
    if (l.kind != kCudaCpp) { images.push_back(read_file(l.source)); lowered.push_back(l.entry); continue; }
    const std::string src = read_file(l.source);
    nvrtcProgram prog;
    nvrtcCreateProgram(&prog, src.c_str(), l.source, 0, nullptr, nullptr);
    nvrtcAddNameExpression(prog, l.entry);
    std::vector<std::string> opts{"--gpu-architecture=" + arch, std::string("-I") + cuda_home + "/include",
                                  std::string("-I") + cuda_home + "/include/cccl", "-Ikernels", "-Isrc"};
    for (int i = 0; i < l.n_options; ++i) opts.push_back(l.options[i]);
    std::vector<const char*> argv_opts;
    for (auto& o : opts) argv_opts.push_back(o.c_str());
    const nvrtcResult rc = nvrtcCompileProgram(prog, int(argv_opts.size()), argv_opts.data());
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    if (rc != NVRTC_SUCCESS) {
      std::printf("REPRO: NVRTC failed to compile %s (%s) for %s: %s\n%s\n", l.source, l.entry, arch.c_str(),
                  nvrtcGetErrorString(rc), log.c_str());
      return 1;
    }
    const char* name = nullptr;
    nvrtcGetLoweredName(prog, l.entry, &name);
    lowered.push_back(name);
    size_t size = 0;
    nvrtcGetCUBINSize(prog, &size);
    std::string cubin(size, '\0');
    nvrtcGetCUBIN(prog, cubin.data());
    images.push_back(cubin);
    std::printf("compiled %s for %s: %zu bytes\n", l.entry, arch.c_str(), size);
  }
  if (!cuda) {
    std::printf("REPRO: no CUDA driver or device here; the compile stage above is all that ran\n");
    return 3;
  }

  CUcontext ctx;
  check(p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  const int n_buffers = int(sizeof(kBuffers) / sizeof(kBuffers[0]));
  std::vector<CUdeviceptr> ptr(n_buffers, 0);
  auto index_of = [&](const char* name) {
    for (int i = 0; i < n_buffers; ++i) if (!std::strcmp(kBuffers[i].name, name)) return i;
    std::fprintf(stderr, "REPRO: no buffer %s\n", name); std::exit(2);
  };
  for (int i = 0; i < n_buffers; ++i) {
    const BufferSpec& b = kBuffers[i];
    if (*b.alias) continue;
    check(p_cuMemAlloc_v2(&ptr[i], b.bytes ? b.bytes : 1), "cuMemAlloc");
    if (*b.file) {
      const std::string data = read_file(b.file);
      check(p_cuMemcpyHtoD_v2(ptr[i], data.data(), data.size()), "cuMemcpyHtoD");
    } else if (b.bytes) {
      check(p_cuMemsetD8_v2(ptr[i], 0xFE, b.bytes), "cuMemsetD8");
    }
  }
  for (int i = 0; i < n_buffers; ++i) if (*kBuffers[i].alias) ptr[i] = ptr[index_of(kBuffers[i].alias)];

  for (size_t k = 0; k < images.size(); ++k) {
    const LaunchSpec& l = kLaunches[k];
    CUmodule mod;
    CUfunction fn;
    check(p_cuModuleLoadData(&mod, images[k].data()), "cuModuleLoadData");
    check(p_cuModuleGetFunction(&fn, mod, lowered[k].c_str()), "cuModuleGetFunction");
    std::vector<uint64_t> slots(l.n_args, 0);  // each parameter's bytes, 8-byte aligned
    std::vector<void*> params;
    for (int a = 0; a < l.n_args; ++a) {
      const ArgSpec& s = l.args[a];
      void* p = &slots[a];
      if (s.kind == kBuffer) { CUdeviceptr d = ptr[index_of(s.buffer)]; std::memcpy(p, &d, 8); }
      if (s.kind == kI32) { int32_t v = int32_t(s.value); std::memcpy(p, &v, 4); }
      if (s.kind == kI64) { int64_t v = int64_t(s.value); std::memcpy(p, &v, 8); }
      if (s.kind == kU32) { uint32_t v = uint32_t(s.value); std::memcpy(p, &v, 4); }
      if (s.kind == kF32) { float v = float(s.value); std::memcpy(p, &v, 4); }
      if (s.kind == kF64) { double v = s.value; std::memcpy(p, &v, 8); }
      params.push_back(p);
    }
    if (!l.grid[0] || !l.grid[1] || !l.grid[2]) continue;  // an empty grid: nothing to launch
    if (l.shared) check(p_cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(l.shared)), "cuFuncSetAttribute");
    check(p_cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared,
                           nullptr, params.data(), nullptr), "cuLaunchKernel");
    check(p_cuCtxSynchronize(), "cuCtxSynchronize after the launch");
  }
  std::printf("launched and synchronized\n");

  bool ok = true;
  for (int i = 0; i < n_buffers; ++i) {
    const BufferSpec& b = kBuffers[i];
    if (*b.alias || b.role == kInput || b.role == kScratch) continue;
    std::vector<unsigned char> got(b.bytes);
    if (b.bytes) check(p_cuMemcpyDtoH_v2(got.data(), ptr[i], b.bytes), "cuMemcpyDtoH");
    std::ofstream(std::string("data/") + b.name + ".got.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(got.data()), std::streamsize(got.size()));
    const size_t es = dtype_size(b.dtype);
    long long unwritten = 0;
    std::vector<double> values;
    for (long long r = 0; r < b.rows; ++r)
      for (long long c = 0; c < b.cols; ++c) {
        const unsigned char* p = got.data() + (r * b.stride + c) * es;
        bool all_fe = b.role == kOutput;
        for (size_t j = 0; j < es && all_fe; ++j) all_fe = p[j] == 0xFE;
        unwritten += all_fe;
        values.push_back(decode(b.dtype, p));
      }
    std::printf("%s: %lld of %lld elements still hold the 0xFE prefill%s\n", b.name, unwritten, b.rows * b.cols,
                b.role == kOutput ? "" : " (not checked: an in-out buffer)");
    if (unwritten) ok = false;
    for (const ExpectedSpec& e : kExpected) {
      if (std::strcmp(e.buffer, b.name)) continue;
      const std::string raw = read_file(e.file);
      std::vector<double> ref(raw.size() / 8);
      std::memcpy(ref.data(), raw.data(), ref.size() * 8);
      long long over = 0, worst_at = -1;
      double worst = 0;
      for (size_t k = 0; k < ref.size() && k < values.size(); ++k) {
        if (std::isnan(ref[k]) && std::isnan(values[k])) continue;
        const double error = std::fabs(values[k] - ref[k]);
        const bool bad = !(error <= e.atol + e.rtol * std::fabs(ref[k]));  // NaN counts as over
        over += bad;
        if (worst_at < 0 || !(error <= worst)) { worst = error; worst_at = (long long)k; }
      }
      std::printf("%s: %lld of %zu elements over their bound; worst |err| %.3g at flat index %lld\n", b.name, over,
                  ref.size(), worst, worst_at);
      if (over) ok = false;
    }
  }
  std::printf("REPRO: %s\n", ok ? "every output written and within bounds" : "FAILED (see above)");
  return ok ? 0 : 1;
}
)REPRO";
}

}  // namespace ladder::repro
