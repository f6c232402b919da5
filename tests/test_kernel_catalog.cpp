// The production-kernel catalog: plan() geometry and arguments, its refusals, the oracles it
// names, and (where NVRTC loads) that every specialization compiles for sm_90 and sm_80.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness/checks/oracle_registry.h"
#include "harness/kernels/catalog.h"
#include "harness/toolchain/driver.h"
#include "harness/toolchain/nvrtc.h"
#include "tests/catch.h"

using ladder::BufferRole;
using ladder::Case;
using ladder::ConcreteBuffer;
using ladder::DType;
using ladder::KernelLaunch;
using ladder::KernelRef;
using ladder::kernels::DeviceLimits;

namespace {

const std::map<std::string, double> kEps = {{"eps", 1e-6}};

const ConcreteBuffer* find_buffer(const KernelLaunch& L, const std::string& name) {
  for (const auto& b : L.buffers)
    if (b.name == name) return &b;
  return nullptr;
}

std::string describe(const KernelRef& ref, const Case& c) {
  std::string s = ref.op + " " + std::string(ladder::label(ref.dtype));
  for (const auto& [k, v] : ref.variant) s += " " + k + "=" + v;
  for (const auto& [k, v] : c) s += " " + k + "=" + std::to_string(v);
  return s;
}

// Geometry and argument checks that hold for every launch of every op.
void check_launch(const KernelRef& ref, const Case& c, const KernelLaunch& L, bool first) {
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
  CHECK(L.grid[1] == 1);
  CHECK(L.grid[2] == 1);
  CHECK(!L.entry.empty());
  CHECK(L.source.rfind(ladder::kernels::kernels_dir(), 0) == 0);
  CHECK(ladder::find_oracle(L.oracle) != nullptr);
  const bool row_kernel = L.entry.find("column_sum") == std::string::npos;
  // Backward and staged kernels walk rows on a fixed grid.
  const bool staged = L.entry.find("_staged") != std::string::npos;
  const bool persistent = L.entry.find("_bwd") != std::string::npos || staged;
  if (staged) {
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

std::vector<KernelLaunch> plan_checked(const KernelRef& ref, const Case& c,
                                       const DeviceLimits& device = DeviceLimits::h200()) {
  const auto launches = ladder::kernels::plan(ref, c, kEps, device);
  REQUIRE(!launches.empty());
  for (std::size_t i = 0; i < launches.size(); ++i) check_launch(ref, c, launches[i], i == 0);
  return launches;
}

// The first launch of a checked plan for a rows x d case: where an op's schedule choice shows.
KernelLaunch entry_of(const KernelRef& ref, std::int64_t rows, std::int64_t d) {
  return plan_checked(ref, {{"rows", rows}, {"d", d}}).front();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
    const auto L = plan_checked({"rmsnorm", w.dt, {}}, {{"rows", w.rows}, {"d", w.d}}).front();
    INFO(w.rows << "x" << w.d << " " << L.entry);
    CHECK(L.block[0] == w.tpr);
  }
  // add_rmsnorm never spills to keep a row in registers: a 16-bit row past 1024 x 2 chunks
  // streams instead.
  const auto wide = plan_checked({"add_rmsnorm", DType::BF16, {}}, {{"rows", 512}, {"d", 32768}});
  CHECK(wide.front().block[0] == 1024);
  CHECK(wide.front().entry.find(", 2, ") != std::string::npos);
  // Odd d: a spare chunk for the row's phase, and most threads busy.
  const auto odd = plan_checked({"add_rmsnorm", DType::BF16, {}}, {{"rows", 8192}, {"d", 2049}});
  CHECK(odd.front().block[0] >= 96);
  // ... with three chunks a thread, the measured best for 16-bit rows off the 16-byte grid.
  CHECK(odd.front().entry.find(", 3, ") != std::string::npos);
  // A decode row spreads over many threads.
  const auto decode = plan_checked({"add_rmsnorm", DType::BF16, {}}, {{"rows", 1}, {"d", 4096}});
  CHECK(decode.front().block[0] >= 256);
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
  REQUIRE(bwd.size() == 3);  // the row kernel, then dgamma and dbeta reduces
  CHECK(find_buffer(bwd.front(), "dgamma_partial")->role == BufferRole::Scratch);
  CHECK(find_buffer(bwd.front(), "dgamma_partial")->rows == bwd.front().grid[0]);
  auto no_w = plan_checked({"rmsnorm_bwd", DType::F32, {{"weight", "none"}}}, c);
  CHECK(no_w.size() == 1);
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

TEST_CASE("backward plans: shifted kernels for rows off the 16-byte grid, SMs kept full",
          "[kernels]") {
  ladder::register_builtin_oracles();
  for (const char* op : {"rmsnorm_bwd", "add_rmsnorm_bwd", "layernorm_bwd"}) {
    for (const auto& [rows, d] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {8192, 2049}, {16384, 4096}, {4096, 5125}, {257, 769}}) {
      const auto L = plan_checked({op, DType::BF16, {}}, {{"rows", rows}, {"d", d}}).front();
      INFO(op << " " << rows << "x" << d << " " << L.entry << " block " << L.block[0] << "x"
              << L.block[1] << " grid " << L.grid[0]);
      const bool odd = d % 8 != 0;
      CHECK((L.entry.find(", true>") != std::string::npos) == odd);
      // The resident grid fills at least 3/4 of the 512 threads an SM holds at 128 registers
      // (d = 5125 has no such shape within two chunks a thread: 352 x 2 is its best).
      const std::uint32_t threads = L.block[0] * L.block[1];
      if (d != 5125) CHECK((512 / threads) * threads >= 384);
      // Rows of one group keep their phase: the grid's row step is a multiple of 8 rows for
      // a 2-byte stride that is 2 mod 16 bytes.
      const std::int64_t step = std::int64_t{L.grid[0]} * L.block[1];
      if (odd && step < rows) CHECK(step % 8 == 0);
    }
  }
  // shift=0 pins the unshifted kernel, shift=1 the shifted one.
  const auto pinned0 = plan_checked({"rmsnorm_bwd", DType::BF16, {{"shift", "0"}}},
                                    {{"rows", 83}, {"d", 2049}});
  CHECK(pinned0.front().entry.find(", true>") == std::string::npos);
  const auto pinned1 = plan_checked({"rmsnorm_bwd", DType::F32, {{"shift", "1"}}},
                                    {{"rows", 83}, {"d", 4096}});
  CHECK(pinned1.front().entry.find(", true>") != std::string::npos);
}

TEST_CASE("backward plans: shared memory for the weight-gradient sums the kernels keep there",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // add_rmsnorm_bwd keeps dw (1 sum) and layernorm_bwd dgamma and dbeta (2) in shared memory:
  // 4 bytes a value, 16 values a thread at these shapes (kernels/backward_common.cuh);
  // rmsnorm_bwd keeps dw in registers.
  for (const auto& [rows, d] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {16384, 4096}, {8192, 2049}, {7, 8}, {4, 65536}}) {
    for (DType dt : {DType::F32, DType::BF16}) {
      for (const auto& [op, sums] : std::vector<std::pair<std::string, int>>{
               {"rmsnorm_bwd", 0}, {"add_rmsnorm_bwd", 1}, {"layernorm_bwd", 2}}) {
        const auto L = entry_of({op, dt, {}}, rows, d);
        INFO(op << " " << rows << "x" << d << " " << L.entry << " block " << L.block[0] << "x"
                << L.block[1]);
        const std::size_t items = std::stoul(L.entry.substr(L.entry.find(", ") + 2));
        const std::size_t values = items * (dt == DType::F32 ? 4 : 8);
        CHECK(L.shared_bytes == std::size_t{L.block[0]} * L.block[1] * values * 4 * sums);
      }
    }
  }
  // Without weight gradients, none.
  CHECK(entry_of({"add_rmsnorm_bwd", DType::BF16, {{"weight", "none"}}}, 16384, 4096).shared_bytes == 0);
  CHECK(entry_of({"layernorm_bwd", DType::BF16, {{"affine", "0"}}}, 16384, 4096).shared_bytes == 0);
  // broken_launch=short_shared (probes/selftest.json): 16 bytes short, the rest unchanged; a plan
  // error where there are no sums to shorten, and for rmsnorm_bwd (registers).
  for (const char* op : {"add_rmsnorm_bwd", "layernorm_bwd"}) {
    const auto planned = entry_of({op, DType::BF16, {}}, 300, 4096);
    const auto shorted = entry_of({op, DType::BF16, {{"broken_launch", "short_shared"}}}, 300, 4096);
    CHECK(shorted.entry == planned.entry);
    CHECK(shorted.block == planned.block);
    CHECK(shorted.grid == planned.grid);
    CHECK(shorted.shared_bytes + 16 == planned.shared_bytes);
  }
  CHECK_THROWS_WITH(ladder::kernels::plan({"layernorm_bwd", DType::BF16, {{"affine", "0"}, {"broken_launch", "short_shared"}}},
                                          {{"rows", 300}, {"d", 4096}}, kEps),
                    ladder_test::has_substr("needs weight gradients"));
  CHECK_THROWS_WITH(ladder::kernels::plan({"rmsnorm_bwd", DType::BF16, {{"broken_launch", "short_shared"}}},
                                          {{"rows", 300}, {"d", 4096}}, kEps),
                    ladder_test::has_substr("broken_launch"));
}

TEST_CASE("staged schedule: auto takes it only where it measured faster; its grid and memory",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // A 16-bit row that fills a 1024-thread block in registers: staged, three stages where they
  // fit a block, two where they do not.
  const auto wide = entry_of({"rmsnorm", DType::BF16, {}}, 2048, 32768);
  CHECK(wide.entry == "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 3>");
  CHECK(wide.block[0] == 1024);
  CHECK(wide.block[1] == 1);
  CHECK(wide.shared_bytes == 3u * 1024 * 4 * 16);
  CHECK(wide.grid[0] == 132);  // one 192 KiB block an SM, each walking rows
  // add_rmsnorm's 16-bit rows of 16384 take the wide register kernel (its own test case);
  // schedule=staged still stages them, and wider rows stage by default.
  const auto wide_add = entry_of({"add_rmsnorm", DType::F16, {{"schedule", "staged"}}}, 4096, 16384);
  CHECK(wide_add.entry == "ladder::add_rmsnorm_fwd_staged<__half, 4, false, 3>");
  CHECK(wide_add.shared_bytes == 3u * 2 * 512 * 4 * 16);
  const auto wider_add = entry_of({"add_rmsnorm", DType::F16, {}}, 4096, 24576);
  CHECK(wider_add.entry == "ladder::add_rmsnorm_fwd_staged<__half, 4, false, 2>");  // 3 x 96 KiB: too big
  CHECK(wider_add.block[0] == 768);
  const auto two = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "staged"}}}, 512, 24576);
  CHECK(two.entry == "ladder::add_rmsnorm_fwd_staged<__nv_bfloat16, 4, false, 2>");  // 3 x 96 KiB: too big
  // fp32 add_rmsnorm rows off the 16-byte grid: staged with two chunks a thread.
  const auto odd = entry_of({"add_rmsnorm", DType::F32, {}}, 8192, 2049);
  CHECK(odd.entry == "ladder::add_rmsnorm_fwd_staged<float, 2, false, 3>");
  CHECK(std::int64_t{odd.block[0]} * 2 * 4 >= 2049 + 3);  // one tile at any phase
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 16384, 2049).entry == "ladder::rmsnorm_fwd_staged<float, 2, 3>");
  // Elsewhere, and for few rows, the register kernels.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4096).entry.find("staged") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 8192, 2049).entry.find("staged") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 100, 32768).entry.find("staged") == std::string::npos);
  CHECK(entry_of({"add_rmsnorm", DType::F32, {}}, 8192, 8192).entry.find("staged") == std::string::npos);
  // schedule=staged where no tile of 1024 threads covers the row: the register kernel streams.
  const auto too_wide = entry_of({"rmsnorm", DType::BF16, {{"schedule", "staged"}}}, 4, 65536);
  CHECK(too_wide.entry.find("staged") == std::string::npos);
  CHECK(too_wide.shared_bytes == 0);
  // blocks=N pins the grid (tests walk many rows a block); schedule=regs pins the register kernel.
  CHECK(entry_of({"rmsnorm", DType::F16, {{"schedule", "staged"}, {"blocks", "3"}}}, 83, 769).grid[0] == 3);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 2048, 32768).entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
}

TEST_CASE("rows schedule: several rows a thread, at ITEMS that fit their registers, one tile only",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // bf16 4096: two rows a thread of two chunks each (the register kernel holds one row of four).
  const auto two = entry_of({"rmsnorm", DType::BF16, {{"schedule", "rows2"}}}, 16384, 4096);
  CHECK(two.entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(two.block[0] == 256);
  CHECK(two.block[1] == 1);
  CHECK(two.grid[0] == 16384 / 2);  // one row group per two rows
  CHECK(two.shared_bytes == 0);
  const auto four = entry_of({"rmsnorm", DType::F32, {{"schedule", "rows4"}}}, 16384, 4096);
  CHECK(four.entry == "ladder::rmsnorm_fwd_rows<float, 1, 4>");
  CHECK(four.block[0] == 1024);
  CHECK(four.grid[0] == 16384 / 4);
  // Small rows share a block: every row group of the block takes its own rows.
  const auto small = entry_of({"rmsnorm", DType::BF16, {{"schedule", "rows2"}}}, 83, 128);
  CHECK(small.entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(std::int64_t{small.grid[0]} * small.block[1] * 2 >= 83);
  // A row no 1024-thread tile covers at those ITEMS: the register kernel, which streams it.
  const auto wide = entry_of({"rmsnorm", DType::BF16, {{"schedule", "rows2"}}}, 64, 32768);
  CHECK(wide.entry.find("_rows") == std::string::npos);
  // auto: two rows a thread only for many 16-bit rows of one warp x four chunks (d = 769..1024).
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 65536, 1024).entry == "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>");
  CHECK(entry_of({"rmsnorm", DType::F16, {}}, 4096, 1000).entry == "ladder::rmsnorm_fwd_rows<__half, 2, 2>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 16384, 4096).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 65536, 768).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 3>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 100, 1024).entry.find("_rows") == std::string::npos);  // few rows
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 65536, 512).entry.find("_rows") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, 65536, 1024).entry.find("_rows") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 65536, 1024).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  // Other ops have no rows schedule.
  CHECK_THROWS_AS(ladder::kernels::plan({"add_rmsnorm", DType::BF16, {{"schedule", "rows2"}}},
                                        {{"rows", 8}, {"d", 64}}, kEps),
                  std::invalid_argument);
}

TEST_CASE("wide schedule: eight chunks a thread under a lower launch bound, where it measured faster",
          "[kernels]") {
  ladder::register_builtin_oracles();
  // auto: rmsnorm 16-bit rows the register kernel gives more than 256 threads.
  const auto rms = entry_of({"rmsnorm", DType::BF16, {}}, 4096, 16384);
  CHECK(rms.entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 8, 256>");
  CHECK(rms.block[0] == 256);
  CHECK(rms.block[1] == 1);
  CHECK(rms.grid[0] == 4096);
  CHECK(entry_of({"rmsnorm", DType::F16, {}}, 4096, 12288).entry == "ladder::rmsnorm_fwd<__half, 8, 256>");
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 8192, 8192).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(entry_of({"rmsnorm", DType::F32, {}}, 4096, 16384).entry.find(", 256>") == std::string::npos);
  // auto: add_rmsnorm 16-bit rows of more than 512 threads at two chunks (it staged those of 1024).
  const auto add = entry_of({"add_rmsnorm", DType::F16, {{"convention", "B"}}}, 4096, 16384);
  CHECK(add.entry == "ladder::add_rmsnorm_fwd<__half, 8, true, 512>");
  CHECK(add.block[0] == 256);
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {}}, 8192, 8192).entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 2, false>");
  const auto between = entry_of({"add_rmsnorm", DType::BF16, {}}, 8192, 12288);  // 768 threads at two chunks
  CHECK(between.entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, false, 512>");
  CHECK(between.block[0] == 192);
  // auto: layernorm fp32 rows of 256 or 512 threads at four chunks.
  const auto ln = entry_of({"layernorm", DType::F32, {}}, 16384, 4096);
  CHECK(ln.entry == "ladder::layernorm_fwd<float, 8, 256>");
  CHECK(ln.block[0] == 128);
  CHECK(entry_of({"layernorm", DType::F32, {}}, 8192, 8192).block[0] == 256);
  CHECK(entry_of({"layernorm", DType::F32, {}}, 4096, 16384).entry == "ladder::layernorm_fwd<float, 8>");
  CHECK(entry_of({"layernorm", DType::BF16, {}}, 16384, 4096).entry == "ladder::layernorm_fwd<__nv_bfloat16, 4>");
  // Not for few rows, rows off the 16-byte grid, or a pinned schedule.
  CHECK(entry_of({"rmsnorm", DType::BF16, {}}, 100, 16384).entry.find(", 256>") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"strided", "odd"}}}, 4096, 16384).entry.find(", 256>") == std::string::npos);
  CHECK(entry_of({"rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 4096, 16384).entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "regs"}}}, 4096, 16384).entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 2, false>");
  // schedule=wide anywhere: small rows share a block within the bound; wide rows stream.
  const auto tiny = entry_of({"layernorm", DType::BF16, {{"schedule", "wide"}}}, 7, 3);
  CHECK(tiny.entry == "ladder::layernorm_fwd<__nv_bfloat16, 8, 256>");
  CHECK(tiny.block[0] == 1);
  CHECK(tiny.block[0] * tiny.block[1] <= 256);
  CHECK(std::int64_t{tiny.grid[0]} * tiny.block[1] >= 7);
  const auto streams = entry_of({"add_rmsnorm", DType::BF16, {{"schedule", "wide"}}}, 3, 65536);
  CHECK(streams.entry == "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, false, 512>");
  CHECK(streams.block[0] == 512);
  const auto odd = entry_of({"rmsnorm", DType::F32, {{"schedule", "wide"}, {"strided", "odd"}}}, 83, 2049);
  CHECK(std::int64_t{odd.block[0]} * 8 * 4 >= 2049 + 3);  // one tile at any phase
  CHECK(odd.shared_bytes == 0);
  // ITEMS is the schedule's own.
  CHECK_THROWS_WITH(ladder::kernels::plan({"rmsnorm", DType::BF16, {{"schedule", "wide"}, {"items", "4"}}},
                                          {{"rows", 8}, {"d", 64}}, kEps),
                    ladder_test::has_substr("schedule=wide fixes ITEMS at 8"));
}

TEST_CASE("broken_launch: the selftest's staged launches break exactly what the kernel guards",
          "[kernels]") {
  ladder::register_builtin_oracles();
  auto launch_of = [](const std::string& broken, const std::string& schedule = "staged",
                      std::int64_t d = 4096) {
    const KernelRef ref{"rmsnorm", DType::BF16, {{"schedule", schedule}, {"broken_launch", broken}}};
    return ladder::kernels::plan(ref, {{"rows", 300}, {"d", d}}, kEps).front();
  };
  const auto planned = launch_of("none");
  REQUIRE(planned.entry == "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 3>");
  CHECK(planned.block[0] * 4 * 8 >= 4096);  // one tile covers the row
  CHECK(planned.block[1] == 1);
  // One warp too narrow: the tile misses the row's last 1024 columns (the kernel traps).
  const auto narrow = launch_of("narrow_tile");
  CHECK(narrow.entry == planned.entry);
  CHECK(narrow.block[0] == planned.block[0] - 32);
  CHECK(narrow.block[0] * 4 * 8 < 4096);
  CHECK(narrow.shared_bytes == planned.shared_bytes);
  // Two row groups a block: the stages are per row group of one (the kernel traps).
  const auto two = launch_of("two_row_groups");
  CHECK(two.entry == planned.entry);
  CHECK(two.block[0] == planned.block[0]);
  CHECK(two.block[1] == 2);
  // Asked of a launch that takes the register kernels, it is a plan error, not a silent no-op.
  CHECK_THROWS_AS(launch_of("narrow_tile", "regs"), std::invalid_argument);
  CHECK_THROWS_AS(launch_of("two_row_groups", "staged", 65536), std::invalid_argument);
  CHECK_THROWS_AS(launch_of("sideways"), std::invalid_argument);
}

TEST_CASE("staged plans fit the device planned for: an A100's opt-in shared memory and SMs",
          "[kernels]") {
  ladder::register_builtin_oracles();
  constexpr DeviceLimits a100 = DeviceLimits::a100();
  // The staged kernels' static shared memory: norm::ReduceScratch<1>, 2 x 32 floats. The
  // driver refuses a launch whose dynamic plus static shared memory passes the opt-in maximum.
  constexpr std::int64_t kStaticScratch = 2 * 32 * 4;
  auto fits = [&](const KernelLaunch& L) {
    INFO(L.entry << " shared " << L.shared_bytes);
    CHECK(std::int64_t{L.shared_bytes} + kStaticScratch <= a100.shared_per_block_optin);
  };
  // Three 64 KiB stages (192 KiB) fit an H200 block, not an A100's 163 KiB: two stages, and one
  // such block on each of the 108 SMs.
  const auto wide = plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 2048}, {"d", 32768}}, a100).front();
  CHECK(wide.entry == "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 2>");
  CHECK(wide.shared_bytes == 2u * 1024 * 4 * 16);
  CHECK(wide.grid[0] == 108);
  fits(wide);
  const auto wide_add =
      plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "staged"}}}, {{"rows", 4096}, {"d", 16384}}, a100).front();
  CHECK(wide_add.entry == "ladder::add_rmsnorm_fwd_staged<__nv_bfloat16, 4, false, 2>");
  CHECK(wide_add.shared_bytes == 2u * 2 * 512 * 4 * 16);
  CHECK(wide_add.grid[0] == 108);
  fits(wide_add);
  // Blocks an SM by shared memory: 54 KiB stages, two on an A100 SM's 164 KiB (four on an
  // H200's 228 KiB).
  const auto odd = plan_checked({"add_rmsnorm", DType::F32, {}}, {{"rows", 16384}, {"d", 2049}}, a100).front();
  CHECK(odd.entry == "ladder::add_rmsnorm_fwd_staged<float, 2, false, 3>");
  CHECK(odd.grid[0] == 108 * 2);
  CHECK(plan_checked({"add_rmsnorm", DType::F32, {}}, {{"rows", 16384}, {"d", 2049}}).front().grid[0] ==
        132 * 4);
  // Where even two stages do not fit, the register kernel, as for rows too wide for one tile:
  // three pinned 64 KiB stages, and two 96 KiB ones.
  const auto pinned3 = plan_checked({"rmsnorm", DType::BF16, {{"schedule", "staged"}, {"stages", "3"}}},
                                    {{"rows", 2048}, {"d", 32768}}, a100).front();
  CHECK(pinned3.entry == "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(pinned3.shared_bytes == 0);
  CHECK(pinned3.grid[0] == 2048);
  const auto two = plan_checked({"add_rmsnorm", DType::BF16, {{"schedule", "staged"}}},
                                {{"rows", 512}, {"d", 24576}}, a100).front();
  CHECK(two.entry.find("staged") == std::string::npos);
  CHECK(two.shared_bytes == 0);
  // "Few rows" counts the device's SMs: 250 rows are few for 132 SMs, not for 108.
  CHECK(plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 250}, {"d", 32768}}).front().entry ==
        "ladder::rmsnorm_fwd<__nv_bfloat16, 4>");
  CHECK(plan_checked({"rmsnorm", DType::BF16, {}}, {{"rows", 250}, {"d", 32768}}, a100).front().entry ==
        "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 2>");
  // The backward resident grid: two 256-thread blocks on each of 108 SMs.
  CHECK(plan_checked({"rmsnorm_bwd", DType::BF16, {}}, {{"rows", 16384}, {"d", 4096}}, a100).front().grid[0] ==
        108 * 2);
  // Every staged plan fits, and no grid exceeds 32 blocks on each of 108 SMs.
  for (const char* op : {"rmsnorm", "add_rmsnorm"})
    for (DType dt : {DType::F32, DType::F16, DType::BF16})
      for (const auto& v : std::vector<std::map<std::string, std::string>>{
               {}, {{"schedule", "staged"}}, {{"schedule", "staged"}, {"stages", "3"}}})
        for (std::int64_t d : {769, 2049, 4096, 8192, 12288, 16384, 20480, 24576, 32768})
          for (const auto& L : plan_checked({op, dt, v}, {{"rows", 16384}, {"d", d}}, a100)) {
            if (L.entry.find("staged") == std::string::npos) continue;
            fits(L);
            CHECK(L.grid[0] <= 32u * 108);
          }
  // The limits read from a device; attributes it did not report keep the H200's.
  ladder::toolchain::DeviceInfo info;
  info.sm_count = 108;
  info.shared_per_block_optin = 163 * 1024;
  const DeviceLimits read = DeviceLimits::from(info);
  CHECK(read.sm_count == 108);
  CHECK(read.shared_per_block_optin == 163 * 1024);
  CHECK(read.shared_per_sm == DeviceLimits::h200().shared_per_sm);
  CHECK(read.max_threads_per_sm == 2048);
}

TEST_CASE("all_specializations covers every op, dtype and ITEMS", "[kernels]") {
  const auto specs = ladder::kernels::all_specializations();
  std::set<std::string> entries;
  for (const auto& ref : specs)
    for (const auto& L : ladder::kernels::plan(ref, {{"rows", 3}, {"d", 1000}}, kEps))
      entries.insert(L.entry);
  for (const char* must : {"ladder::rmsnorm_fwd<float, 8>", "ladder::rmsnorm_fwd<__nv_bfloat16, 4>",
                           "ladder::add_rmsnorm_fwd<__half, 3, true>",
                           "ladder::add_rmsnorm_fwd<__nv_bfloat16, 4, false>",
                           "ladder::layernorm_fwd<__half, 1>", "ladder::rmsnorm_bwd<float, 4>",
                           "ladder::add_rmsnorm_bwd<__nv_bfloat16, 2>",
                           "ladder::layernorm_bwd<__half, 2>", "ladder::column_sum<float>",
                           "ladder::layernorm_bwd<__half, 2, true>",
                           "ladder::add_rmsnorm_bwd<float, 4, true>",
                           "ladder::rmsnorm_fwd_staged<__nv_bfloat16, 4, 3>",
                           "ladder::rmsnorm_fwd_rows<__nv_bfloat16, 2, 2>",
                           "ladder::rmsnorm_fwd_rows<float, 1, 4>",
                           "ladder::add_rmsnorm_fwd_staged<__half, 2, true, 2>",
                           "ladder::rmsnorm_fwd<__half, 8, 256>", "ladder::layernorm_fwd<float, 8, 256>",
                           "ladder::add_rmsnorm_fwd<__nv_bfloat16, 8, true, 512>"})
    CHECK(entries.count(must) == 1);
}

// Compiles each distinct (source, entry) of every specialization through the project's NVRTC
// pipeline, for both target archs, on as many threads as the machine has.
TEST_CASE("every kernel specialization compiles with NVRTC for sm_90 and sm_80", "[kernels][nvrtc]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  std::set<std::pair<std::string, std::string>> jobs_set;
  for (const auto& ref : ladder::kernels::all_specializations())
    for (const auto& L : ladder::kernels::plan(ref, {{"rows", 3}, {"d", 1000}}, kEps))
      jobs_set.insert({L.source, L.entry});
  struct Job { std::string source, entry, arch; };
  std::vector<Job> jobs;
  for (const auto& [source, entry] : jobs_set)
    for (const char* arch : {"sm_90", "sm_80"}) jobs.push_back({source, entry, arch});

  std::map<std::string, std::string> texts;
  for (const auto& [source, entry] : jobs_set)
    if (!texts.count(source)) texts[source] = read_file(source);

  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      ladder::toolchain::CompileRequest req;
      req.source_path = jobs[i].source;
      req.source_text = texts.at(jobs[i].source);
      req.entry = jobs[i].entry;
      req.arch = jobs[i].arch;
      const auto r = nvrtc.compile(req);
      if (!r.ok || r.lowered_name.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(jobs[i].entry + " for " + jobs[i].arch + ": " + r.error + "\n" + r.log);
      }
    }
  };
  const unsigned n = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  INFO(jobs.size() << " compiles");
  for (const auto& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}
