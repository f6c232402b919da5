// Launch-geometry and shape expressions: "ceil_div(rows*d, 256)", "min(1024, pow2_ceil(d))".
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace ladder {

struct ExprValue {
  double value = 0;
  bool integral = true;  // integer literals and symbols bound to integers stay integral
};

// Looks up a symbol; nullopt means unknown.
using SymbolLookup = std::function<std::optional<ExprValue>(const std::string&)>;

// Throws std::invalid_argument("in 'EXPR' at column N: expected ...") for bad syntax or unknown
// symbols, and for division by zero.
ExprValue evaluate(const std::string& expr, const SymbolLookup& lookup);

// Binds a case and a scalar table; integers win over scalars of the same name.
SymbolLookup make_lookup(const std::map<std::string, std::int64_t>& ints,
                         const std::map<std::string, double>& reals);

}  // namespace ladder
