// Planner test helpers shared by the kernel-catalog tests: the checks every planned launch must
// pass, and the checked plan of a rows x d case.
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/checks/oracle_registry.h"
#include "harness/kernels/catalog.h"
#include "tests/catch.h"

namespace ladder_test {

using ladder::BufferRole;
using ladder::Case;
using ladder::ConcreteBuffer;
using ladder::DType;
using ladder::KernelLaunch;
using ladder::KernelRef;
using ladder::kernels::DeviceLimits;

inline const std::map<std::string, double> kEps = {{"eps", 1e-6}};

inline const ConcreteBuffer* find_buffer(const KernelLaunch& L, const std::string& name) {
  for (const auto& b : L.buffers)
    if (b.name == name) return &b;
  return nullptr;
}

inline std::string describe(const KernelRef& ref, const Case& c) {
  std::string s = ref.op + " " + std::string(ladder::label(ref.dtype));
  for (const auto& [k, v] : ref.variant) s += " " + k + "=" + v;
  for (const auto& [k, v] : c) s += " " + k + "=" + std::to_string(v);
  return s;
}

// Geometry and argument checks that hold for every launch of every op.
inline void check_launch(const KernelRef& ref, const Case& c, const KernelLaunch& L, bool first) {
  INFO(describe(ref, c) << " entry " << L.entry);
  const std::int64_t rows = c.at("rows");
  const std::uint32_t tpr = L.block[0], groups = L.block[1];
  const std::uint32_t threads = tpr * groups * L.block[2];
  CHECK(threads >= 1);
  CHECK(threads <= 1024);
  CHECK(threads % 32 == 0);  // whole warps: the reductions shuffle with a full mask
  // Row groups inside a warp are powers of two; larger ones are whole warps, alone in the block.
  if (tpr < 32) CHECK((tpr & (tpr - 1)) == 0);
  if (tpr > 32) CHECK(groups == 1);
  CHECK(L.grid[0] >= 1);
  // column_sum_pair: one column sum per blockIdx.y; every other kernel a flat grid.
  CHECK(L.grid[1] == (L.entry.find("column_sum_pair<") != std::string::npos ? 2u : 1u));
  CHECK(L.grid[2] == 1);
  // Only a launch that waits for the one before it may overlap it.
  if (L.programmatic) CHECK(L.entry.find("column_sum") != std::string::npos);
  if (first) CHECK(!L.programmatic);
  CHECK(!L.entry.empty());
  CHECK(L.source.rfind(ladder::kernels::kernels_dir(), 0) == 0);
  CHECK(ladder::find_oracle(L.oracle) != nullptr);
  const bool row_kernel = L.entry.find("column_sum") == std::string::npos;
  // Backward, staged and packed kernels walk rows (packed: spans of rows) on a fixed grid.
  const bool staged = L.entry.find("_staged") != std::string::npos;
  const bool packed = L.entry.find("_packed") != std::string::npos;
  // The row-a-block kernels walk rows at any grid (row_grid=resident gives them fewer blocks), as
  // do the streamed kernels (loop_grid), the bulk-copy kernels, the kernels of rows of one
  // phase a block and the flat kernels (a resident grid).
  const bool block_row = L.entry.find("_fwd_row<") != std::string::npos ||
                         L.entry.find("_fwd_loop<") != std::string::npos ||
                         L.entry.find("_fwd_bulk<") != std::string::npos ||
                         L.entry.find("_fwd_phase<") != std::string::npos ||
                         L.entry.find("_fwd_flat") != std::string::npos;
  const bool persistent = L.entry.find("_bwd") != std::string::npos || staged || packed || block_row;
  if (staged || packed) {
    CHECK(groups == 1);  // one row group a block: the stages are per thread
    CHECK(L.shared_bytes > 0);
  }
  if (first && row_kernel && !persistent) {
    // One row group per row (rmsnorm_fwd_rows: per ROWS rows, its last template argument): the
    // grid covers every row.
    const bool multirow = L.entry.find("_fwd_rows<") != std::string::npos;
    const std::int64_t rows_per_group = multirow ? std::stoll(L.entry.substr(L.entry.rfind(", ") + 2)) : 1;
    CHECK(std::int64_t{L.grid[0]} * groups * rows_per_group >= std::max<std::int64_t>(rows, 1));
  }
  for (const auto& a : L.args) {
    if (!a.is_buffer) continue;
    const ConcreteBuffer* b = find_buffer(L, a.buffer);
    INFO("argument buffer " << a.buffer);
    REQUIRE(b != nullptr);
  }
  // Every output reaches the kernel: as an argument, or as the memory of one it aliases.
  for (const auto& b : L.buffers) {
    CHECK(b.row_stride >= b.cols);
    if (!b.alias_of.empty()) {
      INFO("alias " << b.name);
      REQUIRE(find_buffer(L, b.alias_of) != nullptr);
      CHECK(find_buffer(L, b.alias_of)->role == BufferRole::InOut);
      CHECK(find_buffer(L, b.alias_of)->row_stride == b.row_stride);
    }
  }
}

inline std::vector<KernelLaunch> plan_checked(const KernelRef& ref, const Case& c,
                                       const DeviceLimits& device = DeviceLimits::h200()) {
  const auto launches = ladder::kernels::plan(ref, c, kEps, device);
  REQUIRE(!launches.empty());
  for (std::size_t i = 0; i < launches.size(); ++i) check_launch(ref, c, launches[i], i == 0);
  return launches;
}

// The first launch of a checked plan for a rows x d case: where an op's schedule choice shows.
inline KernelLaunch entry_of(const KernelRef& ref, std::int64_t rows, std::int64_t d) {
  return plan_checked(ref, {{"rows", rows}, {"d", d}}).front();
}

// Every (source, name expression) that the plans of every specialization launch: what CI
// compiles, and what kernels/README.md documents (ladder::kernels::all_builds).
inline std::set<std::pair<std::string, std::string>> catalog_entries() {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& b : ladder::kernels::all_builds()) out.insert({b.source, b.entry});
  return out;
}

}  // namespace ladder_test
