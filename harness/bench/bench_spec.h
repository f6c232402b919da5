// What `ladder bench` measures: which kernels, at which shapes, and how many bytes each must move
// at the least (every input read once, every output written once; scratch not counted).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/kernels/device_limits.h"
#include "harness/ladder/launch.h"
#include "harness/ladder/manifest.h"

namespace ladder::bench {

struct BenchCase {
  KernelRef kernel;
  std::int64_t rows = 0, d = 0;
  double eps = 1e-6;
  bool unfused_baseline = false;  // add_rmsnorm only: also time a separate add, then rmsnorm
};

// The default list: the shapes of the performance targets in DESIGN.md, for every op.
std::vector<BenchCase> default_cases();

// Minimum bytes: inputs read once, outputs written once, in-outs both; aliases and scratch free.
double minimum_bytes(const std::vector<ConcreteBuffer>& buffers);

// The unfused baseline for add_rmsnorm: kernels/elementwise_add.cuh then the rmsnorm kernel on h,
// planned for `device` (the bench child's).
std::vector<KernelLaunch> unfused_add_then_rmsnorm(const BenchCase& c,
                                                   const kernels::DeviceLimits& device);

nlohmann::json to_json(const BenchCase& c);
BenchCase bench_case_from_json(const nlohmann::json& j);

}  // namespace ladder::bench
