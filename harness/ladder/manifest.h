// Ladders and rungs as data. A manifest is JSON (probes/README.md gives the format); loading it
// either yields rungs or an error that names the file, the JSON path and what was expected.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/dtype.h"
#include "harness/core/verdict.h"

namespace ladder {

// A case binds shape symbols (rows, d, ...) to integers.
using Case = std::map<std::string, std::int64_t>;

// Scratch: workspace the kernel may write freely (redzones are still checked; contents are not).
enum class BufferRole { Input, Output, InOut, Scratch };
enum class SourceKind { CudaCpp, Ptx, Cubin };

struct BufferSpec {
  std::string name;
  BufferRole role = BufferRole::Input;
  DType dtype = DType::F32;
  std::vector<std::string> shape;  // expressions over case symbols and scalars; row-major
  std::string row_stride;          // optional expression (elements); empty means dense
  std::string init = "normal";     // generator: normal, uniform, ones, arange, constant:V
  std::string alias_of;            // non-empty: this name is another view of that buffer
};

struct ArgSpec {
  bool is_buffer = true;
  std::string buffer;   // when is_buffer: the buffer whose device pointer is passed
  DType type = DType::I32;
  std::string expr;     // when !is_buffer: an expression, evaluated per case
};

struct KernelRef {  // a production kernel from harness/kernels/catalog
  std::string op;
  DType dtype = DType::F32;
  std::map<std::string, std::string> variant;  // e.g. {"weight":"gemma"}, {"convention":"B"}
  // Input buffer name -> generator spec, replacing the planner's own (e.g. "constant:1e4", or
  // "fixture:FILE#CASE_ID/INPUT" to run the kernel on a fixture case's exact inputs).
  std::map<std::string, std::string> inits;
};

struct Rung {
  std::string name, adds;
  std::vector<std::string> features;
  std::string manifest_file;      // where it came from, for messages
  std::string source;             // resolved path
  SourceKind source_kind = SourceKind::CudaCpp;
  std::string entry;              // name expression, e.g. "p10_unrolled_tree<256>"
  std::vector<std::string> options;
  std::map<std::string, double> scalars;
  std::vector<BufferSpec> buffers;
  std::vector<ArgSpec> args;
  std::array<std::string, 3> grid{"1", "1", "1"}, block{"1", "1", "1"};
  std::string shared_bytes = "0";
  std::string oracle = "none";
  FailReason expect = FailReason::None;
  bool deterministic = false;
  double timeout_s = 0;           // 0: the run's --timeout
  std::uint64_t seed = 0;
  std::optional<KernelRef> kernel;
  std::vector<Case> cases;
};

struct Ladder {
  std::string name, description, file;
  std::vector<Rung> rungs;
};

// Thrown for a malformed manifest; what() reads "FILE: at /rungs/3/buffers/0/dtype: expected ...".
class ManifestError : public std::runtime_error {
 public:
  ManifestError(const std::string& file, const std::string& json_path, const std::string& expected);
  std::string file, json_path, expected;
};

Ladder load_ladder(const std::string& path);        // throws ManifestError
Ladder parse_ladder(const std::string& json_text, const std::string& file_for_messages,
                    const std::string& base_dir);   // throws ManifestError

}  // namespace ladder
