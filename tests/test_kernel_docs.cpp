// kernels/README.md is the ABI a caller outside the project launches by (CuPy's RawModule has no
// other): these checks hold it to what NVRTC compiles. Each entry the catalog launches is compiled
// once, and its lowered name, demangled, gives its template arguments and parameter types; the
// README must list the entry in its file table and in a heading with as many template parameters,
// and give an argument list of the same types: its own, or that of the entry whose name it
// extends (rmsnorm_fwd_loop takes rmsnorm_fwd's, as its section says).
#include <cxxabi.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/parallel.h"
#include "harness/core/text.h"
#include "harness/kernels/catalog.h"
#include "harness/toolchain/nvrtc.h"
#include "tests/catch.h"
#include "tests/plan_helpers.h"

using namespace ladder_test;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

// Splits at the commas outside any (), <> or [] nesting.
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

// The text inside the bracket that opens at `open` (s[open] is '(' or '<'), or npos-free empty.
std::string bracketed(const std::string& s, std::size_t open) {
  const char o = s[open], c = o == '(' ? ')' : '>';
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return s.substr(open + 1, i - open - 1);
  }
  return {};
}

// One compiled entry, as its demangled lowered name gives it.
struct CompiledEntry {
  std::string name;                     // "rmsnorm_fwd"
  std::string expression;               // the name expression compiled
  std::string source;                   // its file name in kernels/
  std::vector<std::string> template_args;
  std::vector<std::string> param_types; // "float const*", "int", ...
};

// "void ladder::rmsnorm_fwd<float, 4>(float*, float const*, ...)" -> the entry's parts.
CompiledEntry parse_demangled(const std::string& demangled) {
  CompiledEntry e;
  const std::string prefix = "ladder::";
  const auto at = demangled.find(prefix);
  REQUIRE(at != std::string::npos);
  const auto lt = demangled.find('<', at);
  REQUIRE(lt != std::string::npos);
  e.name = demangled.substr(at + prefix.size(), lt - at - prefix.size());
  const std::string targs = bracketed(demangled, lt);
  e.template_args = split_top_level(targs);
  const auto paren = demangled.find('(', lt + targs.size() + 2);
  REQUIRE(paren != std::string::npos);
  e.param_types = split_top_level(bracketed(demangled, paren));
  return e;
}

// A declaration's type as the demangler writes it: "const T* x" with T = __half -> "__half const*".
std::string demangled_type(const std::string& declaration, const std::string& t) {
  static const std::regex name_at_end(R"(^(.*[^\w])\s*\w+$)");
  std::smatch m;
  std::string type = std::regex_match(declaration, m, name_at_end) ? trim(m[1].str()) : declaration;
  type = std::regex_replace(type, std::regex(R"(\bT\b)"), t);
  type = std::regex_replace(type, std::regex(R"(\bunsigned\b(?!\s+(int|long|char|short)))"), "unsigned int");
  type = std::regex_replace(type, std::regex(R"(^const\s+([\w ]+?)\s*\*$)"), "$1 const*");
  type = std::regex_replace(type, std::regex(R"(\s*\*)"), "*");
  return trim(type);
}

// What kernels/README.md says of the entries.
struct ReadmeAbi {
  std::map<std::string, std::string> file_table;              // file -> its row's entry cell
  std::map<std::string, std::vector<std::string>> headings;   // entry -> template parameters
  std::map<std::string, std::vector<std::string>> arguments;  // entry -> parameter declarations
  std::vector<std::string> problems;                          // what could not be read
};

ReadmeAbi read_readme(const std::string& path) {
  ReadmeAbi abi;
  std::istringstream in(ladder::read_file(path));
  std::string line;
  bool in_fence = false, before_sections = true;
  std::string fence_text;
  std::vector<std::string> section_entries;  // the entries of the last heading
  static const std::regex heading_entry(R"(`ladder::(\w+)<([^>`]*)>`)");
  static const std::regex named_signature(R"(^(\w+)<[^>(]*>\()");
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      if (in_fence) {
        const std::string text = trim(fence_text);
        std::smatch m;
        if (!text.empty() && text[0] == '(') {
          if (section_entries.size() != 1)
            abi.problems.push_back("line " + std::to_string(number) + ": an unnamed argument list under a heading of " +
                                   std::to_string(section_entries.size()) + " entries");
          else
            abi.arguments[section_entries[0]] = split_top_level(bracketed(text, 0));
        } else {
          // Named lists, one after another: "column_sum<T>(...)", then any lines of prose.
          std::string rest = text;
          while (std::regex_search(rest, m, named_signature)) {
            const std::string args = bracketed(rest, m[0].length() - 1);
            abi.arguments[m[1].str()] = split_top_level(args);
            rest = trim(rest.substr(m[0].length() + args.size() + 1));
          }
        }
        fence_text.clear();
      }
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) {
      fence_text += line + "\n";
      continue;
    }
    if (line.rfind("## ", 0) == 0) before_sections = false;
    if (before_sections && line.rfind("| `", 0) == 0) {
      const auto cells_end = line.find(" | ", 2);
      const std::string files = line.substr(2, cells_end - 2);
      static const std::regex file(R"(`([\w.]+\.cuh)`)");
      for (auto it = std::sregex_iterator(files.begin(), files.end(), file); it != std::sregex_iterator(); ++it)
        abi.file_table[(*it)[1].str()] = line.substr(cells_end + 3);
    }
    if (line.rfind("#", 0) == 0) {
      section_entries.clear();
      std::vector<std::string> previous;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), heading_entry); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1].str(), params = (*it)[2].str();
        std::vector<std::string> list = params == "..." ? previous : split_top_level(params);
        abi.headings[name] = list;
        previous = list;
        section_entries.push_back(name);
      }
    }
  }
  return abi;
}

}  // namespace

TEST_CASE("kernels/README.md lists every entry with the template parameters and argument types NVRTC compiles",
          "[kernels][nvrtc][docs]") {
  ladder::register_builtin_oracles();
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  // One name expression a template: the first of each in the catalog's order.
  std::map<std::string, std::pair<std::string, std::string>> by_template;
  for (const auto& [source, entry] : catalog_entries())
    by_template.emplace(entry.substr(0, entry.find('<')), std::pair{source, entry});
  std::vector<std::pair<std::string, std::string>> jobs;
  for (const auto& [name, job] : by_template) jobs.push_back(job);

  std::map<std::string, std::string> texts;
  for (const auto& [source, entry] : jobs)
    if (!texts.count(source)) texts[source] = ladder::read_file(source, "kernel source");
  std::vector<CompiledEntry> compiled(jobs.size());
  std::vector<std::string> failed(jobs.size());
  ladder::parallel_each(jobs.size(), 8, [&](std::size_t i) {
    ladder::toolchain::CompileRequest req;
    req.source_path = jobs[i].first;
    req.source_text = texts.at(jobs[i].first);
    req.entry = jobs[i].second;
    req.arch = "compute_90";
    req.want = ladder::toolchain::ImageKind::Ptx;
    const auto r = nvrtc.compile(req);
    int status = 0;
    char* demangled = r.ok ? abi::__cxa_demangle(r.lowered_name.c_str(), nullptr, nullptr, &status) : nullptr;
    if (demangled == nullptr) {
      failed[i] = jobs[i].second + ": " + (r.ok ? "lowered name " + r.lowered_name + " does not demangle"
                                               : r.error + "\n" + r.log);
      return;
    }
    compiled[i].expression = jobs[i].second;
    compiled[i].source = std::filesystem::path(jobs[i].first).filename().string();
    const std::string text = demangled;
    std::free(demangled);
    const CompiledEntry parsed = parse_demangled(text);
    compiled[i].name = parsed.name;
    compiled[i].template_args = parsed.template_args;
    compiled[i].param_types = parsed.param_types;
  });
  std::vector<std::string> failures;
  for (const auto& f : failed)
    if (!f.empty()) failures.push_back(f);
  for (const auto& f : failures) FAIL_CHECK(f);
  REQUIRE(failures.empty());

  const std::string readme_path = ladder::kernels::kernels_dir() + "/README.md";
  const ReadmeAbi abi = read_readme(readme_path);
  for (const auto& p : abi.problems) FAIL_CHECK(readme_path << ": " << p);

  // Every header in kernels/ has a row in the file table.
  for (const auto& f : std::filesystem::directory_iterator(ladder::kernels::kernels_dir()))
    if (f.path().extension() == ".cuh") {
      INFO(readme_path << ": the file table has no row for " << f.path().filename().string());
      CHECK(abi.file_table.count(f.path().filename().string()) == 1);
    }

  for (const CompiledEntry& e : compiled) {
    INFO(readme_path << ", entry ladder::" << e.name << " (compiled as " << e.expression << " from " << e.source << ")");
    // The file table's row for the entry's source names it.
    const auto row = abi.file_table.find(e.source);
    CHECK(row != abi.file_table.end());
    if (row != abi.file_table.end()) CHECK(row->second.find("ladder::" + e.name + "<") != std::string::npos);

    // A heading names it with as many template parameters as it has.
    const auto heading = abi.headings.find(e.name);
    CHECK(heading != abi.headings.end());
    if (heading != abi.headings.end()) {
      INFO("heading's template parameters: " << heading->second.size() << ", compiled: " << e.template_args.size());
      CHECK(heading->second.size() == e.template_args.size());
    }

    // Its argument list: its own, or that of the longest documented entry whose name it extends.
    std::string documented;
    for (const auto& [name, args] : abi.arguments)
      if ((e.name == name || e.name.rfind(name + "_", 0) == 0) && name.size() > documented.size()) documented = name;
    CHECK(!documented.empty());
    if (documented.empty()) continue;
    std::vector<std::string> want;
    for (const auto& decl : abi.arguments.at(documented)) want.push_back(demangled_type(decl, e.template_args.at(0)));
    std::string want_text, got_text;
    for (const auto& s : want) want_text += s + ", ";
    for (const auto& s : e.param_types) got_text += s + ", ";
    INFO("argument list documented under " << documented << ": (" << want_text << ")\ncompiled: (" << got_text << ")");
    CHECK(want == e.param_types);
  }
}

namespace {

// A kernel call of a CuPy example: the entry and source in force, and its argument tuple.
struct ExampleCall {
  std::string source, entry;
  std::vector<std::string> args;
  int line = 0;
};

// The calls `kernel(grid, block, (args...))` of the README's python blocks, each with the last
// `open("kernels/FILE")` and `name = "ENTRY"` above it (an open in a comment counts: the
// example says to compile that file as above).
std::vector<ExampleCall> readme_example_calls(const std::string& path) {
  std::vector<ExampleCall> calls;
  std::istringstream in(ladder::read_file(path));
  std::string line, source, entry, pending;
  bool in_python = false;
  int number = 0, call_line = 0;
  static const std::regex opened(R"re(open\("kernels/([\w.]+)"\))re");
  static const std::regex named(R"re(^name\s*=\s*"([^"]+)")re");
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      in_python = line == "```python";
      continue;
    }
    if (!in_python) continue;
    std::smatch m;
    if (std::regex_search(line, m, opened)) source = m[1].str();
    if (std::regex_search(line, m, named)) entry = m[1].str();
    // Indented calls count too (a launch inside `with cp.cuda.ExternalStream(...)`).
    const std::string code = trim(line.substr(0, line.find('#')));
    if (pending.empty() && code.rfind("kernel(", 0) != 0) continue;
    if (pending.empty()) call_line = number;
    pending += code + " ";
    const std::string inside = bracketed(pending, pending.find('('));
    if (inside.empty()) continue;  // the call goes on
    const auto parts = split_top_level(inside);
    ExampleCall call{source, entry, {}, call_line};
    if (parts.size() >= 3 && parts[2].size() >= 2 && parts[2].front() == '(')
      call.args = split_top_level(bracketed(parts[2], 0));
    calls.push_back(call);
    pending.clear();
  }
  return calls;
}

// The kind of a CuPy argument: "int" (cp.int32), "float" (cp.float32) or "pointer" (an array).
std::string example_arg_kind(const std::string& arg) {
  if (arg.rfind("cp.int32(", 0) == 0) return "int";
  if (arg.rfind("cp.float32(", 0) == 0) return "float";
  return "pointer";
}

std::string param_kind(const std::string& type) {
  if (type.find('*') != std::string::npos) return "pointer";
  return type;
}

}  // namespace

TEST_CASE("the CuPy examples in kernels/README.md launch entries that compile, with arguments of their types",
          "[kernels][nvrtc][docs]") {
  ladder::toolchain::Nvrtc nvrtc;
  if (!nvrtc.available()) {
    WARN("NVRTC not available: " << nvrtc.load_error());
    return;
  }
  const std::string readme_path = ladder::kernels::kernels_dir() + "/README.md";
  const auto calls = readme_example_calls(readme_path);
  CHECK(calls.size() >= 10);
  for (const ExampleCall& call : calls) {
    INFO(readme_path << ":" << call.line << ": " << call.entry << " from kernels/" << call.source);
    REQUIRE(!call.source.empty());
    REQUIRE(!call.entry.empty());
    REQUIRE(!call.args.empty());
    ladder::toolchain::CompileRequest req;
    req.source_path = ladder::kernels::kernels_dir() + "/" + call.source;
    req.source_text = ladder::read_file(req.source_path);
    req.entry = call.entry;
    req.arch = "compute_90";
    req.want = ladder::toolchain::ImageKind::Ptx;
    const auto r = nvrtc.compile(req);
    INFO(r.error << "\n" << r.log);
    REQUIRE(r.ok);
    int status = 0;
    char* demangled = abi::__cxa_demangle(r.lowered_name.c_str(), nullptr, nullptr, &status);
    REQUIRE(demangled != nullptr);
    const CompiledEntry compiled = parse_demangled(demangled);
    std::free(demangled);
    std::vector<std::string> want, got;
    for (const auto& t : compiled.param_types) want.push_back(param_kind(t));
    for (const auto& a : call.args) got.push_back(example_arg_kind(a));
    CHECK(got == want);
  }
}

namespace {

// kernels/README.md's "Harness variants" table: op -> the keys its row names (`bulk_*` and
// `phase_*` stand for every key with that prefix).
std::map<std::string, std::set<std::string>> readme_variant_keys(const std::string& path) {
  const std::string text = ladder::read_file(path);
  const auto start = text.find("## Harness variants");
  const auto end = text.find("\n## ", start + 1);
  std::map<std::string, std::set<std::string>> out;
  std::istringstream in(text.substr(start, end - start));
  std::string line;
  static const std::regex row(R"(^\| `(\w+)` \| (.*) \|$)");
  static const std::regex key(R"(`([a-z_]+\*?)(?:=[^`]*)?`)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, row)) {
      const std::string cells = m[2].str();
      for (auto it = std::sregex_iterator(cells.begin(), cells.end(), key); it != std::sregex_iterator(); ++it)
        out[m[1].str()].insert((*it)[1].str());
    }
  return out;
}

// Whether op's planner reads `key`: a value no key takes gives any error but "unknown variant key".
bool planner_reads(const std::string& op, const std::string& key) {
  try {
    ladder::kernels::plan({op, ladder::DType::BF16, {{key, "\x01"}}}, {{"rows", 64}, {"d", 4096}}, kEps);
  } catch (const std::exception& e) {
    return std::string(e.what()).find("unknown variant key") == std::string::npos;
  }
  return true;
}

bool documented(const std::set<std::string>& keys, const std::string& key) {
  if (keys.count(key)) return true;
  for (const auto& k : keys)
    if (!k.empty() && k.back() == '*' && key.rfind(k.substr(0, k.size() - 1), 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("kernels/README.md's variant table names the keys each op's planner reads, and only those", "[kernels][docs]") {
  ladder::register_builtin_oracles();
  const std::string readme_path = ladder::kernels::kernels_dir() + "/README.md";
  const auto table = readme_variant_keys(readme_path);
  CHECK(table.size() >= 6);
  // Keys a planner reads only to refuse them for its op (every value but auto is an error there).
  const std::set<std::pair<std::string, std::string>> refused{
      {"rmsnorm", "loop_passes"}, {"add_rmsnorm", "loop_passes"}, {"add_rmsnorm", "loop_hold"}};
  // The candidates: every key a row names, and every key the planners' sources ask a reader for
  // (a new key that no row names yet is among these).
  std::set<std::string> every_key;
  for (const auto& [op, keys] : table)
    for (const auto& k : keys)
      if (k.back() != '*') every_key.insert(k);
  static const std::regex asked(R"re(get\("([a-z_0-9]+)")re");
  for (const auto& f : std::filesystem::directory_iterator(std::string(LADDER_SOURCE_DIR) + "/harness/kernels")) {
    const std::string text = ladder::read_file(f.path().string());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), asked); it != std::sregex_iterator(); ++it)
      every_key.insert((*it)[1].str());
  }
  CHECK(every_key.count("loop_hold") == 1);
  for (const auto& op : ladder::kernels::ops()) {
    INFO(readme_path << ", op " << op);
    const auto row = table.find(op);
    CHECK(row != table.end());
    if (row == table.end()) continue;
    for (const auto& key : row->second) {
      if (key.back() == '*' || key == "rows") continue;  // a prefix; column_sum's case symbol
      INFO("the table names " << key << ", which the planner does not read");
      CHECK(planner_reads(op, key));
    }
    for (const auto& key : every_key) {
      if (!planner_reads(op, key) || documented(row->second, key)) continue;
      INFO("the planner reads " << key << ", which the op's row does not name");
      CHECK(refused.count({op, key}) == 1);
    }
  }
}
