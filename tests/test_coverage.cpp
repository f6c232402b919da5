#include "harness/checks/coverage.h"

#include <cmath>
#include <limits>

#include "harness/checks/evaluate.h"
#include "harness/core/element.h"

#include <cstring>

#include "tests/catch.h"

using namespace ladder;

namespace {
ConcreteBuffer matrix(std::int64_t rows, std::int64_t cols, std::int64_t stride, DType dt = DType::F32) {
  ConcreteBuffer b;
  b.name = "y";
  b.role = BufferRole::Output;
  b.dtype = dt;
  b.shape = {rows, cols};
  b.rows = rows;
  b.cols = cols;
  b.row_stride = stride;
  return b;
}

// Storage after a run: everything still the sentinel, then `written` elements overwritten.
std::vector<std::byte> run_image(const ConcreteBuffer& b, std::byte sentinel, const std::vector<std::pair<int, int>>& written,
                                 float value = 1.0f) {
  std::vector<std::byte> s(static_cast<std::size_t>(b.storage_elements()) * size_of(b.dtype), sentinel);
  for (auto [r, c] : written) std::memcpy(&s[static_cast<std::size_t>(r * b.row_stride + c) * 4], &value, 4);
  return s;
}

std::vector<std::pair<int, int>> all_but(const ConcreteBuffer& b, const std::vector<int>& skip_rows) {
  std::vector<std::pair<int, int>> out;
  for (int r = 0; r < b.rows; ++r)
    if (std::find(skip_rows.begin(), skip_rows.end(), r) == skip_rows.end())
      for (int c = 0; c < b.cols; ++c) out.emplace_back(r, c);
  return out;
}
}  // namespace

TEST_CASE("coverage names the unwritten rows as ranges", "[coverage]") {
  const auto b = matrix(6, 5, 5);
  const auto written = all_but(b, {2, 3});
  const auto res = check_coverage(b, run_image(b, kSentinelA, written), run_image(b, kSentinelB, written));
  CHECK(res.unwritten == 10);
  CHECK(res.summary == "rows 2..3, all columns");
}

TEST_CASE("coverage: fully written output has nothing to report", "[coverage]") {
  const auto rows = GENERATE(1, 3, 12);
  const auto cols = GENERATE(1, 7, 64);
  const auto b = matrix(rows, cols, cols);
  const auto written = all_but(b, {});
  const auto res = check_coverage(b, run_image(b, kSentinelA, written), run_image(b, kSentinelB, written));
  CHECK(res.unwritten == 0);
  CHECK(res.summary.empty());
}

TEST_CASE("coverage tells an element that wrote the sentinel value from one never written", "[coverage]") {
  const auto b = matrix(1, 4, 4);
  auto a = run_image(b, kSentinelA, {{0, 0}, {0, 1}, {0, 2}, {0, 3}});
  auto bb = run_image(b, kSentinelB, {{0, 0}, {0, 1}, {0, 2}, {0, 3}});
  // Element 1 legitimately computed a value whose bytes equal sentinel A in run A only.
  std::memset(&a[4], 0xFE, 4);
  const auto res = check_coverage(b, a, bb);
  CHECK(res.unwritten == 0);
  CHECK(res.sentinel_valued == 1);
}

TEST_CASE("coverage summarizes partial rows by column range", "[coverage]") {
  const auto b = matrix(3, 10, 10);
  std::vector<std::pair<int, int>> written = all_but(b, {1});
  for (int c = 0; c < 6; ++c) written.emplace_back(1, c);
  const auto res = check_coverage(b, run_image(b, kSentinelA, written), run_image(b, kSentinelB, written));
  CHECK(res.unwritten == 4);
  CHECK(res.summary == "row 1, columns 6..9");
}

TEST_CASE("gaps between strided rows must stay untouched", "[coverage]") {
  const auto b = matrix(3, 4, 6);
  auto s = run_image(b, kSentinelA, all_but(b, {}));
  CHECK(check_gaps(b, s, kSentinelA).bytes == 0);
  s[static_cast<std::size_t>(1 * 6 + 4) * 4] = std::byte{0};
  const auto d = check_gaps(b, s, kSentinelA);
  CHECK(d.bytes == 1);
  CHECK_THAT(d.summary, ladder_test::has_substr("after row 1"));
}

TEST_CASE("redzones report where the stray bytes landed", "[coverage]") {
  std::vector<std::byte> zone(64, kRedzoneFill);
  CHECK(check_redzone(zone, kRedzoneFill, false).bytes == 0);
  zone[0] = zone[3] = std::byte{0};
  const auto back = check_redzone(zone, kRedzoneFill, false);
  CHECK(back.bytes == 2);
  CHECK(back.summary == "2 byte(s) written past the end (offsets +0..+3)");
  std::vector<std::byte> front(64, kRedzoneFill);
  front[63] = std::byte{1};
  CHECK(check_redzone(front, kRedzoneFill, true).summary == "1 byte(s) written before the start (offsets -1..-1)");
}

TEST_CASE("inputs must come back byte for byte", "[coverage]") {
  auto b = matrix(2, 3, 3);
  b.role = BufferRole::Input;
  std::vector<std::byte> before(24, std::byte{7}), after = before;
  CHECK(compare_input(b, before, after).bytes == 0);
  after[4 * 4] = std::byte{8};
  const auto d = compare_input(b, before, after);
  CHECK(d.bytes == 4);
  CHECK(d.summary == "y: 1 element(s) changed, first at [1, 1]");
}

TEST_CASE("mask summary caps the number of groups", "[coverage]") {
  std::vector<bool> mask(20 * 3, false);
  for (int r = 0; r < 20; r += 2) mask[static_cast<std::size_t>(r * 3)] = true;
  const auto s = summarize_mask(mask, 20, 3, 4);
  CHECK_THAT(s, ladder_test::has_substr("and 6 more group(s)"));
}

TEST_CASE("determinism compares logical elements, not the gaps between strided rows", "[coverage]") {
  const auto b = matrix(2, 2, 5);
  const auto written = all_but(b, {});
  const auto a = run_image(b, kSentinelA, written), bb = run_image(b, kSentinelB, written);
  CHECK(compare_logical(b, a, bb).bytes == 0);  // gaps differ (two sentinels), elements agree
  const auto changed = run_image(b, kSentinelB, written, 2.0f);
  const auto d = compare_logical(b, a, changed);
  CHECK(d.bytes == 4 * 4);
  CHECK(d.summary == "y: 4 element(s) changed, first at [0, 0]");
}

TEST_CASE("a reference past the output dtype's range is compared as the infinity it stores",
          "[coverage]") {
  const double inf = std::numeric_limits<double>::infinity();
  // f16: 65519 still rounds to 65504; 65520 and above overflow.
  const auto f16 = ladder::stored_reference(ladder::DType::F16, {80000, -80000, 65519, 65520, 1.5});
  CHECK(f16[0] == inf);
  CHECK(f16[1] == -inf);
  CHECK(f16[2] == 65519);
  CHECK(f16[3] == inf);
  CHECK(f16[4] == 1.5);
  // bf16 and f32 hold 80000; f32 overflows past about 3.4e38.
  CHECK(ladder::stored_reference(ladder::DType::BF16, {80000})[0] == 80000);
  CHECK(ladder::stored_reference(ladder::DType::F32, {1e39})[0] == inf);
  CHECK(std::isnan(ladder::stored_reference(ladder::DType::F16, {std::nan("")})[0]));
  // Around each dtype's largest finite value and its overflow threshold, the result is what the
  // exact rounding says: a value is replaced by infinity exactly when it rounds to infinity.
  for (auto dt : {ladder::DType::F16, ladder::DType::BF16, ladder::DType::F32}) {
    const double largest = dt == ladder::DType::F16 ? 65504.0 : dt == ladder::DType::BF16 ? 3.3895313892515355e38
                                                                                          : 3.4028234663852886e38;
    for (double scale : {0.999, 1.0, 1.0009, 1.001, 1.002, 1.003, 1.0039, 1.004, 1.01, 2.0})
      for (double sign : {1.0, -1.0}) {
        const double v = sign * largest * scale;
        const double exact = ladder::round_to_dtype(dt, v);
        INFO(ladder::label(dt) << " " << v);
        CHECK(ladder::stored_reference(dt, {v})[0] == (std::isinf(exact) ? exact : v));
      }
  }
}
