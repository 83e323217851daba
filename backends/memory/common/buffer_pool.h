// backends/memory/common/buffer_pool.h: the buffer pool every memory backend plugin shares:
// size classes, reuse, a byte cap (fail or FIFO wait), preallocation and statistics, over an
// abstract SystemAllocator that each backend implements (mmap, cudaHostAlloc, ...).
// Thread-safety: allocate, release and stats are thread-safe; the system allocator is called
// outside the pool's lock and must itself be thread-safe. create and the destructor run alone.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::memory {

// One allocation from the system. bytes is exactly what was asked of the allocator.
struct Block {
  void* host_ptr = nullptr;
  void* device_ptr = nullptr;
  uint64_t bytes = 0;
};

// Where the pool's memory comes from. Implementations must be thread-safe.
class SystemAllocator {
 public:
  virtual ~SystemAllocator() = default;
  // A fresh block of exactly `bytes` (a multiple of granularity()). Errors name the call.
  virtual Result<Block> allocate(uint64_t bytes) = 0;
  // Gives a block from allocate back to the system; reports its own failures (it cannot fail
  // the caller, who has no way to act on it).
  virtual void free(const Block& block) = 0;
  // ZKP_BUFFER_* flags of every block this allocator returns.
  virtual uint32_t flags() const = 0;
  // Sizes handed to allocate are rounded up to a multiple of this (a power of two).
  virtual uint64_t granularity() const { return 1; }
};

// Size classes: kSizeClassesPerOctave classes per power of two, each at least
// kMinSizeClassBytes; so a request wastes under 1/kSizeClassesPerOctave of its size.
// 4 per octave keeps waste <= 25% while keeping few classes, so cached blocks are often reused.
inline constexpr uint64_t kSizeClassesPerOctave = 4;
// 64 KiB: small enough for per-chunk scratch, large enough that a pool of a few GiB holds
// tens of thousands of blocks at most (and a multiple of every common page size).
inline constexpr uint64_t kMinSizeClassBytes = 64 * 1024;
// Requests above 2^62 bytes are refused before rounding, so the arithmetic cannot overflow.
inline constexpr uint64_t kMaxRequestBytes = uint64_t{1} << 62;

// The size class of a request of `bytes` (1 <= bytes <= kMaxRequestBytes).
uint64_t size_class(uint64_t bytes);

// Checks what every backend checks in create: struct_size, cap, on_cap, preallocation
// arrays; and huge_pages, which only backends with `huge_pages_supported` accept.
Status validate_options(const zkp_memory_options* options, bool huge_pages_supported);

class BufferPool {
 public:
  // Validated options (see validate_options); preallocates as they ask. Any preallocation
  // failure, or preallocation beyond the cap, is an error and nothing is left allocated.
  static Result<std::unique_ptr<BufferPool>> create(std::unique_ptr<SystemAllocator> allocator,
                                                    const zkp_memory_options& options);
  // Frees every block held, including buffers still handed out (they become invalid).
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A buffer of at least `bytes`, its bytes being the size class. RESOURCE_EXHAUSTED when the
  // class exceeds the cap or (fail mode) there is no room; DEADLINE_EXCEEDED when a wait for
  // room times out; the allocator's error when it fails. Every failure is counted in stats.
  Result<zkp_buffer> allocate(uint64_t bytes);
  // INVALID_ARGUMENT for a buffer this pool did not hand out or already took back.
  Status release(const zkp_buffer& buffer);
  zkp_memory_stats stats() const;

 private:
  struct Options {
    uint64_t cap_bytes = 0;
    bool wait = false;
    int64_t wait_timeout_ms = -1;
    bool reuse = true;
  };

  BufferPool(std::unique_ptr<SystemAllocator> allocator, const Options& options);

  // Under mutex_: true when `cls` can be served now by reuse or by room (after trimming).
  bool can_take_locked(uint64_t cls) const;
  // Under mutex_: takes a cached block (reuse) or reserves room for a fresh one, moving any
  // cached blocks to trim into `to_free`. Returns the cached block, or a null block.
  Block take_locked(uint64_t cls, std::vector<Block>& to_free, uint64_t& reserved);
  // Without mutex_: fresh allocation of `cls` bytes for a reservation of `reserved` bytes
  // (>= cls when blocks were trimmed for it): frees the trimmed blocks first, then allocates.
  Result<Block> fill_reservation(uint64_t cls, uint64_t reserved, std::vector<Block>& to_free);
  // Without mutex_: frees blocks through the allocator, timing it.
  void free_blocks(const std::vector<Block>& blocks);
  zkp_buffer hand_out_locked(const Block& block);
  std::string describe_locked(uint64_t bytes, uint64_t cls) const;
  void note_held_locked();

  std::unique_ptr<SystemAllocator> allocator_;
  const Options options_;
  const uint32_t flags_;

  mutable std::mutex mutex_;
  std::condition_variable room_;
  std::map<uint64_t, std::vector<Block>> cache_;  // size class -> blocks kept for reuse
  std::unordered_map<const void*, Block> live_;   // host_ptr -> block handed out
  std::deque<uint64_t> waiters_;                  // tickets of waiting requests, FIFO
  uint64_t next_ticket_ = 0;
  uint64_t cached_bytes_ = 0;
  uint64_t in_use_bytes_ = 0;
  // In use + cached + reserved for allocations in flight + being freed: what the system has
  // or may have given us. Never exceeds options_.cap_bytes.
  uint64_t held_bytes_ = 0;
  zkp_memory_stats stats_{};           // counters; the byte fields are filled by stats()
  std::atomic<uint64_t> alloc_ns_{0};  // time in the allocator, added to without mutex_
};

}  // namespace zkpipe::memory
