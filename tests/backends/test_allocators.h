// tests/backends/test_allocators.h: SystemAllocators for the BufferPool tests: malloc-backed
// with counters that outlive the pool (real bytes live, the most ever live), with injected
// failures of chosen allocations, and with a gate that holds allocate() until opened.
// Thread-safety: every allocator and its counters are thread-safe.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "common/buffer_pool.h"

namespace zkpipe::memory::testing {

struct AllocatorCounters {
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> frees{0};
  std::atomic<uint64_t> live_bytes{0};
  std::atomic<uint64_t> max_live_bytes{0};  // real memory never above the cap
};

class MallocAllocator : public SystemAllocator {
 public:
  explicit MallocAllocator(std::shared_ptr<AllocatorCounters> counters, uint32_t flags = 0)
      : counters_(std::move(counters)), flags_(flags) {}

  Result<Block> allocate(uint64_t bytes) override {
    void* p = std::aligned_alloc(4096, bytes);
    if (p == nullptr) return resource_exhausted("aligned_alloc of " + std::to_string(bytes));
    ++counters_->allocations;
    const uint64_t live = counters_->live_bytes += bytes;
    uint64_t seen = counters_->max_live_bytes.load();
    while (live > seen && !counters_->max_live_bytes.compare_exchange_weak(seen, live)) {
    }
    // A mapped test allocator fakes a device pointer: any non-null value distinct per block.
    void* device = (flags_ & ZKP_BUFFER_DEVICE_MAPPED) ? static_cast<char*>(p) + 1 : nullptr;
    return Block{p, device, bytes};
  }

  void free(const Block& block) override {
    ++counters_->frees;
    counters_->live_bytes -= block.bytes;
    std::free(block.host_ptr);
  }

  uint32_t flags() const override { return flags_; }

 private:
  std::shared_ptr<AllocatorCounters> counters_;
  uint32_t flags_;
};

// Fails the allocations whose 1-based numbers are in `fail_on`; the rest go to malloc.
class FaultyAllocator : public MallocAllocator {
 public:
  FaultyAllocator(std::shared_ptr<AllocatorCounters> counters, std::set<uint64_t> fail_on)
      : MallocAllocator(std::move(counters)), fail_on_(std::move(fail_on)) {}

  Result<Block> allocate(uint64_t bytes) override {
    const uint64_t n = ++calls_;
    if (fail_on_.count(n) != 0) {
      return resource_exhausted("injected fault: allocation #" + std::to_string(n));
    }
    return MallocAllocator::allocate(bytes);
  }

 private:
  const std::set<uint64_t> fail_on_;
  std::atomic<uint64_t> calls_{0};
};

// allocate() waits until the gate is open (at most 10 s, so a broken pool fails the test
// rather than hanging the run), then fails as FaultyAllocator or allocates.
class GateAllocator : public FaultyAllocator {
 public:
  struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    bool open = false;
    int inside = 0;  // allocate calls waiting at the gate
  };

  GateAllocator(std::shared_ptr<AllocatorCounters> counters, std::shared_ptr<Gate> gate,
                std::set<uint64_t> fail_on = {})
      : FaultyAllocator(std::move(counters), std::move(fail_on)), gate_(std::move(gate)) {}

  Result<Block> allocate(uint64_t bytes) override {
    {
      std::unique_lock lock(gate_->mutex);
      ++gate_->inside;
      gate_->changed.notify_all();
      gate_->changed.wait_for(lock, std::chrono::seconds(10), [&] { return gate_->open; });
      --gate_->inside;
    }
    return FaultyAllocator::allocate(bytes);
  }

 private:
  std::shared_ptr<Gate> gate_;
};

inline zkp_memory_options make_options(uint64_t cap_bytes, uint32_t on_cap,
                                       int64_t wait_timeout_ms = -1, bool reuse = true) {
  zkp_memory_options o{};
  o.struct_size = sizeof(o);
  o.cap_bytes = cap_bytes;
  o.on_cap = on_cap;
  o.wait_timeout_ms = wait_timeout_ms;
  o.reuse = reuse ? 1 : 0;
  return o;
}

// Polls `done` every millisecond for up to 10 s; true once it holds.
template <typename F>
bool eventually(F&& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace zkpipe::memory::testing
