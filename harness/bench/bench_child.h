// Bench child mode (`ladder __bench-child`): one context, the copy ceiling, then each case timed
// with CUDA events, hot (back-to-back launches) and cold (L2 flushed before every launch, timed
// twice: with the flush's dirty lines left in L2, and with them read out; l2_flush.h).
// Reads {"cases": [...], "iters": N} on stdin; writes JSON lines on fd 3.
#pragma once
#include <string>

namespace ladder::bench {

struct BenchChildOptions {
  std::string arch, nvrtc_path, cache_dir;
  int result_fd = 3;
};

int bench_child_main(const BenchChildOptions& opts);

}  // namespace ladder::bench
