// Splits [0, n) into contiguous chunks run on a few threads. Host-side work in a child (input
// generation, readback checks) scales with the buffers, and the GPU machine has cores to spare;
// results never depend on the thread count because each chunk's work is fixed by its index.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace ladder {

inline void parallel_for(std::size_t n, std::size_t min_chunk, const std::function<void(std::size_t, std::size_t)>& fn) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>({hw, 16, std::max<std::size_t>(1, n / std::max<std::size_t>(min_chunk, 1))});
  if (threads <= 1) {
    if (n) fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t step = (n + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = t * step, end = std::min(n, begin + step);
    if (begin < end) pool.emplace_back(fn, begin, end);
  }
  for (auto& th : pool) th.join();
}

}  // namespace ladder
