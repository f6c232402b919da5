// One case of one rung made concrete: every expression evaluated, every name resolved.
// Both hand-written rungs and production kernels (harness/kernels/catalog) end up here.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/ladder/manifest.h"

namespace ladder {

struct ConcreteBuffer {
  std::string name;
  BufferRole role = BufferRole::Input;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;  // logical, row-major
  std::int64_t rows = 1;            // product of all but the last dim (1 for a vector)
  std::int64_t cols = 1;            // the last dim
  std::int64_t row_stride = 1;      // elements between rows in memory (>= cols)
  std::string init = "normal";
  std::string alias_of;             // non-empty: shares memory with that buffer
  std::int64_t logical_elements() const { return rows * cols; }
  // An input with memory of its own: the harness fills it (from `init`) before the launch and
  // checks it for clobbering after. An alias shares the memory of the buffer it names.
  bool is_filled_input() const {
    return (role == BufferRole::Input || role == BufferRole::InOut) && alias_of.empty();
  }
  std::int64_t storage_elements() const { return rows == 0 ? 0 : (rows - 1) * row_stride + cols; }
};

struct ConcreteArg {
  bool is_buffer = true;
  std::string buffer;
  DType type = DType::I32;
  double value = 0;  // scalar value; converted to `type` at launch
};

struct KernelLaunch {
  std::string source;                // path (CUDA C++, PTX or cubin)
  SourceKind source_kind = SourceKind::CudaCpp;
  std::string entry;                 // name expression
  std::vector<std::string> options;  // NVRTC options beyond the toolchain's own
  std::vector<ConcreteBuffer> buffers;
  std::vector<ConcreteArg> args;
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::uint32_t shared_bytes = 0;
  // Programmatic dependent launch (toolchain::launch): the kernel may start while the previous
  // launch of the plan drains, and waits (griddepcontrol.wait) before reading its results.
  bool programmatic = false;
  // Cooperative launch (toolchain::LaunchFlags): every block resident at once, for a kernel with
  // a grid-wide barrier (kernels/grid_reduce.cuh).
  bool cooperative = false;
  std::string oracle = "none";
  std::map<std::string, double> scalars;
  std::uint64_t seed = 0;
};

// Evaluates a rung for one case. Throws std::invalid_argument naming the rung, the field and the
// problem (unknown symbol, negative size, a grid over the device limit's type range, ...).
KernelLaunch resolve_launch(const Rung& rung, const Case& c);

}  // namespace ladder
