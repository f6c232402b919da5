// The stages of one case inside a child: image (compile or read), load, buffers, launch, checks.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "harness/core/result.h"
#include "harness/ladder/launch.h"
#include "harness/toolchain/compile_cache.h"
#include "harness/toolchain/driver.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder {
class DeviceBuffers;
}

namespace ladder::isolate {

struct CompiledImage {
  std::string source, entry, lowered_name, image, error, log;
  std::vector<std::string> options;
  bool ok = false, cache_hit = false, is_cubin = true;
  double ms = 0;
};

// Compiles (through the cache) or reads each distinct (source, entry, options) once per process,
// and loads each image into the current context once.
class ImageSet {
 public:
  using Reporter = std::function<void(const CompiledImage&)>;
  ImageSet(const toolchain::Nvrtc& nvrtc, toolchain::CompileCache& cache, std::string arch, Reporter report);
  const CompiledImage& image(const KernelLaunch& k);
  // Loads the image and finds its entry; throws DriverError.
  CUfunction function(const KernelLaunch& k);

 private:
  using Key = std::tuple<std::string, std::string, std::vector<std::string>>;
  const toolchain::Nvrtc& nvrtc_;
  toolchain::CompileCache& cache_;
  std::string arch_;
  Reporter report_;
  std::map<Key, CompiledImage> images_;
  std::map<Key, toolchain::Module> modules_;
};

// Kernel parameters for one launch, laid out as cuLaunchKernel takes them: each slot holds a
// device pointer or a scalar of the argument's type.
struct PackedParams {
  std::vector<std::array<unsigned char, 8>> slots;
  std::vector<void*> pointers;  // into slots; valid while this object lives and is not copied
  PackedParams() = default;
  PackedParams(const PackedParams&) = delete;
  PackedParams& operator=(const PackedParams&) = delete;
};
void pack_params(const KernelLaunch& k, const DeviceBuffers& buffers, PackedParams& out);  // throws std::invalid_argument

// One planned launch of `fn`: the opt-in to its dynamic shared memory, then toolchain::launch
// (programmatic, cooperative where the plan says). failed_call, when given, receives the driver
// call that failed.
CUresult launch_planned(CUfunction fn, const KernelLaunch& k, PackedParams& params,
                        const char** failed_call = nullptr);
// The driver call that launches k: cuLaunchKernelEx (programmatic or cooperative) or
// cuLaunchKernel.
const char* launch_call_name(const KernelLaunch& k);

// Runs one case through every stage, filling `out`. `ctx` null: GPU stages are skipped with
// `no_device` as the reason. Buffers get `redzone_bytes` on each side (0: bare allocations).
// Sets `sticky` after an error that poisons the context.
void run_case(const Rung& rung, const std::vector<KernelLaunch>& plans, ImageSet& images,
              const toolchain::Context* ctx, const std::string& no_device, std::size_t redzone_bytes,
              CaseResult& out, bool& sticky);

}  // namespace ladder::isolate
