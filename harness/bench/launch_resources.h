// What each planned launch of a bench case costs an SM (its cubin's registers, local and shared
// memory) and what that gives on the device (blocks an SM, the limit, waves of the grid): the
// "why" beside a bandwidth figure, recorded in the bench document for every case.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/isolate/launcher.h"
#include "harness/kernels/device_limits.h"
#include "harness/ladder/launch.h"

namespace ladder::bench {

// One object a launch: entry, threads, grid_blocks, dynamic_shared_bytes, and where the image is a
// cubin whose numbers were read: registers, local_bytes, static_shared_bytes, blocks_per_sm,
// limited_by, waves; otherwise resources_error says why they are missing.
nlohmann::json launch_resources(const KernelLaunch& k, const isolate::CompiledImage& image,
                                const kernels::DeviceLimits& device);

// The same for every launch of a case, compiling each image through `images` as needed.
nlohmann::json case_resources(const std::vector<KernelLaunch>& plans, isolate::ImageSet& images,
                              const kernels::DeviceLimits& device);

}  // namespace ladder::bench
