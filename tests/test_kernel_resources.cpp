// A kernel's resources read from its cubin (harness/toolchain/cubin_resources.h), the occupancy
// they give (harness/kernels/occupancy.h), and `ladder bench --resources`, which reports both for
// the bench cases without a GPU.
#include <random>

#include "harness/kernels/occupancy.h"
#include "harness/report/bench_markdown.h"
#include "harness/toolchain/cubin_resources.h"
#include "harness/toolchain/nvrtc.h"
#include "tests/catch.h"
#include "tests/cli_helpers.h"

using namespace ladder_test;
using ladder::kernels::DeviceLimits;
using ladder::kernels::occupancy;

namespace {
// 400 bytes of static shared memory; `local` adds an indexed local array that the register cap
// below forces into local memory.
std::string kernel_source(bool local) {
  return std::string("extern \"C\" __global__ void probe_kernel(float* a) {\n"
                     "  __shared__ float sh[100];\n"
                     "  sh[threadIdx.x % 100] = a[0];\n"
                     "  __syncthreads();\n"
                     "  float s = sh[(threadIdx.x + 1) % 100];\n") +
         (local ? "  float v[64];\n"
                  "  for (int i = 0; i < 64; ++i) v[i] = a[i * threadIdx.x];\n"
                  "  for (int i = 0; i < 64; ++i) s += v[(i * 7) % 64] * v[i];\n"
                : "") +
         "  a[threadIdx.x] = s;\n}\n";
}

ladder::toolchain::CompileResult compile(const ladder::toolchain::Nvrtc& nvrtc, bool local, const char* arch,
                                         const char* path = "probe_kernel.cu") {
  ladder::toolchain::CompileRequest req;
  req.source_path = path;
  req.source_text = kernel_source(local);
  req.arch = arch;
  req.options = {"-maxrregcount=32"};
  return nvrtc.compile(req);
}
}  // namespace

TEST_CASE("a cubin's registers, local and static shared bytes are read from the image", "[nvrtc]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  for (const char* arch : {"sm_90", "sm_80"}) {
    const auto plain = compile(nvrtc, false, arch), spilling = compile(nvrtc, true, arch);
    INFO(arch << ": " << plain.error << spilling.error);
    REQUIRE(plain.ok);
    REQUIRE(spilling.ok);
    const auto p = ladder::toolchain::kernel_resources(plain.image, "probe_kernel");
    INFO(p.error);
    REQUIRE(p.ok);
    CHECK(p.resources.registers > 0);
    CHECK(p.resources.registers <= 32);
    CHECK(p.resources.local_bytes == 0);
    // The kernel's own 400 bytes on both archs (sm_90's section also holds the runtime's 1 KiB).
    CHECK(p.resources.static_shared_bytes == 400);
    const auto s = ladder::toolchain::kernel_resources(spilling.image, "probe_kernel");
    REQUIRE(s.ok);
    CHECK(s.resources.registers <= 32);
    CHECK(s.resources.local_bytes > 0);  // 64 indexed floats under a cap of 32 registers
    CHECK(s.resources.static_shared_bytes == 400);
    // The machine code's digest: the same for the same source compiled again under another name,
    // different for the spilling kernel's other code.
    CHECK(p.resources.code_digest.size() == 32);
    const auto moved = compile(nvrtc, false, arch, "elsewhere/probe_kernel.cu");
    REQUIRE(moved.ok);
    CHECK(ladder::toolchain::kernel_resources(moved.image, "probe_kernel").resources.code_digest ==
          p.resources.code_digest);
    CHECK(s.resources.code_digest.size() == 32);
    CHECK(s.resources.code_digest != p.resources.code_digest);
    // A name the image lacks: an error that names it.
    const auto missing = ladder::toolchain::kernel_resources(plain.image, "no_such_kernel");
    CHECK_FALSE(missing.ok);
    CHECK(missing.error.find("no_such_kernel") != std::string::npos);
  }
}

TEST_CASE("a malformed or truncated image gives an error, never a crash", "[nvrtc]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  CHECK_FALSE(ladder::toolchain::kernel_resources("", "k").ok);
  CHECK(ladder::toolchain::kernel_resources("not an elf image", "k").error.find("ELF") != std::string::npos);
  const auto r = compile(nvrtc, false, "sm_90");
  REQUIRE(r.ok);
  // Every prefix of a real image, and the image with bytes flipped: each read stays inside. A
  // prefix that still holds every byte read gives the whole image's numbers; most give an error.
  const auto whole = ladder::toolchain::kernel_resources(r.image, "probe_kernel");
  REQUIRE(whole.ok);
  int failed = 0;
  for (std::size_t n = 0; n < r.image.size(); n += 61) {
    const auto part = ladder::toolchain::kernel_resources(std::string_view(r.image).substr(0, n), "probe_kernel");
    failed += part.ok ? 0 : 1;
    if (part.ok) {
      CHECK(part.resources.registers == whole.resources.registers);
      CHECK(part.resources.static_shared_bytes == whole.resources.static_shared_bytes);
      CHECK(part.resources.code_digest == whole.resources.code_digest);  // the whole section or none
    }
  }
  CHECK(failed > static_cast<int>(r.image.size() / 61) / 2);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bad = r.image;
    for (int i = 0; i < 8; ++i) bad[rng() % bad.size()] = static_cast<char>(rng());
    (void)ladder::toolchain::kernel_resources(bad, "probe_kernel");  // any answer but a crash
  }
}

TEST_CASE("occupancy follows the calculator: registers a warp per sub-partition, shared memory, threads", "[kernels]") {
  constexpr DeviceLimits h200 = DeviceLimits::h200();
  // 40 registers: 1280 a warp, twelve warps a sub-partition: three 512-thread blocks.
  auto o = occupancy(h200, 512, 40, 256, 4096);
  CHECK(o.blocks_per_sm == 3);
  CHECK(o.limited_by == "registers");
  CHECK(o.waves == Approx(4096.0 / (3 * 132)));
  // 58 registers round up to 2048 a warp: 32 warps, ten 3-warp blocks (Nsight Compute: 10 at 63).
  CHECK(occupancy(h200, 96, 58, 256 + 4608, 1320).blocks_per_sm == 10);
  // Registers come from each of the four sub-partitions: at 80 registers (2560 a warp) six warps
  // fit in each, 24 an SM, where the SM's whole file would hold 25.
  CHECK(occupancy(h200, 32, 80, 0, 1).blocks_per_sm == 24);
  // 128 registers at 256 threads: two blocks; at 512 threads, one.
  CHECK(occupancy(h200, 256, 128, 17408, 264).blocks_per_sm == 2);
  CHECK(occupancy(h200, 512, 128, 832 + 229376, 132).blocks_per_sm == 1);
  // Few registers: threads limit (2048 a SM), then the 32-block cap.
  o = occupancy(h200, 512, 32, 256, 1);
  CHECK(o.blocks_per_sm == 4);
  CHECK(o.limited_by == "threads");
  CHECK(occupancy(h200, 32, 16, 0, 1).limited_by == "blocks");
  // Shared memory: 100 KiB a block leaves room for two (228 KiB, 1 KiB a block reserved).
  o = occupancy(h200, 128, 32, 100 * 1024, 1000);
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.limited_by == "shared memory");
  // More than an SM holds: never resident, no waves.
  o = occupancy(h200, 1024, 255, 0, 10);
  CHECK(o.blocks_per_sm == 0);
  CHECK(o.waves == 0);
  CHECK(occupancy(DeviceLimits::a100(), 128, 32, 100 * 1024, 1000).blocks_per_sm == 1);
}

TEST_CASE("bench --resources reports each launch's registers, memory, blocks an SM and waves without a GPU",
          "[cli][nvrtc]") {
  const std::string json_path = temp_path("bench-resources.json");
  const auto o = run_ladder("bench rmsnorm_bwd --dtype bf16 --shape 2048x16384 --resources --json " + json_path);
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK(o.output.find("blocks/SM") != std::string::npos);
  const auto doc = read_json(json_path);
  CHECK(doc.at("resources_only") == true);
  REQUIRE(doc.at("results").size() == 1);
  const auto& kernels = doc.at("results")[0].at("kernels");
  REQUIRE(kernels.size() == 2);  // the row kernel and the weight gradient's reduce
  for (const auto& k : kernels) {
    INFO(k.dump());
    CHECK(k.at("registers").get<int>() > 0);
    CHECK(k.at("blocks_per_sm").get<int>() >= 1);
    CHECK(k.at("waves").get<double>() > 0);
  }
  // The bulk row kernel takes one block an SM and one a row group: one wave of the SMs.
  CHECK(kernels[0].at("entry").get<std::string>().find("rmsnorm_bwd_bulk") != std::string::npos);
  CHECK(kernels[0].at("blocks_per_sm") == 1);
  CHECK(kernels[0].at("waves").get<double>() == Approx(1.0));
  const std::string md = ladder::bench_markdown(doc, "bench-resources.json", nlohmann::json::object());
  CHECK(md.find("nothing timed") != std::string::npos);
  CHECK(md.find("reference device: H200 (132 SMs), sm_90") != std::string::npos);
  CHECK(md.find("| rmsnorm_bwd | bf16 | 2048×16384 | `ladder::rmsnorm_bwd_bulk<") != std::string::npos);
}

TEST_CASE("the report's bench section lists each launch's resources, or why they are unknown", "[bench]") {
  nlohmann::json doc;
  doc["results"] = nlohmann::json::array();
  doc["results"].push_back({{"op", "rmsnorm"}, {"dtype", "bf16"}, {"rows", 8}, {"d", 8}, {"impl", "ladder"},
                            {"cold_us", 1.0}, {"hot_us", 1.0},
                            {"kernels", {{{"entry", "ladder::k<1>"}, {"threads", 128}, {"grid_blocks", 264},
                                          {"dynamic_shared_bytes", 4608}, {"registers", 58}, {"local_bytes", 0},
                                          {"static_shared_bytes", 256}, {"blocks_per_sm", 10},
                                          {"limited_by", "registers"}, {"waves", 0.2}},
                                         {{"entry", "ladder::p"}, {"threads", 32}, {"grid_blocks", 1},
                                          {"dynamic_shared_bytes", 0}, {"resources_error", "a PTX image"}}}}});
  const std::string md = ladder::bench_markdown(doc, "b.json", nlohmann::json::object());
  CHECK(md.find("| rmsnorm | bf16 | 8×8 | `ladder::k<1>` | 58 | 0 | 256+4608 | 128 | 10 (registers) | 264 | 0.20 |") !=
        std::string::npos);
  CHECK(md.find("unknown: a PTX image") != std::string::npos);
  const std::string table = ladder::bench::resources_terminal_table(doc);
  CHECK(table.find("10 (registers)") != std::string::npos);
  // A case that did not plan says why in the terminal table too.
  doc["results"].push_back({{"op", "rmsnorm_bwd"}, {"dtype", "f16"}, {"rows", 2048}, {"d", 16384}, {"impl", "ladder"},
                            {"error", "rmsnorm_bwd: schedule=bulk needs sm_90 or later"}});
  CHECK(ladder::bench::resources_terminal_table(doc).find("error: rmsnorm_bwd: schedule=bulk needs sm_90") !=
        std::string::npos);
  // A document from before resources were recorded has no such table.
  doc["results"][0].erase("kernels");
  CHECK(ladder::bench_markdown(doc, "b.json", nlohmann::json::object()).find("What each launch costs") ==
        std::string::npos);
}
