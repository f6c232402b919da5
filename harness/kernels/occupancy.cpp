#include "harness/kernels/occupancy.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ladder::kernels {
namespace {
constexpr std::int64_t kMaxBlocksPerSm = 32;
constexpr std::int64_t kSubPartitions = 4, kRegistersPerSubPartition = 16384;
constexpr std::int64_t kRegisterUnit = 256, kSharedUnit = 128;

std::int64_t round_up(std::int64_t v, std::int64_t unit) { return (v + unit - 1) / unit * unit; }
}  // namespace

Occupancy occupancy(const DeviceLimits& device, std::int64_t threads, int registers,
                    std::int64_t shared_bytes, std::int64_t grid_blocks) {
  Occupancy out;
  if (threads <= 0) return out;
  const std::int64_t warps = (threads + 31) / 32;
  const std::int64_t by_threads = device.max_threads_per_sm / (warps * 32);
  const std::int64_t per_warp = round_up(std::int64_t{std::max(registers, 1)} * 32, kRegisterUnit);
  const std::int64_t by_registers = kSubPartitions * (kRegistersPerSubPartition / per_warp) / warps;
  const std::int64_t by_shared =
      device.shared_per_sm / (round_up(std::max<std::int64_t>(shared_bytes, 0), kSharedUnit) + kRuntimeSharedPerBlock);
  // The first of the smallest names the limit: threads, then registers, shared memory, blocks.
  const std::vector<std::pair<std::int64_t, const char*>> limits{
      {by_threads, "threads"}, {by_registers, "registers"}, {by_shared, "shared memory"}, {kMaxBlocksPerSm, "blocks"}};
  const auto least = std::min_element(limits.begin(), limits.end(),
                                      [](const auto& a, const auto& b) { return a.first < b.first; });
  out.blocks_per_sm = static_cast<int>(std::max<std::int64_t>(0, least->first));
  out.limited_by = least->second;
  if (out.blocks_per_sm > 0 && device.sm_count > 0)
    out.waves = static_cast<double>(grid_blocks) / (static_cast<double>(out.blocks_per_sm) * device.sm_count);
  return out;
}

}  // namespace ladder::kernels
