// Child mode: one rung's cases, stage by stage, in this process. The parent starts the same
// binary as `ladder __child`, writes the rung as JSON to its stdin and reads JSON lines from
// file descriptor 3:
//   {"type":"toolchain", ...}   NVRTC and device facts, once
//   {"type":"compile", ...}     one per distinct image: ok, error, log, options, cache_hit, ms
//   {"type":"begin","index":K}  before case K, so a crash can be pinned on it
//   {"type":"case", ...}        a CaseResult
//   {"type":"stopped","next":K} a sticky CUDA error: cases from K on need a fresh process
//   {"type":"done"}
#pragma once
#include <string>

namespace ladder::isolate {

struct ChildOptions {
  std::string arch;         // empty: the device's, or sm_90 without one
  std::string nvrtc_path;   // empty: the build's toolkit
  std::string cache_dir;    // empty: the default cache
  bool compile_only = false;
  bool no_cache = false;
  bool bare_allocations = false;  // buffers without redzones (device/buffers.h)
  std::size_t first_case = 0;
  int result_fd = 3;
};

// Reads the rung from stdin and runs it; returns the process exit code (0 unless the harness
// itself broke, in which case an "unresolved" line has been sent when possible).
int child_main(const ChildOptions& opts);

// Test children for the classification self-test: "segv", "hang", "exit3", "garbage", "abort",
// "ok", and for the timeout clock (spawn.h's ChildLimits) "ready-then-hang", "slow-ready" and
// "slow-cases".
int selftest_child_main(const std::string& mode, int result_fd);

}  // namespace ladder::isolate
