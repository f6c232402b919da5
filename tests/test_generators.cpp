// Derived inputs (harness/device/generators.h): a forward pass's saved statistics computed from
// another input, as layernorm_bwd's stats=saved plan takes them. No GPU needed.
#include <cmath>
#include <string>

#include "harness/device/generators.h"
#include "harness/kernels/catalog.h"
#include "harness/kernels/plan_builder.h"
#include "tests/catch.h"

using namespace ladder;
using ladder::kernels::detail::matrix;
using ladder::kernels::detail::vector;

namespace {

std::uint64_t seed_one(const ConcreteBuffer&) { return 1; }

std::string error_of(const std::vector<ConcreteBuffer>& buffers) {
  try {
    generate_inputs(buffers, seed_one);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("row_mean and row_rstd follow the rows of their source, padding skipped", "[generators]") {
  // arange over a strided 3 x 5 matrix: row r holds 5r .. 5r + 4, so its mean is 5r + 2 and its
  // biased variance (0^2 + 1^2 + ... of the offsets -2..2) / 5 = 2.
  const double eps = 0.25;
  const std::vector<ConcreteBuffer> buffers = {
      matrix("x", BufferRole::Input, DType::F32, 3, 5, 8, "arange"),
      vector("mean", BufferRole::Input, DType::F32, 3, "row_mean:x"),
      vector("rstd", BufferRole::Input, DType::F32, 3, "row_rstd:x:0.25"),
  };
  const auto inputs = generate_inputs(buffers, seed_one);
  REQUIRE(inputs.size() == 3);
  const auto mean = logical_values(buffers[1], inputs.at("mean"));
  const auto rstd = logical_values(buffers[2], inputs.at("rstd"));
  for (int r = 0; r < 3; ++r) {
    INFO("row " << r);
    CHECK(mean[r] == 5.0 * r + 2);
    CHECK(rstd[r] == Approx(1.0 / std::sqrt(2.0 + eps)).epsilon(1e-7));
  }
  // Same bytes as generate() for the ordinary input.
  CHECK(inputs.at("x") == generate(buffers[0], 1));
}

TEST_CASE("row statistics of a bf16 source use its stored values", "[generators]") {
  const std::vector<ConcreteBuffer> buffers = {
      matrix("x", BufferRole::Input, DType::BF16, 64, 96, 96, "normal"),
      vector("mean", BufferRole::Input, DType::F32, 64, "row_mean:x"),
  };
  const auto inputs = generate_inputs(buffers, seed_one);
  const auto x = logical_values(buffers[0], inputs.at("x"));
  const auto mean = logical_values(buffers[1], inputs.at("mean"));
  for (int r = 0; r < 64; ++r) {
    double sum = 0;
    for (int c = 0; c < 96; ++c) sum += x[r * 96 + c];
    CHECK(mean[r] == Approx(sum / 96).margin(1e-7));
  }
}

TEST_CASE("bad derived inits name the buffer and what was expected", "[generators]") {
  const auto x = matrix("x", BufferRole::Input, DType::F32, 4, 8, 8, "normal");
  auto with = [&](const ConcreteBuffer& b) { return std::vector<ConcreteBuffer>{x, b}; };
  CHECK(error_of(with(vector("m", BufferRole::Input, DType::F32, 4, "row_mean:nosuch"))).find("'nosuch' is not a generated input") != std::string::npos);
  CHECK(error_of(with(vector("m", BufferRole::Input, DType::F32, 4, "row_mean:"))).find("expected row_mean:SOURCE") != std::string::npos);
  CHECK(error_of(with(vector("r", BufferRole::Input, DType::F32, 4, "row_rstd:x"))).find("row_rstd:SOURCE:EPS") != std::string::npos);
  CHECK(error_of(with(vector("r", BufferRole::Input, DType::F32, 4, "row_rstd:x:0"))).find("EPS > 0") != std::string::npos);
  CHECK(error_of(with(vector("r", BufferRole::Input, DType::F32, 4, "row_rstd:x:1e-5z"))).find("EPS > 0") != std::string::npos);
  const std::string wrong_length = error_of(with(vector("m", BufferRole::Input, DType::F32, 5, "row_mean:x")));
  CHECK(wrong_length.find("buffer m") != std::string::npos);
  CHECK(wrong_length.find("5 elements, but x has 4 rows") != std::string::npos);
  // A derived source is not a generated input (no chains).
  CHECK(error_of({x, vector("m", BufferRole::Input, DType::F32, 4, "row_mean:x"),
                  vector("m2", BufferRole::Input, DType::F32, 1, "row_mean:m")})
            .find("'m' is not a generated input") != std::string::npos);
  // generate() alone refuses them and says where they are handled.
  CHECK_THROWS_WITH(generate(vector("m", BufferRole::Input, DType::F32, 4, "row_mean:x"), 1),
                    ladder_test::has_substr("through generate_inputs"));
}

TEST_CASE("layernorm_bwd takes the forward's saved statistics unless stats=recompute", "[generators][kernels]") {
  const Case c{{"rows", 83}, {"d", 769}};
  const std::map<std::string, double> eps{{"eps", 1e-5}};
  const auto saved = kernels::plan({"layernorm_bwd", DType::BF16, {}}, c, eps).front();
  std::string mean_init, rstd_init;
  for (const auto& b : saved.buffers) {
    if (b.name == "mean") mean_init = b.init;
    if (b.name == "rstd") rstd_init = b.init;
  }
  CHECK(mean_init == "row_mean:x");
  CHECK(rstd_init == "row_rstd:x:1e-05");
  CHECK(saved.args.at(6).buffer == "mean");
  CHECK(saved.args.at(7).buffer == "rstd");
  const auto recompute = kernels::plan({"layernorm_bwd", DType::BF16, {{"stats", "recompute"}}}, c, eps).front();
  for (const auto& b : recompute.buffers) CHECK((b.name != "mean" && b.name != "rstd"));
  CHECK(!recompute.args.at(6).is_buffer);
  CHECK_THROWS_WITH(kernels::plan({"layernorm_bwd", DType::BF16, {{"stats", "fresh"}}}, c, eps),
                    ladder_test::has_substr("stats=fresh"));
  // Saved and recomputed statistics are separate kernels: RECOMPUTE follows SHIFTED.
  const Case aligned{{"rows", 83}, {"d", 768}};
  auto entry = [&](const Case& shape, DType dt, std::map<std::string, std::string> variant) {
    variant["items"] = "2";
    return kernels::plan({"layernorm_bwd", dt, variant}, shape, eps).front().entry;
  };
  CHECK(entry(c, DType::BF16, {}) == "ladder::layernorm_bwd<__nv_bfloat16, 2, true>");
  CHECK(entry(c, DType::BF16, {{"stats", "recompute"}}) == "ladder::layernorm_bwd<__nv_bfloat16, 2, true, true>");
  CHECK(entry(aligned, DType::F32, {{"stats", "recompute"}}) == "ladder::layernorm_bwd<float, 2, false, true>");
  CHECK(entry(aligned, DType::F32, {}) == "ladder::layernorm_bwd<float, 2>");
  // broken_launch=null_stats (probes/selftest.json): the saved kernel with null statistics and
  // no buffers for them; nothing else changes.
  const auto broken = kernels::plan({"layernorm_bwd", DType::BF16, {{"broken_launch", "null_stats"}}}, c, eps).front();
  CHECK(broken.entry == saved.entry);
  CHECK(broken.grid == saved.grid);
  CHECK(broken.block == saved.block);
  CHECK(!broken.args.at(6).is_buffer);
  CHECK(!broken.args.at(7).is_buffer);
  for (const auto& b : broken.buffers) CHECK((b.name != "mean" && b.name != "rstd"));
  CHECK_THROWS_WITH(kernels::plan({"layernorm_bwd", DType::BF16, {{"stats", "recompute"}, {"broken_launch", "null_stats"}}}, c, eps),
                    ladder_test::has_substr("needs stats=saved"));
}
