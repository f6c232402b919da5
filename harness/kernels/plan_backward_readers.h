// The backward ops' variant readers (plan_backward*.cpp): the register kernels' shared memory,
// their EARLY builds, and the phase and bulk schedules. Internal to harness/kernels/.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "harness/kernels/plan_builder.h"

namespace ladder::kernels::detail {

// The backward register kernels keep x (or x + r), the gradient and the weight-gradient sums in
// registers (about 110-128 of them at 16 values a thread), so about 512 threads fit an SM.
constexpr int kBackwardThreadsPerSm = 512;

// The backward register kernels' dynamic shared memory (plan_backward_memory.cpp).
// partial_rows=auto|global: where their rows stream, the partial rows in shared memory where they
// fit (auto) or in global memory (global: auto's path past a block's shared memory, kept in the
// verify grid). Read it before the schedules: it leaves auto to the register kernel.
bool read_global_partials(VariantReader& v);
// A register launch's dynamic shared memory: its one-tile threads' `sums` weight-gradient sums
// (short of them where `broken` is short_shared, for probes/selftest.json), or its streaming
// rows' `gradients` partial rows where they fit, the larger. d: the row's width.
std::uint32_t register_shared_bytes(const std::string& broken, const std::string& op,
                                    const RowGeometry& g, std::int64_t d, int sums, int gradients,
                                    const DeviceLimits& device);

// early=auto|0|1 (plan_backward_early.cpp): the EARLY build of rmsnorm_bwd (fused false; a row
// ahead in registers, ITEMS <= 3) or add_rmsnorm_bwd (fused true; ITEMS >= 2), which issues rows
// sooner. auto takes it for 16-bit one-tile rows in blocks of 256 threads or more where the
// device's DRAM gives each SM enough bytes a cycle; 1 pins it (an error where the build does not
// exist: shifted rows, other ITEMS, register_kernel false), 0 refuses it.
bool read_early_loads(VariantReader& v, const std::string& op, std::size_t elem, bool fused,
                      const RowGeometry& g, bool shifted, bool register_kernel,
                      const DeviceLimits& device);
// Whether the unshifted register kernel has an EARLY build at `items` (what the catalog compiles).
constexpr bool early_build_exists(bool fused, int items) { return fused ? items >= 2 : items <= 3; }
// "ladder::KERNEL<T, ITEMS, false, true>": the unshifted register kernel's EARLY build.
std::string early_entry(const std::string& kernel, DType dt, int items);

// schedule=phase of the backward ops (plan_backward_phase.cpp, kernels/backward_phase.cuh): rows
// of one phase a block, one tile a row at ITEMS (phase_items=N, else items=N, else auto's, else
// the most the op holds in 64 registers) over the whole warps that cover the row at any phase,
// at most 1024; in `shared_bytes`, where `weighted`, the `sums` weight-gradient sums' slots then
// the weight's; a grid of about the resident blocks (phase_blocks_per_sm=N for tuning), a
// multiple of VEC (phase_grid=8 for tests). auto takes it for 16-bit rows off the 16-byte grid,
// at least 4096 of them, whose strides share one phase, at the widths its table names, where
// `auto_free` (no shift or broken_launch asked for), no items=N and no bulk plan. Reads
// "schedule" too (backward_schedules). Rewrites g where taken.
struct BackwardPhasePlan {
  bool phase = false;
  int items = 0;
  std::uint32_t shared_bytes = 0;
  bool prefetch = false;  // as PhasePlan's
};
// The ITEMS the backward phase kernels of `op` are built for: 1 up to this (the catalog's list).
int max_phase_items(const std::string& op);
BackwardPhasePlan read_backward_phase(VariantReader& v, const std::string& op, std::size_t elem,
                                      const Shape& s,
                                      const std::map<std::string, std::int64_t>& strides,
                                      bool weighted, int sums, int forced_items, bool auto_free,
                                      bool bulk, const DeviceLimits& device, RowGeometry& g);

// schedule=auto|regs|bulk for the backward ops (plan_backward_bulk.cpp): bulk takes
// kernels/layernorm_bwd_bulk.cuh or rmsnorm_bwd_bulk.cuh, `tensors` input rows a stage (x and dy;
// the fused op's r and dh too), with the same keys as read_bulk (bulk_items auto: one chunk a
// thread up to 1024 chunks, else four, in 512 threads up to 2048 chunks and 1024 beyond).
// auto takes it where g (the register kernel's geometry) streams and the rows are on the bulk
// path, on sm_90 or later, unless auto_free is false (the variant pins the register kernel's
// ITEMS, build or launch). Rewrites g (its blocks are the partial rows) where bulk.
// weighted: the launch passes a weight row (gamma, w), which goes into the shared memory after
// the stages where auto's rule or the pinned stages leave room for it (plan_backward_bulk.cpp).
BulkPlan read_backward_bulk(VariantReader& v, const std::string& op, std::size_t elem_size,
                            const Shape& s, int tensors, bool weighted, bool misaligned,
                            bool auto_free, const DeviceLimits& device, RowGeometry& g);

}  // namespace ladder::kernels::detail
