#include "harness/ladder/expr.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace ladder {
namespace {

class Parser {
 public:
  Parser(const std::string& text, const SymbolLookup& lookup) : s_(text), lookup_(lookup) {}

  ExprValue parse() {
    ExprValue v = sum();
    skip();
    if (pos_ != s_.size()) fail("expected an operator or the end");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("in '{}' at column {}: {}", s_, pos_ + 1, what));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(fmt::format("expected '{}'", c));
  }

  ExprValue sum() {
    ExprValue v = product();
    for (;;) {
      double sign = 0;
      if (eat('+')) sign = 1;
      else if (eat('-')) sign = -1;
      else return v;
      const ExprValue r = product();
      v = {v.value + sign * r.value, v.integral && r.integral};
    }
  }
  ExprValue product() {
    ExprValue v = unary();
    for (;;) {
      char op = 0;
      if (eat('*')) op = '*';
      else if (eat('/')) op = '/';
      else if (eat('%')) op = '%';
      else return v;
      const ExprValue r = unary();
      const bool ints = v.integral && r.integral;
      if ((op == '/' || op == '%') && r.value == 0) fail("division by zero");
      if (op == '*') v = {v.value * r.value, ints};
      else if (op == '/') v = ints ? ExprValue{std::trunc(v.value / r.value), true} : ExprValue{v.value / r.value, false};
      else v = {std::fmod(v.value, r.value), ints};
    }
  }
  ExprValue unary() {
    if (eat('-')) {
      ExprValue v = unary();
      return {-v.value, v.integral};
    }
    if (eat('+')) return unary();
    return primary();
  }
  ExprValue primary() {
    skip();
    if (pos_ >= s_.size()) fail("expected a number, a name or '('");
    if (eat('(')) {
      ExprValue v = sum();
      expect(')');
      return v;
    }
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(fmt::format("unexpected '{}'", c));
  }
  ExprValue number() {
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    const std::string token(begin, static_cast<const char*>(end));
    pos_ += token.size();
    const bool integral = token.find_first_of(".eE") == std::string::npos;
    return {v, integral};
  }
  ExprValue name() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    const std::string id = s_.substr(start, pos_ - start);
    if (eat('(')) return call(id);
    if (auto v = lookup_(id)) return *v;
    pos_ = start;
    fail(fmt::format("unknown name '{}'", id));
  }
  ExprValue call(const std::string& fn) {
    std::vector<ExprValue> args;
    if (!eat(')')) {
      do args.push_back(sum());
      while (eat(','));
      expect(')');
    }
    auto arity = [&](std::size_t n) {
      if (args.size() != n) fail(fmt::format("{}() takes {} argument(s), got {}", fn, n, args.size()));
    };
    if (fn == "min" || fn == "max") {
      arity(2);
      const bool ints = args[0].integral && args[1].integral;
      const double v = fn == "min" ? std::min(args[0].value, args[1].value) : std::max(args[0].value, args[1].value);
      return {v, ints};
    }
    if (fn == "ceil_div") {
      arity(2);
      if (args[1].value == 0) fail("ceil_div by zero");
      return {std::ceil(args[0].value / args[1].value), true};
    }
    if (fn == "pow2_ceil") {
      arity(1);
      double p = 1;
      while (p < args[0].value) p *= 2;
      return {p, true};
    }
    fail(fmt::format("unknown function '{}' (known: min, max, ceil_div, pow2_ceil)", fn));
  }

  const std::string& s_;
  const SymbolLookup& lookup_;
  std::size_t pos_ = 0;
};

}  // namespace

ExprValue evaluate(const std::string& expr, const SymbolLookup& lookup) {
  return Parser(expr, lookup).parse();
}

SymbolLookup make_lookup(const std::map<std::string, std::int64_t>& ints,
                         const std::map<std::string, double>& reals) {
  return [&ints, &reals](const std::string& name) -> std::optional<ExprValue> {
    if (auto it = ints.find(name); it != ints.end()) return ExprValue{static_cast<double>(it->second), true};
    if (auto it = reals.find(name); it != reals.end()) {
      const double v = it->second;
      return ExprValue{v, std::floor(v) == v && std::fabs(v) < 9e15};
    }
    return std::nullopt;
  };
}

}  // namespace ladder
