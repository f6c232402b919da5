// The production-kernel catalog: plan() geometry and arguments, its refusals, the oracles it
// names, and (where NVRTC loads) that every specialization compiles for sm_90 and sm_80.
#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "harness/checks/oracle_registry.h"
#include "harness/kernels/catalog.h"
#include "harness/kernels/plan_builder.h"
#include "harness/bench/every_build.h"
#include "harness/report/build_resources.h"
#include "harness/toolchain/driver.h"
#include "harness/toolchain/nvrtc.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The NVRTC request for one planned entry of `source` (whose text the caller has read).
ladder::toolchain::CompileRequest entry_request(
    const std::string& source, const std::string& text, const std::string& entry,
    const std::string& arch, ladder::toolchain::ImageKind want = ladder::toolchain::ImageKind::Cubin) {
  ladder::toolchain::CompileRequest req;
  req.source_path = source;
  req.source_text = text;
  req.entry = entry;
  req.arch = arch;
  req.want = want;
  return req;
}

}  // namespace

TEST_CASE("catalog lists its ops and every op plans every dtype", "[kernels]") {
  ladder::register_builtin_oracles();
  const auto ops = ladder::kernels::ops();
  for (const char* op : {"rmsnorm", "add_rmsnorm", "layernorm", "rmsnorm_bwd", "add_rmsnorm_bwd",
                         "layernorm_bwd", "column_sum"})
    CHECK(std::find(ops.begin(), ops.end(), op) != ops.end());
  for (const auto& op : ops)
    for (DType dt : {DType::F32, DType::F16, DType::BF16})
      for (std::int64_t rows : {0, 1, 7, 83, 4096})
        for (std::int64_t d : {1, 2, 3, 8, 769, 2049, 4096, 32768, 65536})
          plan_checked({op, dt, {}}, {{"rows", rows}, {"d", d}});
}

TEST_CASE("plan picks register-resident geometry for the benchmark shapes", "[kernels]") {
  ladder::register_builtin_oracles();
  struct Want { std::int64_t rows, d; DType dt; std::uint32_t tpr; };
  // Aligned dense rows: the whole row in one tile, every thread busy.
  for (const auto& w : {Want{16384, 4096, DType::BF16, 128}, Want{16384, 1024, DType::BF16, 32},
                        Want{4096, 8192, DType::BF16, 256}, Want{4096, 16384, DType::BF16, 512},
                        Want{512, 32768, DType::BF16, 1024}, Want{512, 32768, DType::F32, 1024}}) {
    const auto L = plan_checked({"rmsnorm", w.dt, {{"schedule", "regs"}}}, {{"rows", w.rows}, {"d", w.d}}).front();
    INFO(w.rows << "x" << w.d << " " << L.entry);
    CHECK(L.block[0] == w.tpr);
    const int vec = w.dt == DType::F32 ? 4 : 8;
    const int items = L.entry[L.entry.size() - 2] - '0';
    CHECK(std::int64_t{L.block[0]} * items * vec == w.d);
  }
  // f32: four chunks a thread where that keeps the block at most 512 threads, eight (a small
  // spill) where four would need a 1024-thread block.
  for (const auto& w : {Want{16384, 4096, DType::F32, 256}, Want{4096, 16384, DType::F32, 512}}) {
    const auto L = plan_checked({"rmsnorm", w.dt, {{"schedule", "regs"}}}, {{"rows", w.rows}, {"d", w.d}}).front();
    INFO(w.rows << "x" << w.d << " " << L.entry);
    CHECK(L.block[0] == w.tpr);
  }
  // add_rmsnorm's register kernel never spills to keep a row in registers: a 16-bit row past
  // 1024 x 2 chunks streams there, and auto takes 8 chunks in 512 threads (the row-a-block
  // kernel; schedule=wide the wide register kernel).
  const auto wide = plan_checked({"add_rmsnorm", DType::BF16, {}}, {{"rows", 512}, {"d", 32768}});
  CHECK(wide.front().block[0] == 512);
  CHECK(wide.front().entry == "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 512>");
  const auto streamed = plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "regs"}}}, {{"rows", 512}, {"d", 32768}});
  CHECK(streamed.front().block[0] == 1024);
  CHECK(streamed.front().entry.find(", 2, ") != std::string::npos);
  // Odd d, the register kernel (auto takes the packed one there: test_packed_plans.cpp): a spare
  // chunk for the row's phase, and most threads busy.
  const auto odd = plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "regs"}}}, {{"rows", 8192}, {"d", 2049}});
  CHECK(odd.front().block[0] >= 96);
  // ... with three chunks a thread, the measured best for 16-bit rows off the 16-byte grid.
  CHECK(odd.front().entry.find(", 3, ") != std::string::npos);
  // A decode row spreads over many threads.
  const auto decode = plan_checked({"add_rmsnorm", DType::BF16, {}}, {{"rows", 1}, {"d", 4096}});
  CHECK(decode.front().block[0] >= 256);
}

TEST_CASE("rows a block: two where a 16-bit LayerNorm or RMSNorm row on the 16-byte grid takes one warp, else 256 threads",
          "[kernels]") {
  ladder::register_builtin_oracles();
  struct Want {
    std::string op; DType dt; std::int64_t d; std::string entry; std::uint32_t rpb;
    std::map<std::string, std::string> variant = {};
  };
  // LayerNorm's 16-bit rows of 1024 by schedule=regs: auto holds them (test_loop_plans.cpp).
  const std::map<std::string, std::string> regs{{"schedule", "regs"}};
  for (const auto& w : {Want{"layernorm", DType::BF16, 1024, "ladder::layernorm_fwd<__nv_bfloat16, 4>", 2, regs},
                        Want{"layernorm", DType::F16, 1024, "ladder::layernorm_fwd<__half, 4>", 2, regs},
                        Want{"layernorm", DType::BF16, 768, "ladder::layernorm_fwd<__nv_bfloat16, 3>", 2},
                        Want{"rmsnorm", DType::BF16, 768, "ladder::rmsnorm_fwd<__nv_bfloat16, 3>", 2},
                        // Narrower 16-bit rows, fp32 rows and add_rmsnorm: eight warps' worth.
                        Want{"layernorm", DType::BF16, 256, "ladder::layernorm_fwd<__nv_bfloat16, 4>", 32},
                        Want{"layernorm", DType::F32, 512, "ladder::layernorm_fwd<float, 4>", 8},
                        Want{"add_rmsnorm", DType::BF16, 512, "ladder::add_rmsnorm_fwd<__nv_bfloat16, 2, false>", 8}}) {
    const auto L = plan_checked({w.op, w.dt, w.variant}, {{"rows", 65536}, {"d", w.d}}).front();
    INFO(w.op << " " << ladder::label(w.dt) << " d=" << w.d << " " << L.entry << " block " << L.block[0]
              << "x" << L.block[1]);
    CHECK(L.entry == w.entry);
    CHECK(L.block[1] == w.rpb);
    CHECK(std::int64_t{L.grid[0]} * L.block[1] >= 65536);
  }
  // Rows off the 16-byte grid in the OFF_GRID register builds keep eight too (schedule=regs: at
  // these rows auto takes schedule=phase).
  const Case off{{"rows", 65536}, {"d", 769}};
  const auto ln = plan_checked({"layernorm", DType::BF16, {{"schedule", "regs"}}}, off).front();
  CHECK(ln.entry == "ladder::layernorm_fwd<__nv_bfloat16, 4, 1024, true>");
  CHECK(ln.block[1] == 8);
  const auto rms = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, off).front();
  CHECK(rms.entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4, 1024, false, true>");
  CHECK(rms.block[1] == 8);
  // rpb pins it; two rows a thread (rmsnorm's auto at d = 1016) keep their own geometry.
  CHECK(plan_checked({"layernorm", DType::BF16, {{"rpb", "8"}}}, {{"rows", 65536}, {"d", 1024}}).front().block[1] == 8);
  const auto rows2 = plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 65536}, {"d", 1016}}).front();
  CHECK(rows2.entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(rows2.block[0] == 64);
}

TEST_CASE("plan declares variants' buffers, aliases and null arguments", "[kernels]") {
  ladder::register_builtin_oracles();
  const Case c{{"rows", 5}, {"d", 33}};
  auto both = plan_checked({"add_rmsnorm", DType::F16, {{"inplace", "both"}}}, c).front();
  REQUIRE(find_buffer(both, "h") != nullptr);
  CHECK(find_buffer(both, "h")->alias_of == "r");
  CHECK(find_buffer(both, "y")->alias_of == "x");
  CHECK(find_buffer(both, "r")->role == BufferRole::InOut);

  auto none = plan_checked({"rmsnorm", DType::F32, {{"weight", "none"}, {"write_rstd", "0"}}}, c);
  CHECK(find_buffer(none.front(), "w") == nullptr);
  CHECK(find_buffer(none.front(), "rstd") == nullptr);
  int nulls = 0;
  for (const auto& a : none.front().args)
    if (!a.is_buffer && a.type == DType::F64 && a.value == 0) ++nulls;
  CHECK(nulls == 2);

  auto odd = plan_checked({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, c).front();
  CHECK(find_buffer(odd, "x")->row_stride != find_buffer(odd, "y")->row_stride);
  auto padded = plan_checked({"rmsnorm", DType::BF16, {{"strided", "1"}}}, c).front();
  CHECK(find_buffer(padded, "x")->row_stride % 8 == 0);
  CHECK(find_buffer(padded, "x")->row_stride > 33);
  auto explicit_stride = plan_checked({"rmsnorm", DType::BF16, {}},
                                      {{"rows", 5}, {"d", 33}, {"x_stride", 100}}).front();
  CHECK(find_buffer(explicit_stride, "x")->row_stride == 100);

  auto bwd = plan_checked({"layernorm_bwd", DType::BF16, {}}, {{"rows", 300}, {"d", 4096}});
  REQUIRE(bwd.size() == 2);  // the row kernel, then dgamma and dbeta reduced in one launch
  CHECK(find_buffer(bwd.front(), "dgamma_partial")->role == BufferRole::Scratch);
  CHECK(find_buffer(bwd.front(), "dgamma_partial")->rows == bwd.front().grid[0]);
  CHECK(bwd[1].entry == "ladder::column_sum_pair<__nv_bfloat16>");
  CHECK(bwd[1].programmatic);
  // column_sums=separate: one reduce each; pdl=0: ordinary launches.
  auto separate = plan_checked({"layernorm_bwd", DType::BF16, {{"column_sums", "separate"}, {"pdl", "0"}}},
                               {{"rows", 300}, {"d", 4096}});
  REQUIRE(separate.size() == 3);
  for (std::size_t i = 1; i < separate.size(); ++i) {
    CHECK(separate[i].entry == "ladder::column_sum<__nv_bfloat16>");
    CHECK(!separate[i].programmatic);
  }
  CHECK(plan_checked({"rmsnorm_bwd", DType::F32, {}}, c).back().programmatic);
  auto no_w = plan_checked({"rmsnorm_bwd", DType::F32, {{"weight", "none"}}}, c);
  CHECK(no_w.size() == 1);
}

// kernels/column_sum.cuh takes four columns a thread exactly where its grid gives fewer than
// one thread a column, so the grid is the whole contract: 128 columns a block for d a multiple
// of 4, 32 otherwise, and never a column left without a block.
TEST_CASE("column_sum grids: four columns a thread on the 16-byte grid, one off it", "[kernels]") {
  ladder::register_builtin_oracles();
  for (auto [d, blocks] : std::vector<std::pair<int, std::uint32_t>>{
           {16384, 128}, {4096, 32}, {2049, 65}, {769, 25}, {8, 1}, {36, 1}, {132, 2}, {1, 1}}) {
    CAPTURE(d);
    const auto plan = plan_checked({"rmsnorm_bwd", DType::BF16, {}}, {{"rows", 7}, {"d", d}});
    REQUIRE(plan.size() == 2);
    const KernelLaunch& reduce = plan.back();
    CHECK(reduce.entry == "ladder::column_sum<__nv_bfloat16>");
    CHECK(reduce.block == std::array<std::uint32_t, 3>{32, 32, 1});
    CHECK(reduce.grid[0] == blocks);
    const std::int64_t per_thread = std::int64_t{reduce.grid[0]} * 32 < d ? 4 : 1;
    CHECK(std::int64_t{reduce.grid[0]} * 32 * per_thread >= d);
    CHECK((per_thread == 1 || d % 4 == 0));
  }
}

TEST_CASE("plan rejects bad input with messages naming the op", "[kernels]") {
  const KernelRef ref{"rmsnorm", DType::F32, {}};
  const Case ok{{"rows", 4}, {"d", 8}};
  auto throws = [](const KernelRef& r, const Case& c, const std::map<std::string, double>& s,
                   const std::string& needle) {
    INFO(describe(r, c) << " expecting '" << needle << "'");
    try {
      ladder::kernels::plan(r, c, s);
      FAIL("plan() accepted it");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find(needle) != std::string::npos);
      CHECK(what.find(r.op) != std::string::npos);
    }
  };
  throws(ref, ok, {{"eps", 0.0}}, "eps");
  throws(ref, ok, {{"eps", -1e-6}}, "eps");
  throws(ref, ok, {}, "eps");
  throws(ref, ok, {{"eps", 1e-50}}, "eps 1e-50 rounds to 0 in fp32");
  throws(ref, ok, {{"eps", 1e39}}, "eps 1e+39 overflows fp32");
  throws(ref, ok, {{"eps", std::numeric_limits<double>::quiet_NaN()}}, "eps must be a finite number > 0, got nan");
  throws(ref, {{"rows", 4}, {"d", 0}}, kEps, "d (hidden size) must be >= 1");
  throws(ref, {{"rows", -1}, {"d", 8}}, kEps, "rows must be >= 0");
  throws(ref, {{"d", 8}}, kEps, "rows");
  throws(ref, {{"rows", 4}, {"d", std::int64_t{1} << 30}}, kEps, "exceeds");
  throws({"rmsnorm", DType::F32, {{"wieght", "plain"}}}, ok, kEps, "unknown variant key 'wieght'");
  throws({"rmsnorm", DType::F32, {{"weight", "heavy"}}}, ok, kEps, "weight=heavy");
  throws({"add_rmsnorm", DType::F32, {{"convention", "C"}}}, ok, kEps, "convention=C");
  throws({"rmsnorm", DType::I32, {}}, ok, kEps, "dtype");
  throws({"rmsnorm", DType::BF16, {{"items", "8"}}}, ok, kEps, "items=8");
  throws(ref, {{"rows", 4}, {"d", 8}, {"x_stride", 4}}, kEps, "x_stride");
  throws({"nosuchnorm", DType::F32, {}}, ok, kEps, "unknown kernel op");
}

TEST_CASE("all_specializations covers every op, dtype and ITEMS", "[kernels]") {
  std::set<std::string> entries;
  for (const auto& [source, entry] : catalog_entries()) entries.insert(entry);
  for (const char* must : {"ladder::rmsnorm_fwd<float, 8>", "ladder::rmsnorm_fwd<__nv_bfloat16, 4>",
                           "ladder::add_rmsnorm_fwd<__half, 3, true>",
                           "ladder::add_rmsnorm_fwd<__nv_bfloat16, 4, false>",
                           "ladder::layernorm_fwd<__half, 1>", "ladder::rmsnorm_bwd<float, 4>",
                           "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2>",
                           "ladder::rmsnorm_bwd<__nv_bfloat16, 2, false, true>",
                           "ladder::rmsnorm_bwd<float, 3, false, true>",
                           "ladder::add_rmsnorm_bwd<__half, 2, false, true>",
                           "ladder::add_rmsnorm_bwd<float, 4, false, true>",
                           "ladder::layernorm_bwd<__half, 2>", "ladder::column_sum<float>",
                           "ladder::layernorm_bwd<__half, 2, true>",
                           "ladder::layernorm_bwd<__half, 2, false, true>",
                           "ladder::layernorm_bwd<float, 4, true, true>",
                           "ladder::add_rmsnorm_bwd<float, 4, true>",
                           "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 3>",
                           "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>",
                           "ladder::rmsnorm_fwd_rows<float, 1, 4>",
                           "ladder::add_rmsnorm_fwd_staged<__half, 2, true, 2>",
                           "ladder::rmsnorm_fwd<__half, 8, 256>", "ladder::layernorm_fwd<float, 8, 256>",
                           "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, true, 512>",
                           "ladder::add_rmsnorm_fwd<__half, 8, false, 512, true>",
                           "ladder::rmsnorm_fwd<__nv_bfloat16, 8, 256, true>",
                           "ladder::rmsnorm_fwd_decode<__half>",
                           "ladder::add_rmsnorm_fwd_decode<__nv_bfloat16, true>",
                           "ladder::add_rmsnorm_fwd_decode<float, false>",
                           "ladder::add_rmsnorm_fwd_row<__half, 8, true, 512>",
                           "ladder::add_rmsnorm_fwd_row<float, 8, false, 512>",
                           "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 4, true, 1024>",
                           "ladder::rmsnorm_fwd_row<__half, 4, 128>",
                           "ladder::layernorm_fwd_row<float, 4, 1024>",
                           "ladder::add_rmsnorm_fwd_row<__nv_bfloat16, 8, false, 128>",
                           "ladder::add_rmsnorm_fwd_row<__half, 8, false, 256>",
                           "ladder::add_rmsnorm_fwd_row<float, 8, false, 64>",
                           "ladder::layernorm_fwd_loop<__nv_bfloat16, 128, 3>",
                           "ladder::layernorm_fwd_loop<float, 1024, 2>",
                           "ladder::rmsnorm_fwd_loop<__half, 512>",
                           "ladder::add_rmsnorm_fwd_loop<__nv_bfloat16, 256, true>",
                           "ladder::add_rmsnorm_fwd_loop<float, 1024, false>",
                           // The held rows, and the 64-thread blocks they take at d = 1024.
                           "ladder::rmsnorm_fwd_loop<__nv_bfloat16, 64, 2>",
                           "ladder::rmsnorm_fwd_loop<float, 1024, 8>",
                           "ladder::layernorm_fwd_loop<__half, 512, 3, 4>",
                           "ladder::layernorm_fwd_loop<__nv_bfloat16, 64, 2>",
                           "ladder::add_rmsnorm_fwd_loop<__half, 64, false>",
                           "ladder::layernorm_fwd_bulk<__nv_bfloat16, 2, 1024>",
                           "ladder::layernorm_fwd_bulk<__half, 4, 32>",
                           "ladder::layernorm_fwd_bulk<float, 1, 512>",
                           "ladder::layernorm_bwd_bulk<__half, 4, 512>",
                           "ladder::layernorm_bwd_bulk_cluster<__half, 4, 512, 2>",
                           "ladder::layernorm_bwd_bulk_cluster<float, 1, 32, 2>",
                           "ladder::layernorm_bwd_bulk_cluster<float, 1, 32, 2, false>",
                           "ladder::rmsnorm_bwd_bulk_cluster<__nv_bfloat16, 4, 512, 2, false>",
                           "ladder::add_rmsnorm_bwd_bulk_cluster<__half, 2, 256, 2>",
                           // The pooled partial rows, at the widths they are built for.
                           "ladder::rmsnorm_bwd_bulk_pooled<__nv_bfloat16, 4, 512, 2>",
                           "ladder::add_rmsnorm_bwd_bulk_pooled<float, 2, 256, 2>",
                           "ladder::layernorm_bwd_bulk_pooled<__half, 4, 1024, 2>",
                           // OFF_GRID builds, which rows on the grid (the compile shapes) never
                           // plan by themselves: auto's at d = 2049, and the wide ones.
                           "ladder::rmsnorm_fwd<__nv_bfloat16, 3, 1024, false, true>",
                           "ladder::add_rmsnorm_fwd<float, 2, false, 1024, false, true>",
                           "ladder::layernorm_fwd<__half, 3, 1024, true>",
                           "ladder::rmsnorm_fwd<__nv_bfloat16, 8, 256, true, true>",
                           "ladder::add_rmsnorm_fwd<__half, 8, true, 512, true, true>",
                           "ladder::layernorm_fwd<float, 8, 256, true>",
                           // The phase kernels, with and without a row asked of the L2.
                           "ladder::rmsnorm_fwd_phase<__nv_bfloat16, 3>",
                           "ladder::rmsnorm_fwd_phase<__half, 4, true>",
                           "ladder::add_rmsnorm_fwd_phase<__nv_bfloat16, 2, true, true>",
                           "ladder::add_rmsnorm_fwd_phase<float, 2, false>",
                           "ladder::layernorm_fwd_phase<float, 2, true>",
                           "ladder::layernorm_fwd_phase<float, 2>",
                           "ladder::rmsnorm_bwd_phase<__nv_bfloat16, 2>",
                           "ladder::rmsnorm_bwd_phase<float, 1, true>",
                           "ladder::add_rmsnorm_bwd_phase<__half, 1, true>",
                           "ladder::layernorm_bwd_phase<__nv_bfloat16, 2, true>",
                           "ladder::layernorm_bwd_phase<__nv_bfloat16, 1, false, true>",
                           "ladder::layernorm_bwd_phase<__half, 2, true, true>",
                           // The flat kernels, one build per d mod VEC.
                           "ladder::rmsnorm_fwd_flat<__nv_bfloat16, 1, true>",
                           "ladder::rmsnorm_fwd_flat<__half, 4, true>",
                           "ladder::rmsnorm_fwd_flat<float, 3, true>",
                           "ladder::rmsnorm_bwd_flat<__nv_bfloat16, 2, 288, 2, false, true>",
                           "ladder::rmsnorm_bwd_flat<float, 1, 288, 2, false, true>",
                           "ladder::rmsnorm_fwd_flat_bulk<__nv_bfloat16, 1>",
                           "ladder::rmsnorm_bwd_flat_bulk<__half, 4>",
                           "ladder::rmsnorm_bwd_flat_bulk<float, 3>"}) {
    INFO(must);
    CHECK(entries.count(must) == 1);
  }
}

// How far a template's register range may sit from kernels/README.md's table (build_table_differences).
constexpr int kRegisterSlack = 4;

// Compiles each distinct (source, entry) of every specialization through the project's NVRTC
// pipeline, for both target archs, on as many threads as the machine has; reads every cubin's
// registers and local memory, and holds kernels/README.md's table of them (sm_90) to this compile.
TEST_CASE("every kernel specialization compiles with NVRTC for sm_90 and sm_80", "[kernels][nvrtc]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  // The same compile as `ladder bench --resources --every-build`, once for each arch.
  std::vector<ladder::report::BuildResources> sm90;
  std::size_t compiles = 0;
  for (const char* arch : {"sm_90", "sm_80"}) {
    const auto every = ladder::bench::compile_every_build(nvrtc, arch);
    compiles += every.builds.size() + every.failures.size();
    for (const auto& f : every.failures) FAIL_CHECK(f << " for " << arch);
    CHECK(every.failures.empty());
    CHECK(every.builds.size() == catalog_entries().size());
    if (arch == std::string("sm_90")) sm90 = every.builds;
  }
  INFO(compiles << " compiles");

  // kernels/README.md's table of every build's registers and local memory, for the NVRTC its
  // marker line names: what `ladder bench --resources --every-build` prints.
  const std::string readme_path = ladder::kernels::kernels_dir() + "/README.md";
  const std::string readme = read_file(readme_path);
  const std::string marker = "<!-- every-build sm_90 NVRTC ";
  const auto at = readme.find(marker);
  if (at == std::string::npos) FAIL(readme_path << " has no line '" << marker << "X.Y -->' before its table of every build");
  const auto version_end = readme.find(" -->", at);
  const std::string documented_version = readme.substr(at + marker.size(), version_end - at - marker.size());
  const auto v = nvrtc.version();
  const std::string version = std::to_string(v.major) + "." + std::to_string(v.minor);
  if (documented_version != version) {
    WARN("kernels/README.md's table of every build is NVRTC " << documented_version << "'s; this is NVRTC "
                                                               << version << ": not compared");
    return;
  }
  const auto table_start = readme.find('\n', version_end) + 1;
  const auto table_end = readme.find("\n\n", table_start);
  const std::string documented = readme.substr(table_start, table_end - table_start + 1);
  const std::string compiled = ladder::report::build_resources_markdown(sm90);
  INFO("kernels/README.md's table of every build (sm_90) differs from this NVRTC's compile; regenerate it with "
       "`ladder bench --resources --every-build` and paste the table under its marker line.\nCompiled:\n"
       << compiled);
  // Within build_table_differences' slack: ptxas has moved one unchanged build by 2 registers
  // between two compiles of the same source.
  CHECK(ladder::report::build_table_differences(documented, compiled, kRegisterSlack) == "");
}

namespace {
// The compute_90 PTX of the first launch auto plans for op at rows x d: where a build's load
// hints show.
std::string planned_ptx(const ladder::toolchain::Nvrtc& nvrtc, const std::string& op, DType dtype, std::int64_t rows,
                        std::int64_t d) {
  const KernelLaunch L = entry_of({op, dtype, {}}, rows, d);
  const auto r = nvrtc.compile(entry_request(L.source, read_file(L.source), L.entry, "compute_90",
                                             ladder::toolchain::ImageKind::Ptx));
  INFO(op << " " << ladder::label(dtype) << " " << rows << "x" << d << " " << L.entry << ": " << r.error << "\n" << r.log);
  REQUIRE(r.ok);
  return r.image;
}
}  // namespace

// layernorm_bwd reads x and dy of 16-bit one-tile rows with ld.global.L1::no_allocate
// (norm::Load::Stream), where it measured faster; fp32 rows, shifted rows and the other kernels
// measured slower with it (reports/h200/bench-l1.txt). The PTX shows which builds carry the hint
// (a build holds both its one-tile and its streaming body, so d only picks SHIFTED here).
TEST_CASE("only layernorm_bwd's 16-bit one-tile rows skip L1 for their row loads", "[kernels][nvrtc]") {
  ladder::register_builtin_oracles();
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  auto streams = [&](const std::string& op, DType dtype, std::int64_t d) {
    return planned_ptx(nvrtc, op, dtype, 16384, d).find("L1::no_allocate") != std::string::npos;
  };
  CHECK(streams("layernorm_bwd", DType::BF16, 4096));
  CHECK(streams("layernorm_bwd", DType::F16, 1024));
  CHECK_FALSE(streams("layernorm_bwd", DType::F32, 4096));
  CHECK_FALSE(streams("layernorm_bwd", DType::BF16, 2049));  // SHIFTED
  CHECK_FALSE(streams("rmsnorm_bwd", DType::BF16, 4096));
  CHECK_FALSE(streams("rmsnorm", DType::BF16, 4096));
  CHECK_FALSE(streams("add_rmsnorm", DType::BF16, 4096));
}

// Row reads under the L2 keep policy (norm::Load::Keep, the bulk copies' cache hint) where the
// H200 measured them faster behind a dirty L2 (calls 237-238, kernels/global_loads.cuh) or the
// H100 did (call 243: the row-a-block kernels, kernels/block_row.cuh), and nowhere either measured
// them level or slower. The PTX shows which builds carry the hint.
TEST_CASE("kept row reads are in the builds that measured faster with them, and only there", "[kernels][nvrtc]") {
  ladder::register_builtin_oracles();
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  auto kept = [&](const std::string& op, DType dtype, std::int64_t rows, std::int64_t d) {
    return planned_ptx(nvrtc, op, dtype, rows, d).find("L2::cache_hint") != std::string::npos;
  };
  CHECK(kept("layernorm", DType::BF16, 2047, 1024));        // the register kernel's x
  CHECK(kept("layernorm", DType::BF16, 65536, 1024));       // the held rows (held_row.cuh)
  CHECK(kept("layernorm", DType::F32, 65536, 1024));
  CHECK(kept("layernorm", DType::BF16, 2048, 32768));       // the bulk copies
  CHECK(kept("rmsnorm_bwd", DType::BF16, 2048, 16384));
  CHECK(kept("rmsnorm_bwd", DType::F32, 16384, 4096));      // fp32 backward rows
  CHECK(kept("layernorm_bwd", DType::F32, 16384, 4096));
  CHECK(kept("add_rmsnorm", DType::BF16, 512, 32768));      // a row a block (block_row.cuh)
  CHECK_FALSE(kept("rmsnorm_bwd", DType::BF16, 16384, 4096));
  CHECK_FALSE(kept("layernorm_bwd", DType::BF16, 16384, 4096));
  CHECK_FALSE(kept("rmsnorm", DType::BF16, 16384, 2049));   // the phase kernels: level
  CHECK_FALSE(kept("rmsnorm", DType::BF16, 16384, 768));    // the register kernels
}
