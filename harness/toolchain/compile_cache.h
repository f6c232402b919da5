// An on-disk compile cache. The key hashes the source with every header it includes (found by
// scanning #include "..." relative to the source and kernels/), the options, the arch, the
// wanted image kind and the NVRTC version, so a changed header or toolkit never hits.
#pragma once
#include <string>

#include "harness/toolchain/nvrtc.h"

namespace ladder::toolchain {

class CompileCache {
 public:
  // dir empty: $LADDER_CACHE_DIR, else $XDG_CACHE_HOME/ladder, else ~/.cache/ladder.
  explicit CompileCache(std::string dir = "");
  const std::string& dir() const { return dir_; }
  // Compiles through the cache; sets result.cache_hit. Writes are atomic (rename).
  CompileResult compile(const Nvrtc& nvrtc, const CompileRequest& req);
  std::string key(const Nvrtc& nvrtc, const CompileRequest& req) const;
  bool enabled = true;

 private:
  std::string dir_;
};

}  // namespace ladder::toolchain
