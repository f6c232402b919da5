// The catalog: op names to planners, the list of specializations CI compiles, and where kernels/
// lives. The planners themselves are in plan_forward.cpp, plan_backward.cpp and
// plan_column_sum.cpp.
#include "harness/kernels/catalog.h"

#include <cstdlib>
#include <functional>
#include <set>
#include <stdexcept>

#include "harness/kernels/plan_backward_readers.h"
#include "harness/kernels/plan_builder.h"
#include "harness/kernels/planners.h"
#include "harness/kernels/row_geometry.h"

#ifndef LADDER_SOURCE_DIR
#define LADDER_SOURCE_DIR "."
#endif

namespace ladder::kernels {
namespace {

using Planner = std::function<std::vector<KernelLaunch>(const KernelRef&, const Case&,
                                                        const detail::Scalars&,
                                                        const DeviceLimits&)>;

struct OpEntry {
  std::string name;
  Planner planner;
  // Variant keys whose values select a different template instantiation (beyond dtype and
  // ITEMS), with the values that do so; all other keys only change arguments and buffers.
  std::vector<detail::VariantAxis> template_axes;
  RowLimits limits;  // the limits its planner uses, for the ITEMS list (device-independent)
};

const std::vector<OpEntry>& table() {
  static const std::vector<OpEntry> t = [] {
    return std::vector<OpEntry>{
        {"rmsnorm", detail::plan_rmsnorm,
         {{"schedule", {"regs", "staged", "rows2", "rows4", "wide", "warp", "packed", "decode", "row", "loop", "phase", "flat"}}, {"stages", {"2", "3"}}},
         detail::rmsnorm_row_limits()},
        {"add_rmsnorm", detail::plan_add_rmsnorm,
         {{"convention", {"A", "B"}}, {"schedule", {"regs", "staged", "wide", "warp", "packed", "decode", "row", "loop", "phase"}}, {"stages", {"2", "3"}}},
         detail::add_rmsnorm_row_limits()},
        {"layernorm", detail::plan_layernorm, {{"schedule", {"regs", "wide", "warp", "packed", "row", "loop", "bulk", "phase"}}}, detail::layernorm_row_limits()},
        {"rmsnorm_bwd", detail::plan_rmsnorm_bwd, {{"shift", {"0", "1"}}, {"schedule", {"regs", "bulk", "phase", "flat"}}}, detail::backward_row_limits()},
        {"add_rmsnorm_bwd", detail::plan_add_rmsnorm_bwd, {{"shift", {"0", "1"}}, {"schedule", {"regs", "bulk", "phase"}}}, detail::backward_row_limits()},
        {"layernorm_bwd", detail::plan_layernorm_bwd, {{"shift", {"0", "1"}}, {"stats", {"saved", "recompute"}}, {"schedule", {"regs", "bulk", "phase"}}},
         detail::backward_row_limits()},
        {"column_sum", detail::plan_column_sum, {}, RowLimits{}},
    };
  }();
  return t;
}

const OpEntry* find(const std::string& op) {
  for (const auto& e : table())
    if (e.name == op) return &e;
  return nullptr;
}

// The forward ops' register and staged kernels have an OFF_GRID build for rows off the 16-byte
// grid, which the compile shapes (rows on the grid) never plan by themselves: `combo` on the grid
// and off it. Schedules whose entry ignores the key plan the same entry twice (deduplicated).
std::vector<std::map<std::string, std::string>> with_off_grid(
    const std::string& op, const std::map<std::string, std::string>& combo) {
  if (op != "rmsnorm" && op != "add_rmsnorm" && op != "layernorm") return {combo};
  auto off = combo;
  off["off_grid"] = "1";
  return {combo, off};
}

}  // namespace

std::vector<std::string> ops() {
  std::vector<std::string> out;
  for (const auto& e : table()) out.push_back(e.name);
  return out;
}

std::vector<KernelLaunch> plan(const KernelRef& ref, const Case& c,
                               const std::map<std::string, double>& scalars,
                               const DeviceLimits& device) {
  const OpEntry* e = find(ref.op);
  if (e == nullptr) {
    std::string known;
    for (const auto& name : ops()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown kernel op '" + ref.op + "' (known: " + known + ")");
  }
  return e->planner(ref, c, scalars, device);
}

std::vector<KernelRef> all_specializations() {
  std::vector<KernelRef> out;
  for (const auto& e : table()) {
    for (DType dt : {DType::F32, DType::F16, DType::BF16}) {
      if (e.name == "column_sum") {  // one kernel per output dtype, no ITEMS
        out.push_back({e.name, dt, {}});
        continue;
      }
      // Every combination of the template axes.
      std::vector<std::map<std::string, std::string>> combos{{}};
      for (const auto& axis : e.template_axes) {
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& base : combos)
          for (const auto& value : axis.values) {
            auto v = base;
            v[axis.key] = value;
            next.push_back(v);
          }
        combos = next;
      }
      for (const auto& combo : combos) {
        // f32 has nothing to round: convention B is convention A's instantiation.
        if (dt == DType::F32 && combo.count("convention") && combo.at("convention") == "B")
          continue;
        // schedule=flat: one instantiation per d mod VEC (the width picks it; the catalog's tests
        // plan it at flat_compile_widths) and way of reading the segments (registers, or the
        // TMA's stages); no ITEMS, stages or shifted build.
        if (combo.count("schedule") && combo.at("schedule") == "flat") {
          if ((combo.count("shift") && combo.at("shift") != "0") ||
              (combo.count("stages") && combo.at("stages") != "2"))
            continue;
          for (const char* bulk : {"0", "1"}) {
            auto v = combo;
            v.erase("shift");
            v.erase("stages");
            v["flat_bulk"] = bulk;
            out.push_back({e.name, dt, v});
          }
          continue;
        }
        // schedule=row: one instantiation per ITEMS and block width.
        if (combo.count("schedule") && combo.at("schedule") == "row") {
          for (int items : {4, 8})
            for (int width : detail::block_row_widths(items)) {
              auto v = combo;
              v["row_items"] = std::to_string(items);
              v["row_threads"] = std::to_string(width);
              out.push_back({e.name, dt, v});
            }
          continue;
        }
        // schedule=loop: one instantiation per block width (and LayerNorm's pass count), and for
        // RMSNorm's and LayerNorm's three passes per chunks a thread held (loop_hold).
        if (combo.count("schedule") && combo.at("schedule") == "loop") {
          if (combo.count("stages") && combo.at("stages") != "2") continue;  // no stages: once
          for (const char* threads : {"64", "128", "256", "512", "1024"})
            for (const std::string passes : {"2", "3"})
              for (const std::string hold : {"0", "2", "4", "8"}) {
                if (e.name != "layernorm" && passes == "3") continue;
                if (hold != "0" && (e.name == "add_rmsnorm" || (e.name == "layernorm" && passes == "2")))
                  continue;
                auto v = combo;
                v.erase("stages");
                v["loop_threads"] = threads;
                if (e.name == "layernorm") v["loop_passes"] = passes;
                if (hold != "0") v["loop_hold"] = hold;
                out.push_back({e.name, dt, v});
              }
          continue;
        }
        // schedule=bulk: one instantiation per ITEMS, block width and (backward) cluster;
        // layernorm_bwd's serves either statistics, and has no shifted build.
        if (combo.count("schedule") && combo.at("schedule") == "bulk") {
          if ((combo.count("shift") && combo.at("shift") != "0") ||
              (combo.count("stats") && combo.at("stats") != "saved"))
            continue;
          // The backward's rows split over clusters of two blocks: their own entries.
          const std::vector<std::string> clusters =
              e.name == "layernorm" ? std::vector<std::string>{"1"}
                                    : std::vector<std::string>{"1", "2"};
          for (const char* items : {"1", "2", "4"})
            for (const char* threads : {"32", "64", "128", "256", "512", "1024"})
              for (const auto& cluster : clusters) {
                auto v = combo;
                v.erase("shift");
                v["bulk_items"] = items;
                v["bulk_threads"] = threads;
                if (cluster == "1") {
                  out.push_back({e.name, dt, v});
                  continue;
                }
                // Clusters exchange their row sums in either of two builds (ASYNC_SUMS).
                v["bulk_cluster"] = cluster;
                for (const char* exchange : {"async", "barrier"}) {
                  v["cluster_exchange"] = exchange;
                  out.push_back({e.name, dt, v});
                }
              }
          // The backward's pooled partial rows: built at the widths the planner allows them.
          if (e.name != "layernorm")
            for (const char* items : {"2", "4"})
              for (const char* threads : {"256", "512", "1024"}) {
                auto v = combo;
                v.erase("shift");
                v["bulk_items"] = items;
                v["bulk_threads"] = threads;
                v["bulk_pool"] = "2";
                out.push_back({e.name, dt, v});
              }
          continue;
        }
        // The backward's schedule=phase: one instantiation per ITEMS it takes (and statistics)
        // and rows prefetched; it has no shifted build.
        if (combo.count("schedule") && combo.at("schedule") == "phase" && combo.count("shift")) {
          if (combo.at("shift") != "0") continue;
          for (int items = 1; items <= detail::max_phase_items(e.name); ++items)
            for (const char* prefetch : detail::kPhasePrefetchValues) {
              auto v = combo;
              v.erase("shift");
              v["phase_items"] = std::to_string(items);
              v["phase_prefetch"] = prefetch;
              out.push_back({e.name, dt, v});
            }
          continue;
        }
        // schedule=warp: one instantiation per ITEMS, on the 16-byte grid or off it.
        if (combo.count("schedule") && combo.at("schedule") == "warp") {
          if (combo.count("stages") && combo.at("stages") != "2") continue;  // no stages: once
          for (int items : detail::kWarpItems)
            for (const char* off_grid : {"0", "1"}) {
              auto v = combo;
              v.erase("stages");
              v["warp_items"] = std::to_string(items);
              v["off_grid"] = off_grid;
              out.push_back({e.name, dt, v});
            }
          continue;
        }
        // schedule=wide fixes its ITEMS, and decode has none: one instantiation per dtype (and
        // other axes).
        if (combo.count("schedule") && (combo.at("schedule") == "wide" || combo.at("schedule") == "decode")) {
          for (const auto& v : with_off_grid(e.name, combo)) out.push_back({e.name, dt, v, {}});
          continue;
        }
        // schedule=packed has no ITEMS: one instantiation per dtype (and other axes) for each
        // way of holding the weight.
        if (combo.count("schedule") && combo.at("schedule") == "packed") {
          for (const char* copies : {"shifted", "one"}) {
            auto v = combo;
            v["weight_copies"] = copies;
            out.push_back({e.name, dt, v});
          }
          continue;
        }
        // The forward's schedule=phase: also one instantiation per rows prefetched.
        const bool phase = combo.count("schedule") && combo.at("schedule") == "phase";
        // The unshifted register kernels of rmsnorm_bwd and add_rmsnorm_bwd: also their EARLY
        // builds (rmsnorm_bwd at ITEMS <= 3, add_rmsnorm_bwd at ITEMS >= 2).
        const bool fused = e.name == "add_rmsnorm_bwd";
        const bool early = (e.name == "rmsnorm_bwd" || fused) && combo.count("schedule") &&
                           combo.at("schedule") == "regs" && combo.count("shift") &&
                           combo.at("shift") == "0";
        for (int items : allowed_items(size_of(dt), e.limits))
          for (auto v : with_off_grid(e.name, combo)) {
            v["items"] = std::to_string(items);
            if (early && detail::early_build_exists(fused, items)) {
              auto with_early = v;
              with_early["early"] = "1";
              out.push_back({e.name, dt, with_early});
            }
            if (!phase) {
              out.push_back({e.name, dt, v});
              continue;
            }
            for (const char* prefetch : detail::kPhasePrefetchValues) {
              v["phase_prefetch"] = prefetch;
              out.push_back({e.name, dt, v});
            }
          }
      }
    }
  }
  return out;
}

std::vector<Build> all_builds() {
  // A small row takes most builds; a row of 32768 at 512 rows those only wide rows reach (a wide
  // block that fills its bound, the staged schedules' two-stage fallbacks). schedule=flat builds
  // one kernel per d mod VEC: it is planned at one width of each (rows off the 16-byte grid).
  const std::vector<Case> shapes{{{"rows", 3}, {"d", 1000}}, {{"rows", 512}, {"d", 32768}}};
  const std::map<std::string, double> eps{{"eps", 1e-6}};
  std::set<Build> builds;
  for (const auto& ref : all_specializations()) {
    const auto schedule = ref.variant.find("schedule");
    std::vector<Case> cases = shapes;
    if (schedule != ref.variant.end() && schedule->second == "flat") {
      cases.clear();
      for (std::int64_t d : detail::flat_compile_widths(size_of(ref.dtype))) cases.push_back({{"rows", 64}, {"d", d}});
    }
    for (const auto& c : cases)
      for (const auto& L : plan(ref, c, eps)) builds.insert({L.source, L.entry});
  }
  return {builds.begin(), builds.end()};
}

const char* kernels_dir_from_env() {
  const char* env = std::getenv("LADDER_KERNELS_DIR");
  return env != nullptr && *env != '\0' ? env : nullptr;
}

std::string kernels_dir() {
  if (const char* env = kernels_dir_from_env()) return env;
  return std::string(LADDER_SOURCE_DIR) + "/kernels";
}

}  // namespace ladder::kernels
