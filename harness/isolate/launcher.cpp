#include "harness/isolate/launcher.h"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "harness/checks/evaluate.h"
#include "harness/core/text.h"
#include "harness/device/buffers.h"
#include "harness/device/generators.h"

namespace ladder::isolate {
namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

const char* launch_call_name(const KernelLaunch& k) {
  return k.programmatic || k.cooperative ? "cuLaunchKernelEx" : "cuLaunchKernel";
}

CUresult launch_planned(CUfunction fn, const KernelLaunch& k, PackedParams& params,
                        const char** failed_call) {
  // Opt in to the dynamic shared memory whatever its size: past 48 KiB static plus dynamic
  // needs it, and the kernel's static share is not known here.
  if (k.shared_bytes > 0) {
    const CUresult rc = toolchain::driver()->FuncSetAttribute(
        fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(k.shared_bytes));
    if (rc != CUDA_SUCCESS) {
      if (failed_call != nullptr) *failed_call = "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)";
      return rc;
    }
  }
  const CUresult rc = toolchain::launch(fn, k.grid, k.block, k.shared_bytes, params.pointers.data(),
                                        {k.programmatic, k.cooperative});
  if (rc != CUDA_SUCCESS && failed_call != nullptr) *failed_call = launch_call_name(k);
  return rc;
}

void pack_params(const KernelLaunch& k, const DeviceBuffers& buffers, PackedParams& out) {
  out.slots.assign(k.args.size(), {});
  out.pointers.clear();
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const auto& a = k.args[i];
    unsigned char* s = out.slots[i].data();
    auto put = [&](auto x) { std::memcpy(s, &x, sizeof x); };
    if (a.is_buffer) {
      put(buffers.pointer(a.buffer));
      continue;
    }
    switch (a.type) {
      case DType::F32: put(static_cast<float>(a.value)); break;
      case DType::F64: put(a.value); break;
      case DType::I32: put(static_cast<std::int32_t>(a.value)); break;
      case DType::U32: put(static_cast<std::uint32_t>(a.value)); break;
      case DType::I64: put(static_cast<std::int64_t>(a.value)); break;
      default: throw std::invalid_argument(fmt::format("scalar arguments of type {} are not supported", label(a.type)));
    }
  }
  for (auto& slot : out.slots) out.pointers.push_back(slot.data());
}

ImageSet::ImageSet(const toolchain::Nvrtc& nvrtc, toolchain::CompileCache& cache, std::string arch, Reporter report)
    : nvrtc_(nvrtc), cache_(cache), arch_(std::move(arch)), report_(std::move(report)) {}

const CompiledImage& ImageSet::image(const KernelLaunch& k) {
  const Key key{k.source, k.entry, k.options};
  if (auto it = images_.find(key); it != images_.end()) return it->second;
  CompiledImage img;
  img.source = k.source;
  img.entry = k.entry;
  const auto t0 = Clock::now();
  if (k.source_kind == SourceKind::CudaCpp) {
    // No compiler is a toolchain problem, not the rung's compile error: the harness cannot decide.
    nvrtc_.require_available();
    toolchain::CompileRequest req;
    req.source_path = k.source;
    req.source_text = read_file(k.source, "source file");
    req.entry = k.entry;
    req.options = k.options;
    req.arch = arch_;
    const auto r = cache_.compile(nvrtc_, req);
    img.ok = r.ok;
    img.error = r.error;
    img.log = r.log;
    img.options = r.options;
    img.image = r.image;
    img.lowered_name = r.lowered_name;
    img.cache_hit = r.cache_hit;
    img.is_cubin = r.kind == toolchain::ImageKind::Cubin;
  } else {
    // PTX and cubin from any frontend are loaded as they are; the entry is already lowered.
    img.image = read_file(k.source, "source file");
    if (k.source_kind == SourceKind::Ptx) img.image.push_back('\0');
    img.is_cubin = k.source_kind == SourceKind::Cubin;
    img.lowered_name = k.entry;
    img.ok = true;
  }
  img.ms = ms_since(t0);
  auto& stored = images_.emplace(key, std::move(img)).first->second;
  if (report_) report_(stored);
  return stored;
}

CUfunction ImageSet::function(const KernelLaunch& k) {
  const Key key{k.source, k.entry, k.options};
  auto it = modules_.find(key);
  if (it == modules_.end()) it = modules_.emplace(key, toolchain::Module::load(image(k).image)).first;
  return it->second.function(image(k).lowered_name);
}

void run_case(const Rung& rung, const std::vector<KernelLaunch>& plans, ImageSet& images,
              const toolchain::Context* ctx, const std::string& no_device, std::size_t redzone_bytes,
              CaseResult& out, bool& sticky) {
  sticky = false;
  if (plans.empty()) throw std::logic_error("a case with no launches");
  const KernelLaunch& first = plans.front();

  // Stage: image.
  double compile_ms = 0;
  for (const auto& k : plans) {
    const auto& img = images.image(k);
    compile_ms += img.cache_hit ? 0 : img.ms;
    if (!img.ok) {
      out.stage = Stage::Source;
      out.failure = FailReason::Compile;
      out.evidence = img.error;
      out.ms["compile"] = compile_ms;
      return;
    }
  }
  out.stage = Stage::Image;
  out.ms["compile"] = compile_ms;
  if (!ctx) {
    out.skipped = true;
    out.evidence = no_device;
    return;
  }

  // Stage: load.
  auto t0 = Clock::now();
  std::vector<CUfunction> functions;
  try {
    for (const auto& k : plans) functions.push_back(images.function(k));
  } catch (const toolchain::DriverError& e) {
    out.failure = FailReason::Load;
    out.cuda_error = e.name;
    out.evidence = e.what();
    return;
  }
  out.ms["load"] = ms_since(t0);
  out.stage = Stage::Load;

  // Stage: buffers. Inputs are generated on the host in their dtype, so the oracle sees exactly
  // the values the device reads.
  t0 = Clock::now();
  const std::uint64_t case_seed = mix_seed(first.seed, shape_text(out.shape));
  const auto host_inputs = generate_inputs(first.buffers, [&](const ConcreteBuffer&) { return case_seed; });
  DeviceBuffers buffers(first.buffers, redzone_bytes);
  out.ms["buffers"] = ms_since(t0);
  out.stage = Stage::Buffers;

  const auto& api = *toolchain::driver();
  std::map<std::string, Readback> runs[2];
  double launch_ms = 0;
  for (int run = 0; run < 2; ++run) {
    buffers.prepare(host_inputs, run == 0 ? kSentinelA : kSentinelB);
    t0 = Clock::now();
    for (std::size_t p = 0; p < plans.size(); ++p) {
      const auto& k = plans[p];
      PackedParams params;
      pack_params(k, buffers, params);
      if (k.grid[0] == 0 || k.grid[1] == 0 || k.grid[2] == 0) continue;  // nothing to do (e.g. rows = 0)
      const CUresult rc = launch_planned(functions[p], k, params);
      if (rc != CUDA_SUCCESS) {
        out.failure = FailReason::Launch;
        out.cuda_error = toolchain::error_name(rc);
        out.evidence = fmt::format("{}({}, grid {}x{}x{}, block {}x{}x{}, {} B shared): {}",
                                   launch_call_name(k), k.entry,
                                   k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                                   k.shared_bytes, toolchain::error_string(rc));
        sticky = toolchain::is_sticky(rc);
        return;
      }
    }
    const CUresult rc = api.CtxSynchronize();
    launch_ms += ms_since(t0);
    if (rc != CUDA_SUCCESS) {
      out.stage = Stage::Launch;
      out.failure = FailReason::Crash;
      out.cuda_error = toolchain::error_name(rc);
      out.evidence = fmt::format("cuCtxSynchronize after {}: {}", first.entry, toolchain::error_string(rc));
      sticky = toolchain::is_sticky(rc);
      return;
    }
    runs[run] = buffers.read_all();
  }
  out.ms["launch"] = launch_ms;
  out.stage = Stage::Launch;

  // Stage: checks.
  t0 = Clock::now();
  auto ev = evaluate_case(first, rung.deterministic, host_inputs, runs[0], runs[1]);
  out.ms["checks"] = ms_since(t0);
  out.stage = Stage::Checks;
  out.failure = ev.failure;
  out.evidence = ev.evidence;
  out.numerics = std::move(ev.numerics);
  if (!out.failure) out.stage = Stage::Done;
}

}  // namespace ladder::isolate
