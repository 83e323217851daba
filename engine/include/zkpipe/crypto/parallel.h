// zkpipe/crypto/parallel.h: a small fork-join parallel_for for the CPU crypto kernels (NTT, MSM,
// fixed-base multiplication). Each call starts threads - 1 std::threads, the caller works too,
// and task indices are handed out by one atomic counter (no lock). Results are deterministic
// when every task writes only its own outputs, whatever the thread count. Not for nesting.
// Thread-safety: reentrant; concurrent calls from different threads are independent.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace zkpipe::crypto {

// 0 means "all hardware threads"; the result is at least 1.
inline unsigned resolve_threads(unsigned threads) {
  if (threads != 0) return threads;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Runs body(i) for every i in [0, n) on min(threads, n) threads (0 = hardware), the caller
// included, and returns when all are done. The first exception a task throws is rethrown here
// (the other tasks still run to completion).
template <typename Body>
void parallel_for(size_t n, unsigned threads, Body&& body) {
  if (n == 0) return;
  const size_t workers = std::min<size_t>(resolve_threads(threads), n);
  if (workers == 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;  // taken only when a task throws
  auto work = [&] {
    for (;;) {
      const size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t t = 0; t + 1 < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// Splits [0, n) into ceil(n / grain) contiguous ranges and runs body(begin, end) on each, in
// parallel as above. The split depends only on n and grain, never on the thread count.
template <typename Body>
void parallel_for_ranges(size_t n, size_t grain, unsigned threads, Body&& body) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const size_t tasks = (n + grain - 1) / grain;
  parallel_for(tasks, threads, [&](size_t t) {
    const size_t begin = t * grain;
    body(begin, std::min(n, begin + grain));
  });
}

}  // namespace zkpipe::crypto
