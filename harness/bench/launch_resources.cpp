#include "harness/bench/launch_resources.h"

#include "harness/kernels/occupancy.h"
#include "harness/toolchain/cubin_resources.h"

namespace ladder::bench {
using nlohmann::json;

json launch_resources(const KernelLaunch& k, const isolate::CompiledImage& image,
                      const kernels::DeviceLimits& device) {
  const std::int64_t threads = std::int64_t{k.block[0]} * k.block[1] * k.block[2];
  const std::int64_t grid_blocks = std::int64_t{k.grid[0]} * k.grid[1] * k.grid[2];
  json out = {{"entry", k.entry}, {"threads", threads}, {"grid_blocks", grid_blocks},
              {"dynamic_shared_bytes", k.shared_bytes}};
  if (!image.ok) {
    out["resources_error"] = "the image did not compile: " + image.error;
    return out;
  }
  if (!image.is_cubin) {
    out["resources_error"] = "a PTX image: its registers are the driver's to choose at load time";
    return out;
  }
  const auto r = toolchain::kernel_resources(image.image, image.lowered_name);
  if (!r.ok) {
    out["resources_error"] = r.error;
    return out;
  }
  const auto occ = kernels::occupancy(device, threads, r.resources.registers,
                                      std::int64_t{r.resources.static_shared_bytes} + k.shared_bytes,
                                      grid_blocks);
  out["registers"] = r.resources.registers;
  out["local_bytes"] = r.resources.local_bytes;
  out["static_shared_bytes"] = r.resources.static_shared_bytes;
  out["blocks_per_sm"] = occ.blocks_per_sm;
  out["limited_by"] = occ.limited_by;
  out["waves"] = occ.waves;
  return out;
}

json case_resources(const std::vector<KernelLaunch>& plans, isolate::ImageSet& images,
                    const kernels::DeviceLimits& device) {
  json out = json::array();
  for (const auto& k : plans) out.push_back(launch_resources(k, images.image(k), device));
  return out;
}

}  // namespace ladder::bench
