#include "harness/repro/writer.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/checks/evaluate.h"
#include "harness/checks/oracle_registry.h"
#include "harness/core/dtype.h"
#include "harness/core/result.h"
#include "harness/core/text.h"
#include "harness/device/buffers.h"
#include "harness/device/generators.h"
#include "harness/isolate/plan.h"
#include "harness/toolchain/nvrtc.h"

namespace ladder::repro {
namespace fs = std::filesystem;
namespace {

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
}

// A C string literal.
std::string c_literal(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

const char* role_name(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "kInput";
    case BufferRole::Output: return "kOutput";
    case BufferRole::InOut: return "kInOut";
    case BufferRole::Scratch: return "kScratch";
  }
  return "kScratch";
}

std::string arg_kind(const ConcreteArg& a) {
  if (a.is_buffer) return "kBuffer";
  switch (a.type) {
    case DType::I32: return "kI32";
    case DType::I64: return "kI64";
    case DType::U32: return "kU32";
    case DType::F32: return "kF32";
    case DType::F64: return "kF64";
    default: throw std::invalid_argument(fmt::format("a scalar argument of type {} has no reproducer form", label(a.type)));
  }
}

const char* source_kind(SourceKind k) {
  return k == SourceKind::Ptx ? "kPtx" : k == SourceKind::Cubin ? "kCubin" : "kCudaCpp";
}

std::string build_script() {
  return R"SH(#!/usr/bin/env bash
# Builds the reproducer against the CUDA toolkit's NVRTC and driver headers ($CUDA_HOME, default
# /usr/local/cuda). The driver itself is opened at run time, so the program also runs (its compile
# stage only) where there is none.
set -euo pipefail
cd "$(dirname "$0")"
cuda="${CUDA_HOME:-/usr/local/cuda}"
"${CXX:-g++}" -std=c++17 -O1 -o repro repro.cpp -I"$cuda/include" -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc -ldl
echo "built ./repro; run it from this folder: ./repro [sm_XX]"
)SH";
}

}  // namespace

std::vector<std::string> write_reproducer(const Rung& rung, const Case& c, const std::string& out_dir,
                                          const std::string& commit) {
  const fs::path out(out_dir);
  if (fs::exists(out) && !fs::is_empty(out))
    throw std::invalid_argument(fmt::format("{} exists and is not empty: give a new folder", out_dir));
  const auto plans = isolate::plan_case(rung, c);
  if (plans.empty()) throw std::invalid_argument("the case plans no launch");
  const KernelLaunch& first = plans.front();
  fs::create_directories(out / "src");
  fs::create_directories(out / "kernels");
  fs::create_directories(out / "data");
  std::vector<std::string> files;
  auto put = [&](const std::string& rel, const std::string& bytes) {
    write_file(out / rel, bytes);
    files.push_back(rel);
  };

  // Sources: a production kernel's folder whole (its headers include each other), a probe's
  // file alone.
  std::map<std::string, std::string> source_rel;
  std::set<fs::path> kernel_dirs;
  for (const auto& k : plans) {
    const fs::path src(k.source);
    if (source_rel.count(k.source)) continue;
    if (src.extension() == ".cuh") {
      kernel_dirs.insert(src.parent_path());
      source_rel[k.source] = "kernels/" + src.filename().string();
    } else {
      source_rel[k.source] = "src/" + src.filename().string();
      put(source_rel[k.source], read_file(src.string()));
    }
  }
  for (const auto& dir : kernel_dirs)
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".cuh" || e.path().extension() == ".h")
        put("kernels/" + e.path().filename().string(), read_file(e.path().string()));

  // Inputs: the bytes the harness's child generates for this case (same seed, same generators).
  const std::uint64_t case_seed = mix_seed(first.seed, shape_text(c));
  const auto inputs = generate_inputs(first.buffers, [&](const ConcreteBuffer&) { return case_seed; });
  for (const auto& [name, bytes] : inputs)
    put("data/" + name + ".bin", std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));

  // The fp64 reference of each output, rounded through its dtype as the checks compare it.
  std::string expected_rows;
  if (first.oracle != "none") {
    register_builtin_oracles();
    const OracleFn* oracle = find_oracle(first.oracle);
    if (!oracle) throw std::invalid_argument(fmt::format("unknown oracle '{}'", first.oracle));
    OracleInput in{first, {}};
    for (const auto& b : first.buffers)
      if (b.is_filled_input()) in.initial.emplace(b.name, HostTensor{b, logical_values(b, inputs.at(b.name))});
    for (const auto& [name, exp] : (*oracle)(in)) {
      const auto spec = std::find_if(first.buffers.begin(), first.buffers.end(),
                                     [&](const ConcreteBuffer& b) { return b.name == name; });
      if (spec == first.buffers.end()) continue;
      const auto ref = stored_reference(spec->dtype, exp.values);
      put("data/" + name + ".expected.f64",
          std::string(reinterpret_cast<const char*>(ref.data()), ref.size() * sizeof(double)));
      expected_rows += fmt::format("  {{{}, {}, {:.17g}, {:.17g}}},\n", c_literal(name),
                                   c_literal("data/" + name + ".expected.f64"), exp.tolerance.atol, exp.tolerance.rtol);
    }
  }

  std::string inc = fmt::format("// {} at {}: the launch plan of ladder (commit {}) as data.\n", rung.name,
                                shape_text(c), commit);
  inc += fmt::format("#define REPRO_RUNG {}\n#define REPRO_CASE {}\n", c_literal(rung.name), c_literal(shape_text(c)));
  inc += "static const BufferSpec kBuffers[] = {\n";
  for (const auto& b : first.buffers)
    inc += fmt::format("  {{{}, {}, {}, {}, {}, {}, {}, {}, {}}},\n", c_literal(b.name),
                       b.alias_of.empty() ? storage_bytes(b) : 0, role_name(b.role), c_literal(b.alias_of),
                       c_literal(inputs.count(b.name) ? "data/" + b.name + ".bin" : ""), c_literal(std::string(label(b.dtype))),
                       b.rows, b.cols, b.row_stride);
  inc += "};\n";
  // Each launch's NVRTC options as the toolchain passes them (include paths aside: repro.cpp adds
  // its own).
  std::vector<std::vector<std::string>> options;
  for (const auto& l : plans) {
    options.push_back(l.options);
    if (l.source_kind == SourceKind::CudaCpp && !toolchain::has_std_option(l.options))
      options.back().insert(options.back().begin(), "-std=c++17");
  }
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const auto& l = plans[k];
    inc += fmt::format("static const char* const kOptions{}[] = {{", k);
    for (const auto& o : options[k]) inc += c_literal(o) + ", ";
    inc += "nullptr};\n";
    inc += fmt::format("static const ArgSpec kArgs{}[] = {{\n", k);
    for (const auto& a : l.args)
      inc += fmt::format("  {{{}, {}, {:.17g}}},\n", arg_kind(a), a.is_buffer ? c_literal(a.buffer) : "nullptr", a.value);
    inc += "  {kI32, nullptr, 0}};\n";
  }
  inc += "static const LaunchSpec kLaunches[] = {\n";
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const auto& l = plans[k];
    inc += fmt::format("  {{{}, {}, {}, kOptions{}, {}, {{{}, {}, {}}}, {{{}, {}, {}}}, {}, kArgs{}, {}}},\n",
                       c_literal(source_rel.at(l.source)), source_kind(l.source_kind), c_literal(l.entry), k, options[k].size(),
                       l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared_bytes, k,
                       l.args.size());
  }
  inc += "};\n";
  inc += "static const ExpectedSpec kExpected[] = {\n" + expected_rows + "  {\"\", \"\", 0, 0}};\n";
  put("case.inc", inc);
  put("repro.cpp", host_program_source());
  put("build.sh", build_script());
  fs::permissions(out / "build.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  put("README.md",
      fmt::format("# Reproducer: {} at {}\n\n{}\n\nWritten by `ladder repro` (commit {}). The launch plan is the "
                  "one ladder makes for an H200-class device; `case.inc` holds it as data (buffers, each launch's "
                  "source, name expression, NVRTC options, grid, block, dynamic shared memory and arguments).\n\n"
                  "    ./build.sh && ./repro          # or ./repro sm_80 to compile for another arch\n\n"
                  "`repro` compiles every launch with NVRTC, then (where a CUDA driver is present) uploads "
                  "`data/*.bin`, prefills outputs with 0xFE, launches, synchronizes, writes `data/*.got.bin`, and "
                  "reports elements still holding the prefill and elements over the fp64 reference's bound "
                  "(`data/*.expected.f64`). Exit 0: every output written and within bounds; 1: a failure; 3: no "
                  "driver here (compile stage only).\n",
                  rung.name, shape_text(c), rung.adds, commit));
  return files;
}

}  // namespace ladder::repro
