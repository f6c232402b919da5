#include "harness/report/bench_markdown.h"

#include <stdexcept>

#include <fmt/format.h>

#include "harness/core/json_member.h"

namespace ladder {
using nlohmann::json;

namespace {
std::string same_size_cell(const json& r) {
  return r.contains("cold_of_same_size_copy") ? fmt::format("{:.3f}", r["cold_of_same_size_copy"].get<double>()) : "—";
}

// A case that did not plan, compile or run, in either terminal table: its op, dtype, shape and why.
std::string error_line(const json& r) {
  return fmt::format("{:<16} {:<5} {:>7} {:>6} error: {}\n", r.value("op", ""), r.value("dtype", ""), r.value("rows", 0),
                     r.value("d", 0), r.value("error", ""));
}

// One launch's cells: registers, local bytes, shared bytes (static + dynamic), threads, blocks an
// SM (the limit), grid blocks, waves; or the reason they are missing.
struct ResourceCells {
  std::string registers, local, shared, threads, blocks_per_sm, grid, waves;
};
ResourceCells resource_cells(const json& k) {
  ResourceCells c;
  c.threads = std::to_string(k.value("threads", 0L));
  c.grid = std::to_string(k.value("grid_blocks", 0L));
  if (!k.contains("registers")) {
    c.registers = "unknown: " + k.value("resources_error", std::string("not recorded"));
    return c;
  }
  c.registers = std::to_string(k.value("registers", 0));
  c.local = std::to_string(k.value("local_bytes", 0));
  c.shared = fmt::format("{}+{}", k.value("static_shared_bytes", 0), k.value("dynamic_shared_bytes", 0L));
  c.blocks_per_sm = fmt::format("{} ({})", k.value("blocks_per_sm", 0), k.value("limited_by", ""));
  c.waves = fmt::format("{:.2f}", k.value("waves", 0.0));
  return c;
}
}  // namespace

std::string sm_share_text(const json& bench) {
  if (!bench.contains("toolchain") || !bench["toolchain"].contains("device_sm_count")) return "";
  const json& t = bench["toolchain"];
  return fmt::format("timed on {} of the GPU's {} SMs (a green context, `--sms {}`; a launch in it ran on {}): "
                     "not the whole GPU's figures",
                     t.value("sm_count", 0), t.value("device_sm_count", 0), t.value("sms_asked", 0),
                     t.value("sms_seen", 0));
}

namespace bench {

void annotate_result(json& r, double ceiling) {
  if (r.contains("error")) return;
  const double bytes = r.value("bytes", 0.0);
  for (const char* which : {"hot", "cold", "cold_clean"}) {
    const double us = r.value(std::string(which) + "_us", 0.0);
    if (us <= 0) continue;
    const double gbps = bytes / (us * 1e3);
    r[std::string(which) + "_gbps"] = gbps;
    if (ceiling > 0) r[std::string(which) + "_fraction"] = gbps / ceiling;
  }
  // The same bytes copied cold: the fraction of what a copy of this size reaches.
  const double cold = r.value("cold_us", 0.0), copy = r.value("copy_same_us", 0.0);
  if (cold > 0 && copy > 0) r["cold_of_same_size_copy"] = copy / cold;
}

json annotate(json doc) {
  const double ceiling = doc.contains("copy") ? doc["copy"].value("gbps", 0.0) : 0.0;
  for (auto& r : doc["results"]) annotate_result(r, ceiling);
  return doc;
}

std::string bench_terminal_table(const json& doc) {
  std::string s = sm_share_text(doc);
  if (!s.empty()) s += "\n";
  if (doc.contains("copy"))
    s += fmt::format("copy ceiling: {:.0f} GB/s (device-to-device, read + write, same run)\n",
                     doc["copy"].value("gbps", 0.0));
  s += fmt::format("{:<16} {:<5} {:>7} {:>6} {:<22} {:>10} {:>10} {:>9} {:>9} {:>6} {:>9} {:>10} {:>6}\n", "op", "dtype", "rows",
                   "d", "impl", "hot us", "cold us", "hot GB/s", "cold GB/s", "cold/copy", "same-size", "clean us",
                   "clean/copy");
  for (const auto& r : doc["results"]) {
    if (r.contains("error")) {
      s += error_line(r);
      continue;
    }
    s += fmt::format("{:<16} {:<5} {:>7} {:>6} {:<22} {:>10.2f} {:>10.2f} {:>9.0f} {:>9.0f} {:>6.3f} {:>9} {:>10.2f} {:>6.3f}\n",
                     r.value("op", ""), r.value("dtype", ""), r.value("rows", 0), r.value("d", 0), r.value("impl", ""),
                     r.value("hot_us", 0.0), r.value("cold_us", 0.0), r.value("hot_gbps", 0.0), r.value("cold_gbps", 0.0),
                     r.value("cold_fraction", 0.0), same_size_cell(r), r.value("cold_clean_us", 0.0),
                     r.value("cold_clean_fraction", 0.0));
  }
  return s;
}

std::string resources_terminal_table(const json& doc) {
  std::string s = fmt::format("{:<16} {:<5} {:>7} {:>6} {:>5} {:>6} {:>12} {:>7} {:>20} {:>7} {:>6}  {}\n", "op", "dtype",
                              "rows", "d", "regs", "local", "smem s+dyn", "threads", "blocks/SM (limit)", "grid",
                              "waves", "kernel");
  for (const auto& r : array_member(doc, "results")) {
    // A case that did not plan or compile says why, as the timing table does.
    if (r.contains("error")) {
      s += error_line(r);
      continue;
    }
    for (const auto& k : array_member(r, "kernels")) {
      const ResourceCells c = resource_cells(k);
      s += fmt::format("{:<16} {:<5} {:>7} {:>6} {:>5} {:>6} {:>12} {:>7} {:>20} {:>7} {:>6}  {}\n", r.value("op", ""),
                       r.value("dtype", ""), r.value("rows", 0), r.value("d", 0), c.registers, c.local, c.shared,
                       c.threads, c.blocks_per_sm, c.grid, c.waves, k.value("entry", ""));
    }
  }
  return s;
}

}  // namespace bench

std::string resources_markdown(const json& bench) {
  std::string rows;
  for (const auto& r : array_member(bench, "results")) {
    if (r.value("impl", "") != "ladder") continue;
    for (const auto& k : array_member(r, "kernels")) {
      const ResourceCells c = resource_cells(k);
      rows += fmt::format("| {} | {} | {}×{} | `{}` | {} | {} | {} | {} | {} | {} | {} |\n", r.value("op", ""),
                          r.value("dtype", ""), r.value("rows", 0L), r.value("d", 0L), k.value("entry", ""), c.registers,
                          c.local, c.shared, c.threads, c.blocks_per_sm, c.grid, c.waves);
    }
  }
  if (rows.empty()) return "";
  return "### What each launch costs an SM\n\n"
         "Registers a thread, local memory a thread (the stack frame: spilled registers and local arrays) and "
         "shared memory a block (static + dynamic), read from the cubin the run compiled for the launch; blocks an SM "
         "and what limits them, by the occupancy calculator's rules for the device; waves: the grid's blocks over "
         "blocks an SM times SMs (`harness/kernels/occupancy.h`).\n\n"
         "| op | dtype | rows × d | kernel | regs | local B | smem B (static+dyn) | threads | blocks/SM (limit) | grid | waves |\n"
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" +
         rows + "\n";
}

std::string peers_markdown(const json& peers, const std::string& path) {
  std::string md = path.empty() ? std::string("### Peers (scripts/bench_peers.py)\n\n")
                                : fmt::format("### Peers (scripts/bench_peers.py, `{}`)\n\n", path);
  md += fmt::format("torch {}, triton {}, device {}, copy ceiling {:.0f} GB/s\n\n", peers.value("torch", "?"),
                    peers.value("triton", "?"), peers.value("device", "?"), peers.value("copy_gbps", 0.0));
  md += "| op | dtype | rows × d | impl | µs | GB/s | of copy | clean µs |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& p : array_member(peers, "peers")) {
    if (p.contains("error") && !p["error"].is_null()) {
      md += fmt::format("| {} | {} | {}×{} | {} | error: {} | | | |\n", p.value("op", ""), p.value("dtype", ""),
                        p.value("rows", 0), p.value("d", 0), p.value("impl", ""), p["error"].dump());
      continue;
    }
    const double clean = p.value("us_clean", 0.0);
    md += fmt::format("| {} | {} | {}×{} | {} | {:.2f} | {:.0f} | {:.3f} | {} |\n", p.value("op", ""), p.value("dtype", ""),
                      p.value("rows", 0), p.value("d", 0), p.value("impl", ""), p.value("us", 0.0), p.value("gbps", 0.0),
                      p.value("fraction_of_copy", 0.0), clean > 0 ? fmt::format("{:.2f}", clean) : std::string("—"));
  }
  return md + "\n";
}

namespace {
// The document's "kernels" object, or null where it has none.
const json* kernel_sources_of(const json& doc) {
  return doc.is_object() && doc.contains("kernels") && doc["kernels"].is_object() ? &doc["kernels"] : nullptr;
}
}  // namespace

std::string kernel_sources_digest(const json& doc) {
  const json* k = kernel_sources_of(doc);
  return k != nullptr ? k->value("digest", std::string()) : std::string();
}

std::string kernel_sources_text(const json& doc) {
  const json* found = kernel_sources_of(doc);
  if (found == nullptr) return "";
  const json& k = *found;
  const std::string digest = kernel_sources_digest(doc);
  return fmt::format("`{}`{}, digest {}", k.value("dir", std::string("?")),
                     k.value("from_env", false) ? " (LADDER_KERNELS_DIR)" : "",
                     digest.empty() ? "not taken: " + k.value("error", std::string("?")) : digest.substr(0, 12));
}

json merge_peer_documents(const std::vector<std::pair<std::string, json>>& documents) {
  json rows = json::array();
  for (const auto& [path, doc] : documents) {
    try {
      for (const auto& p : array_member(doc, "peers")) {
        if (!p.is_object()) throw std::runtime_error("\"peers\": expected objects, got " + p.dump());
        rows.push_back(p);
        rows.back()["document"] = path;
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
  }
  return documents.empty() ? json::object() : json{{"peers", std::move(rows)}};
}

const json* fastest_peer(const json& peers, const json& result, const char* key) {
  const json* best = nullptr;
  for (const auto& p : array_member(peers, "peers"))
    if (p.value("op", "") == result.value("op", "") && p.value("dtype", "") == result.value("dtype", "") &&
        p.value("rows", 0L) == result.value("rows", 0L) && p.value("d", 0L) == result.value("d", 0L) &&
        p.value(key, 0.0) > 0 && (best == nullptr || p.value(key, 0.0) < best->value(key, 0.0)))
      best = &p;
  return best;
}

std::string bench_markdown(const json& bench, const std::string& path, const json& peers) {
  std::string md = fmt::format("## Benchmarks (`{}`)\n\n", path);
  md += fmt::format("- command: `{}`; date: {}; commit: {}\n", bench.value("command", ""), bench.value("date", ""),
                    bench.value("commit", ""));
  if (const std::string k = kernel_sources_text(bench); !k.empty()) md += "- kernel sources: " + k + "\n";
  if (bench.contains("toolchain") && bench["toolchain"].contains("reference_device"))
    md += fmt::format("- reference device: {} ({} SMs), {}, NVRTC {}; no GPU used\n",
                      bench["toolchain"].value("reference_device", "?"), bench["toolchain"].value("sm_count", 0),
                      bench["toolchain"].value("arch", "?"), bench["toolchain"].value("nvrtc_version", "?"));
  else if (bench.contains("toolchain"))
    md += fmt::format("- GPU: {} ({} SMs), CUDA driver API {}.{}, NVRTC {}\n", bench["toolchain"].value("gpu", "?"),
                      bench["toolchain"].value("sm_count", 0), bench["toolchain"].value("driver_version", 0) / 1000,
                      bench["toolchain"].value("driver_version", 0) % 1000 / 10,
                      bench["toolchain"].value("nvrtc_version", "?"));
  if (const std::string share = sm_share_text(bench); !share.empty()) md += "- " + share + "\n";
  if (bench.contains("copy"))
    md += fmt::format("- copy ceiling (same run): {:.0f} GB/s\n", bench["copy"].value("gbps", 0.0));
  if (bench.value("resources_only", false))
    return md + "- `--resources`: compiled and planned for the reference device, nothing timed\n\n" + resources_markdown(bench);
  md += "\nGB/s counts the minimum bytes: each input read once, each output written once. Cold: L2 flushed before every launch. Hot: back-to-back launches. "
        "cold / copy is the fraction of the ceiling (a 2 GiB copy); cold / same-size copy, of a cold copy of the case's own bytes timed the same way, which pays the same fixed costs of a launch. "
        "The flush overwrites a buffer, which leaves the L2 full of dirty lines that the timed launch writes back; clean µs flushes the same way and then reads the buffer once more, so the launch pays for its own traffic alone (harness/bench/l2_flush.h). Peers are timed both ways too.\n\n";
  md += "| op | dtype | rows × d | impl | hot µs | cold µs | cold GB/s | cold / copy | hot / copy | cold / same-size copy | best peer (µs, impl) | clean µs | best peer clean (µs, impl) |\n";
  md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : array_member(bench, "results")) {
    const std::string op = r.value("op", ""), dtype = r.value("dtype", "");
    const long rows = r.value("rows", 0L), d = r.value("d", 0L);
    if (r.contains("error")) {
      md += fmt::format("| {} | {} | {}×{} | {} | error: {} | | | | | | | | |\n", op, dtype, rows, d, r.value("impl", ""),
                        r.value("error", ""));
      continue;
    }
    auto best_peer = [&](const char* key) {
      const json* p = fastest_peer(peers, r, key);
      return p == nullptr ? std::string("—") : fmt::format("{:.2f} ({})", p->value(key, 0.0), p->value("impl", ""));
    };
    const double clean = r.value("cold_clean_us", 0.0);
    md += fmt::format("| {} | {} | {}×{} | {} | {:.2f} | {:.2f} | {:.0f} | {:.3f} | {:.3f} | {} | {} | {} | {} |\n", op, dtype, rows,
                      d, r.value("impl", ""), r.value("hot_us", 0.0), r.value("cold_us", 0.0), r.value("cold_gbps", 0.0),
                      r.value("cold_fraction", 0.0), r.value("hot_fraction", 0.0), same_size_cell(r), best_peer("us"),
                      clean > 0 ? fmt::format("{:.2f}", clean) : std::string("—"), best_peer("us_clean"));
  }
  return md + "\n" + resources_markdown(bench);
}

}  // namespace ladder
