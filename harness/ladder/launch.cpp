#include "harness/ladder/launch.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/ladder/expr.h"

namespace ladder {
namespace {

// Shapes past this are refused before anything is allocated: a typo in a manifest should give a
// message, not an out-of-memory crash. 32 GiB of elements per buffer is far past any rung here.
constexpr double kMaxBufferBytes = 32.0 * (1ull << 30);

std::string case_text(const Case& c) {
  std::string s;
  for (const auto& [k, v] : c) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

}  // namespace

KernelLaunch resolve_launch(const Rung& rung, const Case& c) {
  if (rung.kernel) throw std::logic_error("resolve_launch: production-kernel rungs are planned by the catalog");
  const auto lookup = make_lookup(c, rung.scalars);
  auto fail = [&](const std::string& field, const std::string& what) -> void {
    throw std::invalid_argument(fmt::format("rung {} ({}): {}: {}", rung.name, case_text(c), field, what));
  };
  auto integer = [&](const std::string& field, const std::string& expr, double lo, double hi) {
    ExprValue v;
    try {
      v = evaluate(expr, lookup);
    } catch (const std::invalid_argument& e) {
      fail(field, e.what());
    }
    if (!v.integral || v.value != std::floor(v.value)) fail(field, fmt::format("'{}' is {}, expected an integer", expr, v.value));
    if (v.value < lo || v.value > hi) fail(field, fmt::format("'{}' is {}, expected {}..{}", expr, v.value, lo, hi));
    return static_cast<std::int64_t>(v.value);
  };

  KernelLaunch k;
  k.source = rung.source;
  k.source_kind = rung.source_kind;
  k.entry = rung.entry;
  k.options = rung.options;
  k.oracle = rung.oracle;
  k.scalars = rung.scalars;
  k.seed = rung.seed;
  for (const auto& b : rung.buffers) {
    ConcreteBuffer cb;
    cb.name = b.name;
    cb.role = b.role;
    cb.dtype = b.dtype;
    cb.init = b.init;
    cb.alias_of = b.alias_of;
    const std::string field = "buffer " + b.name;
    for (const auto& dim : b.shape) cb.shape.push_back(integer(field + " shape", dim, 0, 1e15));
    cb.cols = cb.shape.back();
    cb.row_stride = b.row_stride.empty() ? cb.cols : integer(field + " row_stride", b.row_stride, 0, 1e15);
    if (cb.row_stride < cb.cols) fail(field, fmt::format("row_stride {} is below the row length {}", cb.row_stride, cb.cols));
    // Sized in doubles first: the int64 products could wrap (2^32 x 2^32 to 0) and pass the limit.
    double rows = 1;
    for (std::size_t i = 0; i + 1 < cb.shape.size(); ++i) rows *= static_cast<double>(cb.shape[i]);
    const double elements = rows == 0 ? 0 : (rows - 1) * static_cast<double>(cb.row_stride) + static_cast<double>(cb.cols);
    const double bytes = elements * static_cast<double>(size_of(cb.dtype));
    if (bytes > kMaxBufferBytes) fail(field, fmt::format("{:.3g} bytes is over the {:.3g}-byte limit", bytes, kMaxBufferBytes));
    cb.rows = 1;
    for (std::size_t i = 0; i + 1 < cb.shape.size(); ++i) cb.rows *= cb.shape[i];
    k.buffers.push_back(std::move(cb));
  }
  for (int i = 0; i < 3; ++i) {
    k.grid[i] = static_cast<std::uint32_t>(integer(fmt::format("grid[{}]", i), rung.grid[i], 0, 2147483647.0));
    k.block[i] = static_cast<std::uint32_t>(integer(fmt::format("block[{}]", i), rung.block[i], 0, 65535));
  }
  k.shared_bytes = static_cast<std::uint32_t>(integer("shared_bytes", rung.shared_bytes, 0, 1 << 30));

  for (const auto& a : rung.args) {
    ConcreteArg ca;
    ca.is_buffer = a.is_buffer;
    ca.buffer = a.buffer;
    ca.type = a.type;
    if (!a.is_buffer) {
      try {
        ca.value = evaluate(a.expr, lookup).value;
      } catch (const std::invalid_argument& e) {
        fail("args", e.what());
      }
    }
    k.args.push_back(std::move(ca));
  }
  return k;
}

}  // namespace ladder
