// zkpipe/store/store_clock.h: the store's test clock seam. A JobStore reads every time it keeps
// or compares (leases, back-off, retention, worker last-seen) from the database's clock; a
// StoreClock in StoreConfig::clock adds an offset to that clock, so a test moves the store's time
// forward with advance() instead of sleeping out a lease. Production configs leave it null (no
// offset, no extra statement); nothing in the YAML config sets it.
// Thread-safety: every member is thread-safe (one atomic).
#pragma once

#include <atomic>
#include <cstdint>

namespace zkpipe::store {

class StoreClock {
 public:
  // Moves the store's clock forward by `ms` (negative moves it back) for every later call.
  void advance(int64_t ms) { offset_ms_.fetch_add(ms, std::memory_order_relaxed); }
  // Milliseconds added to the database's clock.
  int64_t offset_ms() const { return offset_ms_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> offset_ms_{0};
};

}  // namespace zkpipe::store
