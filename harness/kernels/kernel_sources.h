// Which kernel sources a run used. One binary compiles whatever tree kernels_dir() names (the
// checkout's kernels/, or $LADDER_KERNELS_DIR), so a document's commit alone does not say what was
// timed or verified: an A/B runs one binary over two trees. Bench and verify documents record
// this next to the commit.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace ladder::kernels {

struct KernelSources {
  std::string dir;       // the folder compiled from
  bool from_env = false; // named by $LADDER_KERNELS_DIR rather than the build's checkout
  std::string digest;    // sources_digest(dir); empty where it failed
  std::string error;     // why the digest failed (the run goes on: its compiles report the folder)
};

// A digest of the folder's kernel sources: every regular .cuh and .h file directly in it, in
// name order, by name and content (harness/core/hasher.h). Other files (README.md) do not count.
// Throws, naming the folder when it cannot be listed or the file that cannot be read.
std::string sources_digest(const std::string& dir);

// kernels_dir() and its digest; never throws (a failed digest is recorded in `error`).
KernelSources kernel_sources();

// {"dir", "from_env", "digest"}, and "error" where the digest failed.
nlohmann::json to_json(const KernelSources& s);

}  // namespace ladder::kernels
