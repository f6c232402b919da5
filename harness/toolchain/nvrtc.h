// The NVRTC pipeline: source -> PTX or cubin, with a structured result (error, log, options).
// NVRTC is opened at run time (harness/toolchain/dynlib) so that `--nvrtc PATH` can pick another
// toolkit's library for comparisons.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ladder::toolchain {

struct NvrtcVersion { int major = 0, minor = 0; };

enum class ImageKind { Ptx, Cubin };

// The number of a GPU arch spelled as the compile below takes it, sm_NN or compute_NN with two or
// three digits and an optional a or f suffix ("90a" for sm_90a or compute_90a); nullopt for any
// other spelling. One rule for the compiler and for the command line's --arch.
std::optional<std::string> arch_number(const std::string& arch);

struct CompileRequest {
  std::string source_path;             // for messages and the header search path
  std::string source_text;             // the program
  std::string entry;                   // a name expression; empty when nothing is looked up
  std::vector<std::string> options;    // user options (arch and include paths are added)
  std::string arch = "sm_90";          // "sm_90", "sm_80", "compute_90" ...
  ImageKind want = ImageKind::Cubin;
};

struct CompileResult {
  bool ok = false;
  std::string error;                   // one line: what failed ("nvrtcCompileProgram: ...")
  std::string log;                     // NVRTC's log, possibly empty
  std::vector<std::string> options;    // every option actually passed, in order
  std::string lowered_name;            // the mangled entry, when an entry was requested
  std::string image;                   // PTX text or cubin bytes
  ImageKind kind = ImageKind::Cubin;
  bool cache_hit = false;
  double seconds = 0;
};

class Nvrtc {
 public:
  // Opens libnvrtc at `library_path` (empty: the build's toolkit). On failure, `available()` is
  // false and `load_error()` says why; compile() then returns that error.
  explicit Nvrtc(const std::string& library_path = "");
  ~Nvrtc();
  Nvrtc(Nvrtc&&) noexcept;
  Nvrtc& operator=(Nvrtc&&) noexcept;
  Nvrtc(const Nvrtc&) = delete;
  Nvrtc& operator=(const Nvrtc&) = delete;

  bool available() const;
  const std::string& load_error() const;
  // Throws std::runtime_error ("NVRTC unavailable: " and load_error()) where !available(): for
  // callers that cannot go on without a compiler, whose harness reports it as UNRESOLVED.
  void require_available() const;
  const std::string& library_path() const;
  NvrtcVersion version() const;
  std::vector<std::string> supported_archs() const;  // "sm_75", ... from nvrtcGetSupportedArchs

  // Compiles without the cache.
  CompileResult compile(const CompileRequest& req) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The include paths every compile gets: the toolkit's include/ and include/cccl, and kernels/.
std::vector<std::string> default_include_options();

// Whether the options name a language standard; without one, every compile adds -std=c++17.
bool has_std_option(const std::vector<std::string>& opts);

}  // namespace ladder::toolchain
