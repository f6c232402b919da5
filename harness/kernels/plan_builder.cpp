#include "harness/kernels/plan_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/kernels/catalog.h"

namespace ladder::kernels::detail {

void fail(const std::string& op, const std::string& message) {
  throw std::invalid_argument(op + ": " + message);
}

void narrow_by_one_warp(const std::string& op, const std::string& key, RowGeometry& g) {
  if (g.threads_per_row <= kWarp)
    fail(op, key + "=narrow_tile needs a row wider than one warp's tile");
  g.threads_per_row -= kWarp;
}

VariantReader::VariantReader(std::string op, const std::map<std::string, std::string>& variant)
    : op_(std::move(op)), variant_(variant) {}

std::string VariantReader::get(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& allowed) {
  used_.insert(key);
  const auto it = variant_.find(key);
  if (it == variant_.end() || it->second == "auto") {
    const auto r = resolved_.find(key);
    if (r != resolved_.end()) return r->second;
  }
  if (it == variant_.end()) return fallback;
  if (std::find(allowed.begin(), allowed.end(), it->second) == allowed.end()) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : "|") + a;
    fail(op_, "variant " + key + "=" + it->second + " is not one of " + list);
  }
  return it->second;
}

void VariantReader::resolve_auto(const std::string& key, std::string value) {
  resolved_[key] = std::move(value);
}

bool VariantReader::names_only(const std::set<std::string>& keys) const {
  for (const auto& [key, value] : variant_)
    if (!keys.count(key) && !(key == "schedule" && value == "auto")) return false;
  return true;
}

int VariantReader::items(std::size_t elem_size, const RowLimits& limits) {
  used_.insert("items");
  const auto it = variant_.find("items");
  if (it == variant_.end()) return 0;
  const std::vector<int> allowed = allowed_items(elem_size, limits);
  for (int v : allowed)
    if (std::to_string(v) == it->second) return v;
  std::string list;
  for (int v : allowed) list += (list.empty() ? "" : "|") + std::to_string(v);
  fail(op_, "variant items=" + it->second + " is not one of " + list + " for this dtype");
}

int VariantReader::rows_per_block() {
  const std::string v = get("rpb", "0", {"0", "1", "2", "4", "8"});
  return std::stoi(v);
}

RowLimits with_device(RowLimits limits, const DeviceLimits& device) {
  limits.sm_count = device.sm_count;
  return limits;
}

void apply_rows_per_block(const std::string& op, int rows_per_block, std::int64_t rows,
                          RowGeometry& g) {
  if (rows_per_block == 0) return;
  if (g.threads_per_row * rows_per_block > 1024)
    fail(op, "variant rpb=" + std::to_string(rows_per_block) + " makes a block of " +
                 std::to_string(g.threads_per_row * rows_per_block) +
                 " threads; the most is 1024");
  g.rows_per_block = rows_per_block;
  g.blocks = std::max<std::int64_t>(1, (rows + rows_per_block - 1) / rows_per_block);
}

void VariantReader::finish() const {
  for (const auto& [key, value] : variant_)
    if (!used_.count(key)) fail(op_, "unknown variant key '" + key + "' (value '" + value + "')");
}

Shape read_shape(const std::string& op, const Case& c) {
  const auto rows = c.find("rows");
  const auto d = c.find("d");
  if (rows == c.end()) fail(op, "the case has no 'rows'");
  if (d == c.end()) fail(op, "the case has no 'd'");
  if (rows->second < 0) fail(op, "rows must be >= 0, got " + std::to_string(rows->second));
  if (rows->second > std::numeric_limits<std::int32_t>::max())
    fail(op, "rows must fit in int32, got " + std::to_string(rows->second));
  if (d->second < 1) fail(op, "d (hidden size) must be >= 1, got " + std::to_string(d->second));
  if (d->second > kMaxHiddenSize)
    fail(op, "d (hidden size) " + std::to_string(d->second) + " exceeds the supported maximum " +
                 std::to_string(kMaxHiddenSize));
  return {rows->second, d->second};
}

double read_eps(const std::string& op, const std::map<std::string, double>& scalars) {
  const auto it = scalars.find("eps");
  if (it == scalars.end()) fail(op, "scalar 'eps' is required");
  // %g: std::to_string prints 1e-50 as "0.000000".
  if (!(it->second > 0) || !std::isfinite(it->second))
    fail(op, fmt::format("eps must be a finite number > 0, got {:g}", it->second));
  // The kernels take eps as a float.
  if (static_cast<float>(it->second) <= 0.f) fail(op, fmt::format("eps {:g} rounds to 0 in fp32", it->second));
  if (!std::isfinite(static_cast<float>(it->second)))
    fail(op, fmt::format("eps {:g} overflows fp32", it->second));
  return it->second;
}

std::map<std::string, std::int64_t> row_strides(const std::string& op, const Case& c,
                                                const std::vector<std::string>& names,
                                                const std::string& strided, std::int64_t d) {
  std::map<std::string, std::int64_t> out;
  const std::int64_t chunk_multiple = 8;  // 16 bytes of 16-bit elements, 32 bytes of fp32
  const std::int64_t rounded = (d + chunk_multiple - 1) / chunk_multiple * chunk_multiple;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto kk = static_cast<std::int64_t>(k);
    std::int64_t stride = d;
    if (strided == "1") stride = rounded + chunk_multiple * (kk + 1);
    if (strided == "odd") stride = d + 2 * kk + 1;
    const auto it = c.find(names[k] + "_stride");
    if (it != c.end()) {
      if (it->second < d)
        fail(op, names[k] + "_stride " + std::to_string(it->second) + " is less than d " +
                     std::to_string(d));
      stride = it->second;
    }
    if (stride > std::numeric_limits<std::int32_t>::max())
      fail(op, names[k] + "_stride " + std::to_string(stride) + " does not fit in int32");
    out[names[k]] = stride;
  }
  return out;
}

bool strides_dense(const std::map<std::string, std::int64_t>& strides, std::int64_t d) {
  for (const auto& [name, stride] : strides)
    if (stride != d) return false;
  return true;
}

bool strides_misaligned(const std::map<std::string, std::int64_t>& strides,
                        std::size_t elem_size) {
  const std::int64_t vec = 16 / static_cast<std::int64_t>(elem_size);
  for (const auto& [name, stride] : strides)
    if (stride % vec != 0) return true;
  return false;
}

bool strides_share_phase(const std::map<std::string, std::int64_t>& strides,
                         std::size_t elem_size) {
  const std::int64_t vec = kChunkBytes / static_cast<std::int64_t>(elem_size);
  const std::int64_t first = strides.empty() ? 0 : strides.begin()->second % vec;
  for (const auto& [name, stride] : strides)
    if (stride % vec != first) return false;
  return true;
}

ConcreteBuffer matrix(const std::string& name, BufferRole role, DType dtype, std::int64_t rows,
                      std::int64_t d, std::int64_t row_stride, const std::string& init) {
  ConcreteBuffer b;
  b.name = name;
  b.role = role;
  b.dtype = dtype;
  b.shape = {rows, d};
  b.rows = rows;
  b.cols = d;
  b.row_stride = row_stride;
  b.init = init;
  return b;
}

ConcreteBuffer vector(const std::string& name, BufferRole role, DType dtype, std::int64_t n,
                      const std::string& init) {
  ConcreteBuffer b;
  b.name = name;
  b.role = role;
  b.dtype = dtype;
  b.shape = {n};
  b.rows = 1;
  b.cols = n;
  b.row_stride = n;
  b.init = init;
  return b;
}

ConcreteBuffer alias(const std::string& name, const ConcreteBuffer& target) {
  ConcreteBuffer b = target;
  b.name = name;
  b.role = BufferRole::Output;
  b.alias_of = target.name;
  return b;
}

ConcreteArg pointer(const std::string& buffer) {
  ConcreteArg a;
  a.is_buffer = true;
  a.buffer = buffer;
  return a;
}

ConcreteArg null_pointer() {
  ConcreteArg a;
  a.is_buffer = false;
  a.type = DType::F64;
  a.value = 0.0;
  return a;
}

ConcreteArg i32(std::int64_t v) {
  ConcreteArg a;
  a.is_buffer = false;
  a.type = DType::I32;
  a.value = static_cast<double>(v);
  return a;
}

ConcreteArg f32(double v) {
  ConcreteArg a;
  a.is_buffer = false;
  a.type = DType::F32;
  a.value = v;
  return a;
}

std::string source_path(const std::string& file) { return kernels_dir() + "/" + file; }

std::string dtype_template_name(DType dt) {
  switch (dt) {
    case DType::F32: return "float";
    case DType::F16: return "__half";
    case DType::BF16: return "__nv_bfloat16";
    default: return "";
  }
}

std::size_t io_elem_size(const std::string& op, DType dt) {
  switch (dt) {
    case DType::F32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    default: fail(op, "dtype must be f32, f16 or bf16");
  }
}

std::int64_t resident_blocks_per_sm(const DeviceLimits& device, std::int64_t threads,
                                    std::int64_t shared_bytes, int registers_per_thread) {
  constexpr std::int64_t kRegisterFile = 65536;
  const std::int64_t by_threads = device.max_threads_per_sm / threads;
  const std::int64_t by_shared =
      (device.shared_per_sm - kRuntimeSharedPerBlock) / (shared_bytes + kRuntimeSharedPerBlock);
  std::int64_t per_sm = std::min({std::int64_t{32}, by_threads, by_shared});
  if (registers_per_thread > 0)
    per_sm = std::min(per_sm, kRegisterFile / (threads * registers_per_thread));
  return std::max<std::int64_t>(1, per_sm);
}

void set_geometry(KernelLaunch& launch, const RowGeometry& g, std::uint32_t shared_bytes) {
  launch.grid = {static_cast<std::uint32_t>(g.blocks), 1, 1};
  launch.block = {static_cast<std::uint32_t>(g.threads_per_row),
                  static_cast<std::uint32_t>(g.rows_per_block), 1};
  launch.shared_bytes = shared_bytes;  // dynamic: the staged kernels' stages
}

}  // namespace ladder::kernels::detail
