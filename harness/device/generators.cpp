#include "harness/device/generators.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "harness/core/element.h"
#include "harness/core/parallel.h"
#include "harness/device/fixture_inputs.h"

namespace ladder {
namespace {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform01() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
};

}  // namespace

std::uint64_t mix_seed(std::uint64_t seed, const std::string& text) {
  std::uint64_t h = seed ^ 0x6a09e667f3bcc909ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return SplitMix64{h}.next();
}

std::vector<std::byte> generate(const ConcreteBuffer& b, std::uint64_t seed) {
  if (is_fixture_init(b.init)) return fill_from_fixture(b);  // exact values; the seed plays no part
  const std::size_t esize = size_of(b.dtype);
  std::vector<std::byte> out(static_cast<std::size_t>(b.storage_elements()) * esize);
  SplitMix64 rng{mix_seed(seed, b.name)};
  std::string kind = b.init;
  double constant = 0;
  if (kind.rfind("constant:", 0) == 0) {
    const std::string v = kind.substr(9);
    try {
      std::size_t used = 0;
      constant = std::stod(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format("buffer {}: init '{}': expected constant:NUMBER", b.name, b.init));
    }
    kind = "constant";
  }
  if (kind != "normal" && kind != "uniform" && kind != "ones" && kind != "arange" && kind != "constant")
    throw std::invalid_argument(fmt::format(
        "buffer {}: unknown init '{}' (known: normal, uniform, ones, arange, constant:V, fixture:FILE#CASE/INPUT; "
        "row_mean:SRC and row_rstd:SRC:EPS through generate_inputs)", b.name, b.init));
  // Each block of kBlock logical elements has its own stream, so the bytes are the same however
  // many threads fill them.
  constexpr std::int64_t kBlock = 1 << 16;
  const std::uint64_t base = rng.next();
  const std::int64_t total = b.logical_elements();
  const std::int64_t blocks = (total + kBlock - 1) / kBlock;
  parallel_for(static_cast<std::size_t>(blocks), 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t blk = lo; blk < hi; ++blk) {
      SplitMix64 local{base ^ (0x9e3779b97f4a7c15ull * (blk + 1))};
      const std::int64_t first = static_cast<std::int64_t>(blk) * kBlock, last = std::min(total, first + kBlock);
      for (std::int64_t index = first; index < last; ++index) {
        double v = 0;
        if (kind == "normal") {
          const double u1 = local.uniform01(), u2 = local.uniform01();
          v = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
        } else if (kind == "uniform") {
          v = 2.0 * local.uniform01() - 1.0;
        } else if (kind == "ones") {
          v = 1.0;
        } else if (kind == "arange") {
          v = static_cast<double>(index);
        } else {
          v = constant;
        }
        const std::int64_t r = b.cols ? index / b.cols : 0, c = b.cols ? index % b.cols : 0;
        store_element(out.data() + static_cast<std::size_t>(r * b.row_stride + c) * esize, b.dtype, v);
      }
    }
  });
  return out;
}

std::vector<double> logical_values(const ConcreteBuffer& b, const std::vector<std::byte>& storage) {
  const std::size_t esize = size_of(b.dtype);
  std::vector<double> out(static_cast<std::size_t>(b.logical_elements()));
  parallel_for(static_cast<std::size_t>(b.rows), std::max<std::size_t>(1, 65536 / std::max<std::int64_t>(b.cols, 1)),
               [&](std::size_t lo, std::size_t hi) {
                 for (std::size_t r = lo; r < hi; ++r)
                   for (std::int64_t c = 0; c < b.cols; ++c)
                     out[r * static_cast<std::size_t>(b.cols) + static_cast<std::size_t>(c)] = load_element(
                         storage.data() + (r * static_cast<std::size_t>(b.row_stride) + static_cast<std::size_t>(c)) * esize,
                         b.dtype);
               });
  return out;
}

namespace {

struct Derived {
  std::string kind;    // row_mean, row_rstd
  std::string source;  // buffer name
  double eps = 0;
};

Derived parse_derived(const ConcreteBuffer& b) {
  Derived out;
  const auto colon = b.init.find(':');
  out.kind = b.init.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : b.init.substr(colon + 1);
  if (out.kind == "row_rstd") {
    const auto second = rest.find(':');
    bool ok = second != std::string::npos;
    if (ok) {
      const std::string eps = rest.substr(second + 1);
      try {
        std::size_t used = 0;
        out.eps = std::stod(eps, &used);
        ok = used == eps.size() && out.eps > 0;
      } catch (const std::exception&) {
        ok = false;
      }
      rest = rest.substr(0, second);
    }
    if (!ok)
      throw std::invalid_argument(fmt::format("buffer {}: init '{}': expected row_rstd:SOURCE:EPS with EPS > 0", b.name, b.init));
  }
  if (rest.empty())
    throw std::invalid_argument(fmt::format("buffer {}: init '{}': expected {}:SOURCE", b.name, b.init, out.kind));
  out.source = rest;
  return out;
}

// Each row's mean and biased variance of a source buffer, in fp64 from its stored values (two
// passes over the row). Computed once per source, however many derived buffers read it.
struct RowMoments {
  std::vector<double> mean, var;
};

RowMoments row_moments(const ConcreteBuffer& src, const std::vector<std::byte>& bytes) {
  RowMoments m;
  m.mean.resize(static_cast<std::size_t>(src.rows));
  m.var.resize(static_cast<std::size_t>(src.rows));
  const std::size_t esize = size_of(src.dtype);
  const std::int64_t d = src.cols;
  parallel_for(static_cast<std::size_t>(src.rows), 64, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t r = lo; r < hi; ++r) {
      const std::byte* row = bytes.data() + r * static_cast<std::size_t>(src.row_stride) * esize;
      auto at = [&](std::int64_t c) { return load_element(row + static_cast<std::size_t>(c) * esize, src.dtype); };
      double mean = 0;
      for (std::int64_t c = 0; c < d; ++c) mean += at(c);
      mean /= static_cast<double>(d);
      double var = 0;
      for (std::int64_t c = 0; c < d; ++c) var += (at(c) - mean) * (at(c) - mean);
      m.mean[r] = mean;
      m.var[r] = var / static_cast<double>(d);
    }
  });
  return m;
}

std::vector<std::byte> derive(const ConcreteBuffer& b, const Derived& how, const ConcreteBuffer& src,
                              const RowMoments& m) {
  if (b.logical_elements() != src.rows)
    throw std::invalid_argument(fmt::format("buffer {}: init '{}': {} elements, but {} has {} rows", b.name, b.init,
                                            b.logical_elements(), src.name, src.rows));
  const std::size_t esize = size_of(b.dtype);
  std::vector<std::byte> out(static_cast<std::size_t>(b.storage_elements()) * esize);
  for (std::int64_t index = 0; index < src.rows; ++index) {
    const auto r = static_cast<std::size_t>(index);
    const double value = how.kind == "row_rstd" ? 1.0 / std::sqrt(m.var[r] + how.eps) : m.mean[r];
    const std::int64_t br = b.cols ? index / b.cols : 0, bc = b.cols ? index % b.cols : 0;
    store_element(out.data() + static_cast<std::size_t>(br * b.row_stride + bc) * esize, b.dtype, value);
  }
  return out;
}

}  // namespace

bool is_derived_init(const std::string& init) {
  return init.rfind("row_mean:", 0) == 0 || init.rfind("row_rstd:", 0) == 0;
}

std::map<std::string, std::vector<std::byte>> generate_inputs(
    const std::vector<ConcreteBuffer>& buffers, const std::function<std::uint64_t(const ConcreteBuffer&)>& seed_of) {
  std::map<std::string, std::vector<std::byte>> out;
  for (const auto& b : buffers)
    if (b.is_filled_input() && !is_derived_init(b.init)) out.emplace(b.name, generate(b, seed_of(b)));
  std::map<std::string, RowMoments> moments;  // by source
  for (const auto& b : buffers) {
    if (!b.is_filled_input() || !is_derived_init(b.init)) continue;
    const Derived how = parse_derived(b);
    const ConcreteBuffer* src = nullptr;
    for (const auto& s : buffers)
      if (s.name == how.source) src = &s;
    if (src == nullptr || !out.count(how.source) || is_derived_init(src->init))
      throw std::invalid_argument(fmt::format("buffer {}: init '{}': '{}' is not a generated input", b.name, b.init,
                                              how.source));
    auto m = moments.find(how.source);
    if (m == moments.end()) m = moments.emplace(how.source, row_moments(*src, out.at(how.source))).first;
    out.emplace(b.name, derive(b, how, *src, m->second));
  }
  return out;
}

}  // namespace ladder
