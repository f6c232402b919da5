#include "harness/bench/builtin_kernel.h"

#include <stdexcept>

namespace ladder::bench {

toolchain::Module load_builtin_kernel(const toolchain::Nvrtc& nvrtc, const std::string& arch, const char* file,
                                      const char* source, const std::string& what) {
  toolchain::CompileRequest req;
  req.source_path = file;
  req.source_text = source;
  req.arch = arch;
  const auto r = nvrtc.compile(req);
  if (!r.ok) throw std::runtime_error(what + ": " + r.error + "\n" + r.log);
  return toolchain::Module::load(r.image);
}

}  // namespace ladder::bench
