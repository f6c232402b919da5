#include "harness/toolchain/nvrtc.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "harness/toolchain/dynlib.h"
#include "harness/toolchain/paths.h"

namespace ladder::toolchain {
namespace {

struct NvrtcApi {
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*GetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*GetSupportedArchs)(int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*AddNameExpression)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*GetLoweredName)(nvrtcProgram, const char*, const char**) = nullptr;
};

// Owns one nvrtcProgram; destroying it never throws.
class Program {
 public:
  Program(const NvrtcApi& api, nvrtcProgram p) : api_(api), prog_(p) {}
  ~Program() {
    if (prog_) api_.DestroyProgram(&prog_);
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return prog_; }

 private:
  const NvrtcApi& api_;
  nvrtcProgram prog_;
};

}  // namespace

bool has_std_option(const std::vector<std::string>& opts) {
  for (const auto& o : opts)
    if (o.rfind("-std", 0) == 0 || o.rfind("--std", 0) == 0) return true;
  return false;
}

struct Nvrtc::Impl {
  DynLib lib;
  NvrtcApi api;
  std::string error;
  NvrtcVersion version;
};

Nvrtc::Nvrtc(const std::string& library_path) : impl_(std::make_unique<Impl>()) {
  std::vector<std::string> candidates;
  if (!library_path.empty()) candidates.push_back(library_path);
  else candidates = default_nvrtc_candidates();
  for (const auto& c : candidates) {
    impl_->lib = DynLib::open(c);
    if (impl_->lib.ok()) break;
  }
  if (!impl_->lib.ok()) {
    impl_->error = fmt::format("cannot open NVRTC ({})", impl_->lib.error());
    return;
  }
  auto& a = impl_->api;
  const auto& l = impl_->lib;
  bool ok = l.bind(a.GetErrorString, "nvrtcGetErrorString") && l.bind(a.Version, "nvrtcVersion") &&
            l.bind(a.CreateProgram, "nvrtcCreateProgram") &&
            l.bind(a.DestroyProgram, "nvrtcDestroyProgram") &&
            l.bind(a.CompileProgram, "nvrtcCompileProgram") &&
            l.bind(a.GetPTXSize, "nvrtcGetPTXSize") && l.bind(a.GetPTX, "nvrtcGetPTX") &&
            l.bind(a.GetProgramLogSize, "nvrtcGetProgramLogSize") &&
            l.bind(a.GetProgramLog, "nvrtcGetProgramLog") &&
            l.bind(a.AddNameExpression, "nvrtcAddNameExpression") &&
            l.bind(a.GetLoweredName, "nvrtcGetLoweredName");
  // Optional across versions: cubin output (11.1+) and the supported-arch query (11.2+).
  l.bind(a.GetCUBINSize, "nvrtcGetCUBINSize");
  l.bind(a.GetCUBIN, "nvrtcGetCUBIN");
  l.bind(a.GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  l.bind(a.GetSupportedArchs, "nvrtcGetSupportedArchs");
  if (!ok) {
    impl_->error = fmt::format("{} lacks a required NVRTC entry point", l.path());
    impl_->lib = DynLib();
    return;
  }
  a.Version(&impl_->version.major, &impl_->version.minor);
}

Nvrtc::~Nvrtc() = default;
Nvrtc::Nvrtc(Nvrtc&&) noexcept = default;
Nvrtc& Nvrtc::operator=(Nvrtc&&) noexcept = default;

std::optional<std::string> arch_number(const std::string& arch) {
  static const std::regex kArch("(?:sm|compute)_([0-9]{2,3}[af]?)");
  std::smatch m;
  if (!std::regex_match(arch, m, kArch)) return std::nullopt;
  return m[1].str();
}

bool Nvrtc::available() const { return impl_ && impl_->lib.ok(); }
void Nvrtc::require_available() const {
  if (!available()) throw std::runtime_error("NVRTC unavailable: " + load_error());
}
const std::string& Nvrtc::load_error() const { return impl_->error; }
const std::string& Nvrtc::library_path() const { return impl_->lib.path(); }
NvrtcVersion Nvrtc::version() const { return impl_->version; }

std::vector<std::string> Nvrtc::supported_archs() const {
  std::vector<std::string> out;
  const auto& a = impl_->api;
  int n = 0;
  if (!available() || !a.GetNumSupportedArchs || a.GetNumSupportedArchs(&n) != NVRTC_SUCCESS) return out;
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (a.GetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return out;
  for (int v : archs) out.push_back(fmt::format("sm_{}", v));
  return out;
}

CompileResult Nvrtc::compile(const CompileRequest& req) const {
  CompileResult r;
  r.kind = req.want;
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](std::string error) {
    r.error = std::move(error);
    r.ok = r.error.empty();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  if (!available()) return finish(load_error());
  const auto& a = impl_->api;

  // A PTX image needs a virtual arch; a cubin a real one. Accept either spelling from the user
  // (another spelling goes to NVRTC as given, which names it in its error).
  const auto number = arch_number(req.arch);
  const std::string arch_num = number ? *number : req.arch;
  if (req.want == ImageKind::Cubin && !a.GetCUBIN)
    return finish(fmt::format("NVRTC {}.{} cannot emit cubin", impl_->version.major, impl_->version.minor));
  r.options.push_back(fmt::format("--gpu-architecture={}_{}",
                                  req.want == ImageKind::Cubin ? "sm" : "compute", arch_num));
  for (const auto& inc : default_include_options()) r.options.push_back(inc);
  const auto dir = std::filesystem::path(req.source_path).parent_path();
  if (!dir.empty()) r.options.push_back("-I" + dir.string());
  if (!has_std_option(req.options)) r.options.push_back("-std=c++17");
  for (const auto& o : req.options) r.options.push_back(o);

  nvrtcProgram raw = nullptr;
  nvrtcResult rc = a.CreateProgram(&raw, req.source_text.c_str(), req.source_path.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) return finish(fmt::format("nvrtcCreateProgram: {}", a.GetErrorString(rc)));
  Program prog(a, raw);
  if (!req.entry.empty()) {
    rc = a.AddNameExpression(prog.get(), req.entry.c_str());
    if (rc != NVRTC_SUCCESS)
      return finish(fmt::format("nvrtcAddNameExpression({}): {}", req.entry, a.GetErrorString(rc)));
  }
  std::vector<const char*> argv;
  for (const auto& o : r.options) argv.push_back(o.c_str());
  const nvrtcResult compiled = a.CompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data());

  std::size_t log_size = 0;
  if (a.GetProgramLogSize(prog.get(), &log_size) == NVRTC_SUCCESS && log_size > 1) {
    r.log.resize(log_size);
    a.GetProgramLog(prog.get(), r.log.data());
    while (!r.log.empty() && (r.log.back() == '\0' || r.log.back() == '\n')) r.log.pop_back();
  }
  if (compiled != NVRTC_SUCCESS)
    return finish(fmt::format("nvrtcCompileProgram: {}", a.GetErrorString(compiled)));

  if (!req.entry.empty()) {
    const char* lowered = nullptr;
    rc = a.GetLoweredName(prog.get(), req.entry.c_str(), &lowered);
    if (rc != NVRTC_SUCCESS || !lowered)
      return finish(fmt::format("entry '{}' not found: {}", req.entry, a.GetErrorString(rc)));
    r.lowered_name = lowered;
  }
  std::size_t size = 0;
  if (req.want == ImageKind::Cubin) {
    rc = a.GetCUBINSize(prog.get(), &size);
    if (rc == NVRTC_SUCCESS) { r.image.resize(size); rc = a.GetCUBIN(prog.get(), r.image.data()); }
  } else {
    rc = a.GetPTXSize(prog.get(), &size);
    if (rc == NVRTC_SUCCESS) { r.image.resize(size); rc = a.GetPTX(prog.get(), r.image.data()); }
  }
  if (rc != NVRTC_SUCCESS) return finish(fmt::format("reading the image: {}", a.GetErrorString(rc)));
  return finish("");
}

}  // namespace ladder::toolchain
