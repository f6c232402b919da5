// One planner per op family; catalog.cpp dispatches to them. Internal to harness/kernels/.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/kernels/device_limits.h"
#include "harness/kernels/row_geometry.h"
#include "harness/ladder/launch.h"
#include "harness/ladder/manifest.h"

namespace ladder::kernels::detail {

using Scalars = std::map<std::string, double>;

// `device` is the device the plan is for (catalog.h's plan()).
std::vector<KernelLaunch> plan_rmsnorm(const KernelRef& ref, const Case& c, const Scalars& s,
                                       const DeviceLimits& device);
std::vector<KernelLaunch> plan_add_rmsnorm(const KernelRef& ref, const Case& c, const Scalars& s,
                                           const DeviceLimits& device);
std::vector<KernelLaunch> plan_layernorm(const KernelRef& ref, const Case& c, const Scalars& s,
                                         const DeviceLimits& device);
std::vector<KernelLaunch> plan_rmsnorm_bwd(const KernelRef& ref, const Case& c, const Scalars& s,
                                           const DeviceLimits& device);
std::vector<KernelLaunch> plan_add_rmsnorm_bwd(const KernelRef& ref, const Case& c,
                                               const Scalars& s, const DeviceLimits& device);
std::vector<KernelLaunch> plan_layernorm_bwd(const KernelRef& ref, const Case& c,
                                             const Scalars& s, const DeviceLimits& device);
std::vector<KernelLaunch> plan_column_sum(const KernelRef& ref, const Case& c, const Scalars& s,
                                          const DeviceLimits& device);

// The row limits a planner passes to choose_row_geometry() (after with_device()); the ITEMS
// each op is compiled with follow from them.
RowLimits rmsnorm_row_limits();      // wide rows prefer fewer threads, more ITEMS
RowLimits layernorm_row_limits();    // as rmsnorm
RowLimits add_rmsnorm_row_limits();  // fewer spill-free values: x and r are both in flight
RowLimits backward_row_limits();     // 512-thread blocks, 16 values a thread

// Variant values each planner accepts, for all_specializations() and the docs.
struct VariantAxis {
  std::string key;
  std::vector<std::string> values;
};

}  // namespace ladder::kernels::detail
