#include "harness/ladder/manifest.h"

#include <filesystem>
#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/core/text.h"

namespace ladder {
namespace fs = std::filesystem;
using nlohmann::json;

ManifestError::ManifestError(const std::string& f, const std::string& p, const std::string& e)
    : std::runtime_error(fmt::format("{}: at {}: {}", f, p.empty() ? "/" : p, e)),
      file(f), json_path(p.empty() ? "/" : p), expected(e) {}

namespace {

constexpr std::size_t kMaxCasesPerRung = 100000;

// A JSON value with the path that leads to it, so every error can say where it is.
struct Node {
  const json& j;
  std::string path;
  const std::string& file;

  [[noreturn]] void fail(const std::string& expected) const { throw ManifestError(file, path, expected); }
  // A missing field or element is the manifest's error, never the JSON library's.
  Node at(const std::string& key) const {
    require_object();
    const auto it = j.find(key);
    if (it == j.end()) fail(fmt::format("expected a '{}' field", key));
    return {*it, path + "/" + key, file};
  }
  Node at(std::size_t i) const {
    require_array();
    if (i >= j.size()) fail(fmt::format("expected at least {} elements, got {}", i + 1, j.size()));
    return {j[i], fmt::format("{}/{}", path, i), file};
  }
  bool has(const std::string& key) const { return j.is_object() && j.contains(key); }

  std::string str() const {
    if (!j.is_string()) fail(fmt::format("expected a string, got {}", j.type_name()));
    return j.get<std::string>();
  }
  double number() const {
    if (!j.is_number()) fail(fmt::format("expected a number, got {}", j.type_name()));
    return j.get<double>();
  }
  std::int64_t integer() const {
    if (!j.is_number_integer()) fail(fmt::format("expected an integer, got {}", j.dump()));
    return j.get<std::int64_t>();
  }
  bool boolean() const {
    if (!j.is_boolean()) fail(fmt::format("expected true or false, got {}", j.dump()));
    return j.get<bool>();
  }
  void require_object() const {
    if (!j.is_object()) fail(fmt::format("expected an object, got {}", j.type_name()));
  }
  void require_array() const {
    if (!j.is_array()) fail(fmt::format("expected an array, got {}", j.type_name()));
  }
  std::vector<std::string> strings() const {
    require_array();
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(at(i).str());
    return out;
  }
  // An integer or an expression string, kept as text and evaluated per case.
  std::string expr() const {
    if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
    if (j.is_string() && !j.get<std::string>().empty()) return j.get<std::string>();
    fail(fmt::format("expected an integer or an expression string, got {}", j.dump()));
  }
  void only_keys(const std::set<std::string>& allowed) const {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string names;
        for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
        Node{it.value(), path + "/" + it.key(), file}.fail(fmt::format("unknown field '{}' (known: {})", it.key(), names));
      }
  }
};

const std::set<std::string> kRungKeys{
    "name", "adds", "features", "source", "entry", "options", "kernel", "scalars", "buffers", "args",
    "grid", "block", "shared_bytes", "oracle", "expect", "deterministic", "timeout_s", "seed", "cases"};

BufferSpec parse_buffer(const Node& n) {
  n.require_object();
  n.only_keys({"name", "role", "dtype", "shape", "row_stride", "init", "alias_of"});
  BufferSpec b;
  b.name = n.at("name").str();
  const std::string role = n.has("role") ? n.at("role").str() : "input";
  if (role == "input") b.role = BufferRole::Input;
  else if (role == "output") b.role = BufferRole::Output;
  else if (role == "inout") b.role = BufferRole::InOut;
  else if (role == "scratch") b.role = BufferRole::Scratch;
  else n.at("role").fail("expected one of input, output, inout, scratch");
  const std::string dt = n.has("dtype") ? n.at("dtype").str() : "f32";
  auto parsed = parse_dtype(dt);
  if (!parsed) n.at("dtype").fail("expected a dtype: f32, f16, bf16, f64, i32, u32, u8");
  b.dtype = *parsed;
  if (!n.has("shape")) n.fail("expected a 'shape' field");
  const Node shape = n.at("shape");
  shape.require_array();
  if (shape.j.empty()) shape.fail("expected at least one dimension");
  for (std::size_t i = 0; i < shape.j.size(); ++i) b.shape.push_back(shape.at(i).expr());
  if (n.has("row_stride")) b.row_stride = n.at("row_stride").expr();
  if (n.has("init")) b.init = n.at("init").str();
  if (n.has("alias_of")) b.alias_of = n.at("alias_of").str();
  return b;
}

ArgSpec parse_arg(const Node& n) {
  ArgSpec a;
  if (n.j.is_string()) {
    a.is_buffer = true;
    a.buffer = n.str();
    return a;
  }
  if (!n.j.is_object() || n.j.size() != 1)
    n.fail(R"(expected a buffer name or a one-key object such as {"i32": "d"})");
  const auto it = n.j.begin();
  const std::string type = it.key();
  a.is_buffer = false;
  auto parsed = parse_dtype(type);
  if (!parsed || *parsed == DType::U8 || *parsed == DType::F16 || *parsed == DType::BF16)
    n.fail(fmt::format("expected a scalar type i32, u32, i64, f32 or f64, got '{}'", type));
  a.type = *parsed;
  a.expr = Node{it.value(), n.path + "/" + type, n.file}.expr();
  return a;
}

std::vector<std::int64_t> case_values(const Node& n) {
  if (n.j.is_number_integer()) return {n.integer()};
  if (n.j.is_array()) {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < n.j.size(); ++i) v.push_back(n.at(i).integer());
    if (v.empty()) n.fail("expected at least one value");
    return v;
  }
  if (n.j.is_object() && n.j.size() == 1 && n.j.contains("range")) {
    const Node r = n.at("range");
    if (!r.j.is_array() || r.j.size() != 2) r.fail("expected [lo, hi]");
    const auto lo = r.at(0).integer(), hi = r.at(1).integer();
    if (hi < lo) r.fail(fmt::format("expected lo <= hi, got [{}, {}]", lo, hi));
    // The width as unsigned: hi - lo overflows for ranges that span most of int64.
    const std::uint64_t width = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (width >= kMaxCasesPerRung) r.fail(fmt::format("expected a range of at most {} values", kMaxCasesPerRung));
    std::vector<std::int64_t> v;
    for (std::uint64_t k = 0; k <= width; ++k) v.push_back(lo + static_cast<std::int64_t>(k));
    return v;
  }
  n.fail(R"(expected an integer, a list of integers or {"range": [lo, hi]})");
}

std::vector<Case> parse_cases(const Node& n) {
  n.require_array();
  std::vector<Case> out;
  for (std::size_t i = 0; i < n.j.size(); ++i) {
    const Node c = n.at(i);
    c.require_object();
    std::vector<Case> partial{Case{}};
    for (auto it = c.j.begin(); it != c.j.end(); ++it) {
      const auto values = case_values(Node{it.value(), c.path + "/" + it.key(), c.file});
      // Checked before the product is built, which could otherwise exhaust memory.
      if (partial.size() * values.size() + out.size() > kMaxCasesPerRung)
        c.fail(fmt::format("expands to more than {} cases", kMaxCasesPerRung));
      std::vector<Case> next;
      for (const auto& p : partial)
        for (auto v : values) {
          Case q = p;
          q[it.key()] = v;
          next.push_back(std::move(q));
        }
      partial = std::move(next);
    }
    out.insert(out.end(), partial.begin(), partial.end());
  }
  if (out.empty()) n.fail("expected at least one case");
  return out;
}

std::array<std::string, 3> parse_dim3(const Node& n) {
  n.require_array();
  if (n.j.empty() || n.j.size() > 3) n.fail("expected 1 to 3 dimensions");
  std::array<std::string, 3> d{"1", "1", "1"};
  for (std::size_t i = 0; i < n.j.size(); ++i) d[i] = n.at(i).expr();
  return d;
}

std::uint64_t seed_from_name(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

Rung parse_rung(const Node& n, const std::string& base_dir) {
  n.require_object();
  n.only_keys(kRungKeys);
  Rung r;
  r.manifest_file = n.file;
  if (!n.has("name")) n.fail("expected a 'name' field");
  r.name = n.at("name").str();
  if (!std::regex_match(r.name, std::regex("[A-Za-z0-9_]+")))
    n.at("name").fail("expected letters, digits and '_' only");
  if (n.has("adds")) r.adds = n.at("adds").str();
  if (n.has("features")) r.features = n.at("features").strings();
  if (n.has("options")) r.options = n.at("options").strings();
  if (n.has("scalars")) {
    const Node s = n.at("scalars");
    s.require_object();
    for (auto it = s.j.begin(); it != s.j.end(); ++it)
      r.scalars[it.key()] = Node{it.value(), s.path + "/" + it.key(), s.file}.number();
  }
  if (n.has("kernel")) {
    const Node k = n.at("kernel");
    k.require_object();
    k.only_keys({"op", "dtype", "variant", "inits"});
    KernelRef ref;
    ref.op = k.at("op").str();
    auto dt = parse_dtype(k.has("dtype") ? k.at("dtype").str() : "f32");
    if (!dt) k.at("dtype").fail("expected f32, f16 or bf16");
    ref.dtype = *dt;
    if (k.has("variant")) {
      const Node v = k.at("variant");
      v.require_object();
      for (auto it = v.j.begin(); it != v.j.end(); ++it)
        ref.variant[it.key()] = Node{it.value(), v.path + "/" + it.key(), v.file}.str();
    }
    if (k.has("inits")) {
      const Node v = k.at("inits");
      v.require_object();
      for (auto it = v.j.begin(); it != v.j.end(); ++it)
        ref.inits[it.key()] = Node{it.value(), v.path + "/" + it.key(), v.file}.str();
    }
    r.kernel = ref;
  } else {
    if (!n.has("source")) n.fail("expected a 'source' field (or a 'kernel' field)");
    if (!n.has("entry")) n.fail("expected an 'entry' field");
    const std::string src = n.at("source").str();
    r.source = (fs::path(base_dir) / src).lexically_normal().string();
    const std::string ext = fs::path(src).extension().string();
    if (ext == ".cu" || ext == ".cuh") r.source_kind = SourceKind::CudaCpp;
    else if (ext == ".ptx") r.source_kind = SourceKind::Ptx;
    else if (ext == ".cubin") r.source_kind = SourceKind::Cubin;
    else n.at("source").fail("expected a .cu, .cuh, .ptx or .cubin file");
    r.entry = n.at("entry").str();
    if (n.has("buffers")) {
      const Node b = n.at("buffers");
      b.require_array();
      std::set<std::string> names;
      for (std::size_t i = 0; i < b.j.size(); ++i) {
        r.buffers.push_back(parse_buffer(b.at(i)));
        if (!names.insert(r.buffers.back().name).second)
          b.at(i).at("name").fail(fmt::format("expected a unique buffer name; '{}' repeats", r.buffers.back().name));
      }
      for (std::size_t i = 0; i < r.buffers.size(); ++i)
        if (!r.buffers[i].alias_of.empty() && !names.count(r.buffers[i].alias_of))
          b.at(i).at("alias_of").fail("expected the name of another buffer");
    }
    if (n.has("args")) {
      const Node a = n.at("args");
      a.require_array();
      for (std::size_t i = 0; i < a.j.size(); ++i) {
        r.args.push_back(parse_arg(a.at(i)));
        const auto& arg = r.args.back();
        if (arg.is_buffer && std::none_of(r.buffers.begin(), r.buffers.end(),
                                          [&](const BufferSpec& b) { return b.name == arg.buffer; }))
          a.at(i).fail(fmt::format("expected the name of a buffer; '{}' is not declared", arg.buffer));
      }
    }
    if (n.has("grid")) r.grid = parse_dim3(n.at("grid"));
    if (n.has("block")) r.block = parse_dim3(n.at("block"));
    if (n.has("shared_bytes")) r.shared_bytes = n.at("shared_bytes").expr();
    if (n.has("oracle")) r.oracle = n.at("oracle").str();
  }
  if (n.has("expect")) {
    const std::string e = n.at("expect").str();
    if (e == "pass") r.expect = FailReason::None;
    else if (auto reason = parse_fail_reason(e); reason && *reason != FailReason::None) r.expect = *reason;
    else n.at("expect").fail("expected 'pass' or a failure reason: compile, load, launch, crash, timeout, unwritten, redzone, clobbered, mismatch, nondeterministic");
  }
  if (n.has("deterministic")) r.deterministic = n.at("deterministic").boolean();
  if (n.has("timeout_s")) {
    r.timeout_s = n.at("timeout_s").number();
    if (r.timeout_s <= 0) n.at("timeout_s").fail("expected a positive number of seconds");
  }
  r.seed = n.has("seed") ? static_cast<std::uint64_t>(n.at("seed").integer()) : seed_from_name(r.name);
  if (!n.has("cases")) n.fail("expected a 'cases' field");
  r.cases = parse_cases(n.at("cases"));
  return r;
}

}  // namespace

Ladder parse_ladder(const std::string& text, const std::string& file, const std::string& base_dir) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ManifestError(file, "/", fmt::format("valid JSON ({})", e.what()));
  }
  const Node top{root, "", file};
  top.require_object();
  top.only_keys({"schema_version", "ladder", "description", "defaults", "rungs"});
  if (top.has("schema_version") && top.at("schema_version").integer() != 1)
    top.at("schema_version").fail("expected schema_version 1");
  Ladder lad;
  lad.file = file;
  lad.name = top.has("ladder") ? top.at("ladder").str() : fs::path(file).stem().string();
  if (top.has("description")) lad.description = top.at("description").str();
  json defaults = json::object();
  if (top.has("defaults")) {
    top.at("defaults").require_object();
    top.at("defaults").only_keys(kRungKeys);
    defaults = root.at("defaults");
  }
  if (!top.has("rungs")) top.fail("expected a 'rungs' array");
  const Node rungs = top.at("rungs");
  rungs.require_array();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < rungs.j.size(); ++i) {
    const Node rn = rungs.at(i);
    rn.require_object();
    json merged = defaults;
    // A rung naming a production kernel takes none of the hand-written launch defaults.
    if (rn.j.contains("kernel"))
      for (const char* k : {"source", "entry", "args", "buffers", "grid", "block", "shared_bytes", "oracle"})
        merged.erase(k);
    merged.update(rn.j);
    lad.rungs.push_back(parse_rung(Node{merged, rn.path, file}, base_dir));
    if (!seen.insert(lad.rungs.back().name).second)
      rn.at("name").fail(fmt::format("expected a unique rung name; '{}' repeats", lad.rungs.back().name));
  }
  return lad;
}

Ladder load_ladder(const std::string& path) {
  std::string text;
  switch (read_whole_file(path, text)) {
    case FileRead::ok: break;
    case FileRead::folder: throw ManifestError(path, "/", "expected a readable file (it is a folder)");
    case FileRead::cannot_open:
      throw ManifestError(path, "/", "expected a readable file (it does not exist or cannot be opened)");
  }
  return parse_ladder(text, path, fs::path(path).parent_path().string());
}

}  // namespace ladder
