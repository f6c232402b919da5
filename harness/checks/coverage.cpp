#include "harness/checks/coverage.h"

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

namespace ladder {
namespace {

bool all_bytes(std::span<const std::byte> s, std::byte v) {
  return std::all_of(s.begin(), s.end(), [v](std::byte b) { return b == v; });
}

std::string range_text(const char* one, const char* many, std::int64_t lo, std::int64_t hi) {
  return lo == hi ? fmt::format("{} {}", one, lo) : fmt::format("{} {}..{}", many, lo, hi);
}

}  // namespace

std::string summarize_mask(const std::vector<bool>& mask, std::int64_t rows, std::int64_t cols,
                           std::size_t max_groups) {
  // Column ranges per row, then consecutive rows with identical ranges merge into one group.
  using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;
  std::vector<std::pair<std::pair<std::int64_t, std::int64_t>, Ranges>> groups;
  for (std::int64_t r = 0; r < rows; ++r) {
    Ranges ranges;
    for (std::int64_t c = 0; c < cols; ++c) {
      if (!mask[static_cast<std::size_t>(r * cols + c)]) continue;
      if (!ranges.empty() && ranges.back().second == c - 1) ranges.back().second = c;
      else ranges.emplace_back(c, c);
    }
    if (ranges.empty()) continue;
    if (!groups.empty() && groups.back().first.second == r - 1 && groups.back().second == ranges)
      groups.back().first.second = r;
    else groups.push_back({{r, r}, ranges});
  }
  std::string out;
  std::size_t shown = 0;
  for (const auto& [rr, ranges] : groups) {
    if (shown == max_groups) {
      out += fmt::format("; and {} more group(s)", groups.size() - shown);
      break;
    }
    std::string cols_text;
    if (ranges.size() == 1 && ranges[0].first == 0 && ranges[0].second == cols - 1) {
      cols_text = "all columns";
    } else {
      for (std::size_t i = 0; i < ranges.size() && i < 4; ++i)
        cols_text += (i ? ", " : "") + range_text("column", "columns", ranges[i].first, ranges[i].second);
      if (ranges.size() > 4) cols_text += fmt::format(" (+{} more ranges)", ranges.size() - 4);
    }
    out += fmt::format("{}{}, {}", out.empty() ? "" : "; ", range_text("row", "rows", rr.first, rr.second), cols_text);
    ++shown;
  }
  return out;
}

CoverageResult check_coverage(const ConcreteBuffer& b, std::span<const std::byte> run_a,
                              std::span<const std::byte> run_b) {
  CoverageResult res;
  const std::size_t es = size_of(b.dtype);
  std::vector<bool> mask(static_cast<std::size_t>(b.logical_elements()), false);
  for (std::int64_t r = 0; r < b.rows; ++r)
    for (std::int64_t c = 0; c < b.cols; ++c) {
      const std::size_t off = static_cast<std::size_t>(r * b.row_stride + c) * es;
      const bool a = all_bytes(run_a.subspan(off, es), kSentinelA);
      const bool bb = all_bytes(run_b.subspan(off, es), kSentinelB);
      ++res.elements;
      if (a && bb) {
        ++res.unwritten;
        mask[static_cast<std::size_t>(r * b.cols + c)] = true;
      } else if (a || bb) {
        ++res.sentinel_valued;
      }
    }
  if (res.unwritten) res.summary = summarize_mask(mask, b.rows, b.cols);
  return res;
}

ByteDamage check_gaps(const ConcreteBuffer& b, std::span<const std::byte> storage, std::byte fill) {
  ByteDamage d;
  if (b.row_stride == b.cols) return d;
  const std::size_t es = size_of(b.dtype);
  std::int64_t first_row = -1;
  for (std::int64_t r = 0; r + 1 < b.rows; ++r) {
    const std::size_t begin = static_cast<std::size_t>(r * b.row_stride + b.cols) * es;
    const std::size_t end = static_cast<std::size_t>((r + 1) * b.row_stride) * es;
    for (std::size_t i = begin; i < end; ++i)
      if (storage[i] != fill) {
        ++d.bytes;
        if (first_row < 0) first_row = r;
      }
  }
  if (d.bytes)
    d.summary = fmt::format("{}: {} byte(s) written in the gaps between strided rows, first after row {}",
                            b.name, d.bytes, first_row);
  return d;
}

ByteDamage check_redzone(std::span<const std::byte> zone, std::byte fill, bool front) {
  ByteDamage d;
  std::size_t lo = zone.size(), hi = 0;
  for (std::size_t i = 0; i < zone.size(); ++i)
    if (zone[i] != fill) {
      ++d.bytes;
      lo = std::min(lo, i);
      hi = std::max(hi, i);
    }
  if (!d.bytes) return d;
  if (front) {
    // Offsets before the start, counted back from the buffer's first byte.
    d.summary = fmt::format("{} byte(s) written before the start (offsets -{}..-{})", d.bytes,
                            zone.size() - lo, zone.size() - hi);
  } else {
    d.summary = fmt::format("{} byte(s) written past the end (offsets +{}..+{})", d.bytes, lo, hi);
  }
  return d;
}

ByteDamage compare_logical(const ConcreteBuffer& b, std::span<const std::byte> run_a, std::span<const std::byte> run_b) {
  ByteDamage d;
  const std::size_t es = size_of(b.dtype);
  std::int64_t first_r = -1, first_c = -1;
  std::size_t elements = 0;
  for (std::int64_t r = 0; r < b.rows; ++r) {
    const std::size_t off = static_cast<std::size_t>(r * b.row_stride) * es, len = static_cast<std::size_t>(b.cols) * es;
    if (std::memcmp(run_a.data() + off, run_b.data() + off, len) == 0) continue;
    for (std::int64_t c = 0; c < b.cols; ++c)
      if (std::memcmp(run_a.data() + off + static_cast<std::size_t>(c) * es, run_b.data() + off + static_cast<std::size_t>(c) * es, es)) {
        ++elements;
        if (first_r < 0) first_r = r, first_c = c;
      }
  }
  if (elements) {
    d.bytes = elements * es;
    d.summary = fmt::format("{}: {} element(s) changed, first at [{}, {}]", b.name, elements, first_r, first_c);
  }
  return d;
}

ByteDamage compare_input(const ConcreteBuffer& b, std::span<const std::byte> before,
                         std::span<const std::byte> after) {
  ByteDamage d;
  if (before.size() == after.size() && std::memcmp(before.data(), after.data(), before.size()) == 0) return d;
  const std::size_t es = size_of(b.dtype);
  std::int64_t first = -1;
  std::size_t elements = 0;
  for (std::size_t i = 0; i < before.size() && i < after.size(); i += es) {
    if (!std::equal(before.begin() + i, before.begin() + i + es, after.begin() + i)) {
      ++elements;
      d.bytes += es;
      if (first < 0) first = static_cast<std::int64_t>(i / es);
    }
  }
  if (elements) {
    const std::int64_t row = first / std::max<std::int64_t>(b.row_stride, 1);
    const std::int64_t col = first % std::max<std::int64_t>(b.row_stride, 1);
    d.summary = fmt::format("{}: {} element(s) changed, first at [{}, {}]", b.name, elements, row, col);
  }
  return d;
}

}  // namespace ladder
