// Work split over a few threads. parallel_for: [0, n) in contiguous chunks, for host-side work in
// a child (input generation, readback checks) that scales with the buffers; results never depend
// on the thread count because each chunk's work is fixed by its index. parallel_each: one index
// at a time, each thread taking the next when it finishes one, for items whose cost varies widely
// (NVRTC compiles of different builds), where fixed chunks would leave threads idle.
#pragma once
#include <algorithm>
#include <atomic>
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

// fn(i) for every i in [0, n), on at most max_threads threads (0: as many as the machine has).
// fn must not throw: it runs on worker threads.
inline void parallel_each(std::size_t n, unsigned max_threads, const std::function<void(std::size_t)>& fn) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(max_threads > 0 ? std::min(max_threads, hw) : hw, n);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) fn(i);
  };
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
}

}  // namespace ladder
