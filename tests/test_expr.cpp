#include "harness/ladder/expr.h"

#include <string>

#include "tests/catch.h"

using namespace ladder;

namespace {
double eval(const std::string& e, std::map<std::string, std::int64_t> ints = {}, std::map<std::string, double> reals = {}) {
  return evaluate(e, make_lookup(ints, reals)).value;
}
}  // namespace

TEST_CASE("expressions follow precedence and integer division", "[expr]") {
  CHECK(eval("1 + 2 * 3") == 7);
  CHECK(eval("(1 + 2) * 3") == 9);
  CHECK(eval("7 / 2") == 3);     // integers divide as integers
  CHECK(eval("7.0 / 2") == 3.5);
  CHECK(eval("-3 + 5") == 2);
  CHECK(eval("10 % 4") == 2);
}

TEST_CASE("expressions bind case symbols and scalars", "[expr]") {
  const auto rows = GENERATE(1, 7, 83);
  const auto d = GENERATE(1, 255, 256, 257, 4096);
  CHECK(eval("ceil_div(rows*d, 256)", {{"rows", rows}, {"d", d}}) == (rows * d + 255) / 256);
  CHECK(eval("min(1024, pow2_ceil(d))", {{"d", d}}) <= 1024);
  CHECK(eval("max(rows, d)", {{"rows", rows}, {"d", d}}) == std::max(rows, d));
  CHECK(eval("eps * 2", {}, {{"eps", 0.25}}) == 0.5);
}

TEST_CASE("bad expressions say where and what", "[expr]") {
  CHECK_THROWS_WITH(eval("1 + "), ladder_test::has_substr("expected a number"));
  CHECK_THROWS_WITH(eval("nope * 2"), ladder_test::has_substr("unknown name 'nope'"));
  CHECK_THROWS_WITH(eval("4 / 0"), ladder_test::has_substr("division by zero"));
  CHECK_THROWS_WITH(eval("frob(1)"), ladder_test::has_substr("unknown function 'frob'"));
  CHECK_THROWS_WITH(eval("min(1)"), ladder_test::has_substr("takes 2 argument"));
  CHECK_THROWS_WITH(eval("(1 + 2"), ladder_test::has_substr("expected ')'"));
}
