#include "harness/device/fixture_inputs.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/core/element.h"
#include "harness/fixtures/fixture_file.h"

namespace ladder {
namespace {

// A child runs its cases one after another, but generate() may be called from a bench or a
// test on several threads: the cache is locked.
const fixtures::FixtureFile& cached_fixture(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const fixtures::FixtureFile>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(path);
  if (it == cache.end()) {
    try {
      it = cache.emplace(path, std::make_shared<const fixtures::FixtureFile>(fixtures::load_fixture(path))).first;
    } catch (const fixtures::FixtureError& e) {
      throw std::invalid_argument(std::string("fixture input: ") + e.what());
    }
  }
  return *it->second;
}

const fixtures::Case& find_case(const FixtureInputRef& ref) {
  const fixtures::FixtureFile& f = cached_fixture(ref.file);
  for (const auto& c : f.cases)
    if (c.id == ref.case_id) return c;
  throw std::invalid_argument(fmt::format("fixture input: {}: expected a case with id '{}' (the file has {} cases)",
                                          ref.file, ref.case_id, f.cases.size()));
}

const std::vector<double>& input_of(const fixtures::Case& c, const FixtureInputRef& ref) {
  auto it = c.inputs.find(ref.input);
  if (it == c.inputs.end()) {
    std::string names;
    for (const auto& [name, _] : c.inputs) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument(fmt::format("fixture input: {}: case '{}': expected an input named '{}' (it has: {})",
                                            ref.file, ref.case_id, ref.input, names));
  }
  return it->second;
}

}  // namespace

std::string fixture_init(const std::string& file, const std::string& case_id, const std::string& input) {
  return kFixtureInitPrefix + file + "#" + case_id + "/" + input;
}

bool is_fixture_init(const std::string& init) { return init.rfind(kFixtureInitPrefix, 0) == 0; }

FixtureInputRef parse_fixture_init(const std::string& init) {
  auto bad = [&]() -> FixtureInputRef {
    throw std::invalid_argument(fmt::format("init '{}': expected fixture:FILE#CASE_ID/INPUT", init));
  };
  if (!is_fixture_init(init)) return bad();
  const std::string rest = init.substr(std::string(kFixtureInitPrefix).size());
  const auto hash = rest.rfind('#');
  if (hash == std::string::npos || hash == 0) return bad();
  const std::string tail = rest.substr(hash + 1);
  const auto slash = tail.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == tail.size()) return bad();
  return {rest.substr(0, hash), tail.substr(0, slash), tail.substr(slash + 1)};
}

const std::vector<double>& fixture_input_values(const FixtureInputRef& ref) {
  return input_of(find_case(ref), ref);
}

std::vector<std::byte> fill_from_fixture(const ConcreteBuffer& b) {
  const FixtureInputRef ref = parse_fixture_init(b.init);
  const fixtures::Case& c = find_case(ref);
  const std::vector<double>& values = input_of(c, ref);
  auto fail = [&](const std::string& expected) {
    throw std::invalid_argument(fmt::format("buffer {}: fixture input {}: case '{}', input '{}': expected {}", b.name,
                                            ref.file, ref.case_id, ref.input, expected));
  };
  // Storing a value in another dtype would round it: the kernel would not see the fixture's input.
  if (precision_of(b.dtype) != c.dtype || !is_float(b.dtype))
    fail(fmt::format("a {} buffer (the case's dtype); the buffer is {}", oracles::label(c.dtype), label(b.dtype)));
  if (static_cast<std::int64_t>(values.size()) != b.logical_elements())
    fail(fmt::format("{} values for a {} x {} buffer; the input has {}", b.logical_elements(), b.rows, b.cols,
                     values.size()));
  const std::size_t esize = size_of(b.dtype);
  std::vector<std::byte> out(static_cast<std::size_t>(b.storage_elements()) * esize);
  for (std::int64_t index = 0; index < b.logical_elements(); ++index) {
    const std::int64_t r = index / b.cols, col = index % b.cols;
    store_element(out.data() + static_cast<std::size_t>(r * b.row_stride + col) * esize, b.dtype,
                  values[static_cast<std::size_t>(index)]);
  }
  return out;
}

}  // namespace ladder
