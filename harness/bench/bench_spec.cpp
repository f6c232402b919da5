#include "harness/bench/bench_spec.h"

#include <fmt/format.h>

#include "harness/kernels/catalog.h"

namespace ladder::bench {
using nlohmann::json;

std::vector<BenchCase> default_cases() {
  std::vector<BenchCase> out;
  auto add = [&](const std::string& op, DType dt, std::int64_t rows, std::int64_t d, bool unfused = false) {
    BenchCase c;
    c.kernel.op = op;
    c.kernel.dtype = dt;
    c.rows = rows;
    c.d = d;
    c.unfused_baseline = unfused;
    out.push_back(c);
  };
  // Fused add + RMSNorm, bf16: the peers' shapes first, then the hidden sizes of the targets at
  // working sets of 128 MB or more.
  for (auto [rows, d] : std::vector<std::pair<int, int>>{{16384, 4096}, {8192, 2049}, {512, 32768}, {1, 4096},
                                                          {65536, 1024}, {8192, 8192}, {4096, 16384}})
    add("add_rmsnorm", DType::BF16, rows, d, true);
  add("add_rmsnorm", DType::F16, 16384, 4096);
  add("add_rmsnorm", DType::F32, 16384, 4096);
  for (auto [rows, d] : std::vector<std::pair<int, int>>{{16384, 4096}, {65536, 1024}, {8192, 8192}, {4096, 16384},
                                                          {16384, 2049}, {2048, 32768}, {1, 4096}})
    add("rmsnorm", DType::BF16, rows, d);
  add("rmsnorm", DType::F32, 16384, 4096);
  for (auto [rows, d] : std::vector<std::pair<int, int>>{{16384, 4096}, {65536, 1024}, {8192, 8192}, {4096, 16384},
                                                          {2048, 32768}})
    add("layernorm", DType::BF16, rows, d);
  add("layernorm", DType::F32, 16384, 4096);
  add("layernorm", DType::F32, 4096, 16384);
  for (const char* op : {"rmsnorm_bwd", "layernorm_bwd", "add_rmsnorm_bwd"})
    for (DType dt : {DType::BF16, DType::F32}) add(op, dt, 16384, 4096);
  // Rows wider than the register backward kernels' tile: the bulk-copy backward kernels.
  for (const char* op : {"rmsnorm_bwd", "layernorm_bwd", "add_rmsnorm_bwd"})
    add(op, DType::BF16, 2048, 16384);
  // Wider still (more than 2048 chunks a row): each row split over a cluster of two blocks.
  for (const char* op : {"rmsnorm_bwd", "layernorm_bwd", "add_rmsnorm_bwd"})
    add(op, DType::BF16, 1024, 32768);
  add("layernorm_bwd", DType::F32, 1024, 16384);
  // Rows off the 16-byte grid: the shifted chunk grids and skewed weight reads.
  for (const char* op : {"rmsnorm_bwd", "layernorm_bwd", "add_rmsnorm_bwd"})
    add(op, DType::BF16, 8192, 2049);
  add("layernorm", DType::BF16, 16384, 2049);
  // Rows off the grid that schedule=auto gives the packed-span kernels beyond those above.
  add("add_rmsnorm", DType::BF16, 16384, 2049, true);
  add("layernorm", DType::F32, 16384, 2049);
  return out;
}

double minimum_bytes(const std::vector<ConcreteBuffer>& buffers) {
  double bytes = 0;
  for (const auto& b : buffers) {
    if (!b.alias_of.empty() || b.role == BufferRole::Scratch) continue;
    const double payload = static_cast<double>(b.logical_elements()) * static_cast<double>(size_of(b.dtype));
    bytes += b.role == BufferRole::InOut ? 2 * payload : payload;
  }
  // An alias of an input is a write of that memory: count the write once.
  for (const auto& b : buffers)
    if (!b.alias_of.empty()) {
      for (const auto& t : buffers)
        if (t.name == b.alias_of && t.role == BufferRole::Input)
          bytes += static_cast<double>(b.logical_elements()) * static_cast<double>(size_of(b.dtype));
    }
  return bytes;
}

std::vector<KernelLaunch> unfused_add_then_rmsnorm(const BenchCase& c,
                                                   const kernels::DeviceLimits& device) {
  KernelRef rms{"rmsnorm", c.kernel.dtype, {{"write_rstd", "0"}}};
  auto plans = kernels::plan(rms, Case{{"rows", c.rows}, {"d", c.d}}, {{"eps", c.eps}}, device);
  if (plans.size() != 1) throw std::logic_error("rmsnorm plans one launch");
  KernelLaunch norm = plans.front();
  // rmsnorm reads h (the sum) where it would read x.
  for (auto& a : norm.args)
    if (a.is_buffer && a.buffer == "x") a.buffer = "h";
  for (auto& b : norm.buffers)
    if (b.name == "x") b.name = "h", b.role = BufferRole::Output;
  KernelLaunch add;
  add.source = kernels::kernels_dir() + "/elementwise_add.cuh";
  add.entry = fmt::format("ladder::elementwise_add<{}>", cuda_type_name(c.kernel.dtype));
  const std::int64_t n = c.rows * c.d;
  auto matrix = [&](const std::string& name, BufferRole role) {
    ConcreteBuffer b;
    b.name = name;
    b.role = role;
    b.dtype = c.kernel.dtype;
    b.shape = {c.rows, c.d};
    b.rows = c.rows;
    b.cols = c.d;
    b.row_stride = c.d;
    return b;
  };
  add.buffers = {matrix("x", BufferRole::Input), matrix("r", BufferRole::Input)};
  for (const auto& b : norm.buffers) add.buffers.push_back(b);
  ConcreteArg n_arg;
  n_arg.is_buffer = false;
  n_arg.type = DType::I64;
  n_arg.value = static_cast<double>(n);
  add.args = {ConcreteArg{true, "h", DType::I32, 0}, ConcreteArg{true, "x", DType::I32, 0},
              ConcreteArg{true, "r", DType::I32, 0}, n_arg};
  const std::int64_t threads = 256, per_thread = 8;
  add.block = {static_cast<std::uint32_t>(threads), 1, 1};
  add.grid = {static_cast<std::uint32_t>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + threads * per_thread - 1) / (threads * per_thread), 1 << 20))), 1, 1};
  add.oracle = "none";
  norm.oracle = "none";
  return {add, norm};
}

json to_json(const BenchCase& c) {
  return {{"op", c.kernel.op}, {"dtype", std::string(label(c.kernel.dtype))}, {"variant", c.kernel.variant},
          {"rows", c.rows}, {"d", c.d}, {"eps", c.eps}, {"unfused_baseline", c.unfused_baseline}};
}

BenchCase bench_case_from_json(const json& j) {
  BenchCase c;
  c.kernel.op = j.at("op").get<std::string>();
  auto dt = parse_dtype(j.at("dtype").get<std::string>());
  if (!dt) throw std::invalid_argument("unknown dtype " + j.at("dtype").dump());
  c.kernel.dtype = *dt;
  c.kernel.variant = j.value("variant", std::map<std::string, std::string>{});
  c.rows = j.at("rows").get<std::int64_t>();
  c.d = j.at("d").get<std::int64_t>();
  c.eps = j.value("eps", 1e-6);
  c.unfused_baseline = j.value("unfused_baseline", false);
  return c;
}

}  // namespace ladder::bench
