// The weight gradients' final reduce, as the backward planners launch it: one fp32 partial row per
// block (or cluster) in scratch, added in order by column_sum, or by the bulk kernel itself after
// a grid-wide barrier. Internal to harness/kernels/.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

// out[c] = the sum of `parts` partial rows of d columns, launched after `first` (whose buffers,
// oracle and scalars it shares). programmatic: begun while `first` drains (dependent_launch.cuh).
KernelLaunch column_sum_launch(const KernelLaunch& first, DType dt, const std::string& out,
                               const std::string& partial, std::int64_t parts, std::int64_t d,
                               bool programmatic = false);

// Two reduces of the same shape in one launch (column_sum_pair): LayerNorm's dgamma and dbeta.
KernelLaunch column_sum_pair_launch(const KernelLaunch& first, DType dt,
                                    const std::array<std::string, 2>& out,
                                    const std::array<std::string, 2>& partial, std::int64_t parts,
                                    std::int64_t d, bool programmatic);

// pdl=auto|0: whether column_sum is launched programmatically after the backward kernel.
bool read_programmatic(VariantReader& v);

// reduce=auto|launch|grid: whether the bulk kernel reduces the gradients itself (true) or
// leaves its partial rows to column_sum. Errors name `op` where grid cannot apply.
bool read_grid_reduce(VariantReader& v, const std::string& op, bool bulk_kernel, bool gradients,
                      bool auto_grid = false);

// The bulk kernels' trailing arguments for the reduce that read_grid_reduce chose.
void add_grid_reduce_args(KernelLaunch& L, const std::vector<std::string>& gradients,
                          bool grid_reduce);

}  // namespace ladder::kernels::detail
