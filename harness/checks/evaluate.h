// Decides one case from its two runs' readbacks, in the documented order: redzones, clobbered
// inputs, sentinel coverage, determinism, numerics. The first class that fails is the verdict's
// reason; its evidence is one line.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/result.h"
#include "harness/device/buffers.h"
#include "harness/ladder/launch.h"

namespace ladder {

struct CaseEvidence {
  std::optional<FailReason> failure;
  std::string evidence;
  std::vector<NumericsSummary> numerics;
};

CaseEvidence evaluate_case(const KernelLaunch& launch, bool deterministic,
                           const std::map<std::string, std::vector<std::byte>>& host_inputs,
                           const std::map<std::string, Readback>& run_a,
                           const std::map<std::string, Readback>& run_b);

// What a correct kernel stores for each fp64 reference value in a buffer of `dtype`: a finite
// value past the dtype's range overflows to +-inf under round-to-nearest, so it becomes that
// infinity; every other value is returned unchanged (the tolerance covers the final rounding).
std::vector<double> stored_reference(DType dtype, const std::vector<double>& ref);

}  // namespace ladder
