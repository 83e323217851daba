// backends/memory/common/buffer_pool.cpp: the shared buffer pool (see buffer_pool.h).
// Room is reserved under mutex_, the system allocator runs unlocked, and every change that
// can make room (release, rollback, finished free, a waiter leaving) notifies room_.
// Waiters are served strictly in ticket order so a large request is not starved by small ones.
// Thread-safety: as buffer_pool.h.
#include "common/buffer_pool.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "zkpipe/sdk/abi/size_class.h"

namespace zkpipe::memory {
namespace {

using Clock = std::chrono::steady_clock;

static_assert(
    kSizeClassesPerOctave == 4 && kMinSizeClassBytes == ZKP_MIN_SIZE_CLASS_BYTES,
    "the classes are those of zkpipe/sdk/abi/size_class.h, which the engine's budget uses");
static_assert(std::has_single_bit(kSizeClassesPerOctave), "classes per octave: a power of two");
static_assert(std::has_single_bit(kMinSizeClassBytes), "minimum class: a power of two");

// Timed waits longer than this are waits without end: a deadline further out would overflow
// steady_clock's nanosecond count (about 292 years), and no caller means 30 days literally.
constexpr int64_t kLongestTimedWaitMs = int64_t{30} * 24 * 3600 * 1000;

uint64_t round_up(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

uint64_t elapsed_ns(Clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

// "1048576 bytes (1.00 MiB)"; small sizes plainly.
std::string size_text(uint64_t bytes) {
  char text[64];
  if (bytes < 1024) {
    std::snprintf(text, sizeof text, "%" PRIu64 " bytes", bytes);
    return text;
  }
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  std::snprintf(text, sizeof text, "%" PRIu64 " bytes (%.2f %s)", bytes, value, kUnits[unit]);
  return text;
}

std::string pointer_text(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

}  // namespace

uint64_t size_class(uint64_t bytes) {
  return zkp_size_class(bytes, 1);
}

Status validate_options(const zkp_memory_options* options, bool huge_pages_supported) {
  if (options == nullptr) return invalid_argument("memory options are null");
  if (options->struct_size < sizeof(zkp_memory_options)) {
    return invalid_argument("memory options struct_size is " +
                            std::to_string(options->struct_size) + ", smaller than the " +
                            std::to_string(sizeof(zkp_memory_options)) + " bytes of ABI 1.0");
  }
  if (options->cap_bytes == 0) return invalid_argument("cap_bytes must be greater than 0");
  if (options->on_cap != ZKP_ON_CAP_WAIT && options->on_cap != ZKP_ON_CAP_FAIL) {
    return invalid_argument("on_cap is " + std::to_string(options->on_cap) +
                            "; expected 0 (wait) or 1 (fail)");
  }
  if (options->huge_pages != 0 && !huge_pages_supported) {
    return invalid_argument("huge_pages is supported only by the pageable backend");
  }
  if (options->prealloc_entries > 0 &&
      (options->prealloc_bytes == nullptr || options->prealloc_count == nullptr)) {
    return invalid_argument("prealloc_entries is " + std::to_string(options->prealloc_entries) +
                            " but prealloc_bytes or prealloc_count is null");
  }
  for (uint32_t i = 0; i < options->prealloc_entries; ++i) {
    const uint64_t bytes = options->prealloc_bytes[i];
    if (bytes == 0 || bytes > kMaxRequestBytes) {
      return invalid_argument("prealloc_bytes[" + std::to_string(i) + "] is " +
                              std::to_string(bytes) + "; expected 1 to " +
                              std::to_string(kMaxRequestBytes));
    }
  }
  return ok_status();
}

Result<std::unique_ptr<BufferPool>> BufferPool::create(std::unique_ptr<SystemAllocator> allocator,
                                                       const zkp_memory_options& options) {
  ZKP_RETURN_IF_ERROR(validate_options(&options, /*huge_pages_supported=*/true));
  if (allocator == nullptr) return invalid_argument("buffer pool created without an allocator");
  const uint64_t granularity = allocator->granularity();
  if (!std::has_single_bit(granularity)) {
    return internal_error("allocator granularity " + std::to_string(granularity) +
                          " is not a power of two");
  }
  Options pool_options;
  pool_options.cap_bytes = options.cap_bytes;
  pool_options.wait = options.on_cap == ZKP_ON_CAP_WAIT;
  pool_options.wait_timeout_ms =
      options.wait_timeout_ms > kLongestTimedWaitMs ? -1 : options.wait_timeout_ms;
  pool_options.reuse = options.reuse != 0;

  // Check the whole preallocation against the cap before allocating any of it.
  uint64_t total = 0;
  for (uint32_t i = 0; i < options.prealloc_entries; ++i) {
    const uint64_t cls = round_up(size_class(options.prealloc_bytes[i]), granularity);
    const uint64_t count = options.prealloc_count[i];
    if (count != 0 && (cls > options.cap_bytes || count > (options.cap_bytes - total) / cls)) {
      return resource_exhausted("preallocation entry " + std::to_string(i) + ", " +
                                std::to_string(count) + " x " + size_text(cls) +
                                ", does not fit in the cap of " + size_text(options.cap_bytes) +
                                " after " + size_text(total) + " of earlier entries");
    }
    total += count * cls;
  }

  std::unique_ptr<BufferPool> pool(new BufferPool(std::move(allocator), pool_options));
  for (uint32_t i = 0; i < options.prealloc_entries; ++i) {
    const uint64_t cls = round_up(size_class(options.prealloc_bytes[i]), granularity);
    for (uint32_t n = 0; n < options.prealloc_count[i]; ++n) {
      const auto start = Clock::now();
      Result<Block> block = pool->allocator_->allocate(cls);
      pool->alloc_ns_ += elapsed_ns(start);
      if (!block.ok()) {
        // The pool's destructor frees the blocks preallocated so far.
        return block.status().with_context("preallocating buffer " + std::to_string(n + 1) +
                                           " of " + std::to_string(options.prealloc_count[i]) +
                                           " of " + size_text(cls));
      }
      block->bytes = cls;
      pool->cache_[cls].push_back(*block);
      pool->cached_bytes_ += cls;
      pool->held_bytes_ += cls;
      ++pool->stats_.allocations;
      pool->note_held_locked();
    }
  }
  return pool;
}

BufferPool::BufferPool(std::unique_ptr<SystemAllocator> allocator, const Options& options)
    : allocator_(std::move(allocator)), options_(options), flags_(allocator_->flags()) {}

BufferPool::~BufferPool() {
  std::vector<Block> blocks;
  for (const auto& [cls, cached] : cache_) {
    blocks.insert(blocks.end(), cached.begin(), cached.end());
  }
  for (const auto& [ptr, block] : live_) blocks.push_back(block);
  free_blocks(blocks);
}

Result<zkp_buffer> BufferPool::allocate(uint64_t bytes) {
  std::unique_lock lock(mutex_);
  if (bytes == 0 || bytes > kMaxRequestBytes) {
    ++stats_.failures;
    if (bytes == 0) return invalid_argument("cannot allocate a buffer of 0 bytes");
    return resource_exhausted("request of " + size_text(bytes) + " exceeds the largest size " +
                              size_text(kMaxRequestBytes));
  }
  const uint64_t cls = round_up(size_class(bytes), allocator_->granularity());
  if (cls > options_.cap_bytes) {
    ++stats_.failures;
    return resource_exhausted("request of " + size_text(bytes) + " exceeds the pool cap of " +
                              size_text(options_.cap_bytes) + "; its size class is " +
                              size_text(cls));
  }
  if (!waiters_.empty() || !can_take_locked(cls)) {
    if (!options_.wait) {
      ++stats_.failures;
      return resource_exhausted("no room under the cap (on_cap fail): " +
                                describe_locked(bytes, cls));
    }
    const uint64_t ticket = next_ticket_++;
    waiters_.push_back(ticket);
    ++stats_.waits;
    const auto start = Clock::now();
    auto ready = [&] { return waiters_.front() == ticket && can_take_locked(cls); };
    bool served = true;
    if (options_.wait_timeout_ms < 0) {
      room_.wait(lock, ready);
    } else {
      served = room_.wait_until(lock, start + std::chrono::milliseconds(options_.wait_timeout_ms),
                                ready);
    }
    stats_.wait_ns += elapsed_ns(start);
    if (!served) {
      waiters_.erase(std::find(waiters_.begin(), waiters_.end(), ticket));
      ++stats_.failures;
      room_.notify_all();  // the waiter behind this one may now be at the front
      return deadline_exceeded("waited " + std::to_string(options_.wait_timeout_ms) +
                               " ms for room under the cap: " + describe_locked(bytes, cls));
    }
    waiters_.pop_front();
    room_.notify_all();  // the next waiter is at the front now
  }

  std::vector<Block> to_free;
  uint64_t reserved = 0;
  const Block cached = take_locked(cls, to_free, reserved);
  if (cached.host_ptr != nullptr) {
    ++stats_.reuses;
    return hand_out_locked(cached);
  }
  lock.unlock();
  Result<Block> block = fill_reservation(cls, reserved, to_free);
  lock.lock();
  if (!block.ok()) {
    held_bytes_ -= cls;
    ++stats_.failures;
    room_.notify_all();
    return block.status().with_context("allocating " + size_text(cls) + " for a request of " +
                                       size_text(bytes));
  }
  ++stats_.allocations;
  return hand_out_locked(*block);
}

bool BufferPool::can_take_locked(uint64_t cls) const {
  const auto it = cache_.find(cls);
  if (it != cache_.end() && !it->second.empty()) return true;
  // Room now, or after trimming every cached block (blocks being freed still count).
  return held_bytes_ - cached_bytes_ + cls <= options_.cap_bytes;
}

Block BufferPool::take_locked(uint64_t cls, std::vector<Block>& to_free, uint64_t& reserved) {
  const auto same = cache_.find(cls);
  if (same != cache_.end() && !same->second.empty()) {
    const Block block = same->second.back();
    same->second.pop_back();
    if (same->second.empty()) cache_.erase(same);
    cached_bytes_ -= cls;
    return block;
  }
  const uint64_t need =
      held_bytes_ + cls > options_.cap_bytes ? held_bytes_ + cls - options_.cap_bytes : 0;
  uint64_t trimmed = 0;
  while (trimmed < need) {
    // The smallest class that covers what is still needed; else the largest there is.
    auto it = cache_.lower_bound(need - trimmed);
    if (it == cache_.end()) it = std::prev(cache_.end());
    to_free.push_back(it->second.back());
    it->second.pop_back();
    trimmed += it->first;
    if (it->second.empty()) cache_.erase(it);
  }
  cached_bytes_ -= trimmed;
  // Trimmed blocks stay counted until they are freed, so real memory never passes the cap.
  reserved = std::max(trimmed, cls);
  held_bytes_ = held_bytes_ - trimmed + reserved;
  note_held_locked();
  return Block{};
}

Result<Block> BufferPool::fill_reservation(uint64_t cls, uint64_t reserved,
                                           std::vector<Block>& to_free) {
  if (!to_free.empty()) {
    free_blocks(to_free);
    if (reserved > cls) {
      std::lock_guard lock(mutex_);
      held_bytes_ -= reserved - cls;
      room_.notify_all();
    }
  }
  const auto start = Clock::now();
  Result<Block> block = allocator_->allocate(cls);
  alloc_ns_ += elapsed_ns(start);
  if (block.ok() && block->host_ptr == nullptr) {
    return internal_error("the system allocator returned a null pointer for " + size_text(cls));
  }
  if (block.ok()) block->bytes = cls;
  return block;
}

void BufferPool::free_blocks(const std::vector<Block>& blocks) {
  if (blocks.empty()) return;
  const auto start = Clock::now();
  for (const Block& block : blocks) allocator_->free(block);
  alloc_ns_ += elapsed_ns(start);
}

zkp_buffer BufferPool::hand_out_locked(const Block& block) {
  live_.emplace(block.host_ptr, block);
  in_use_bytes_ += block.bytes;
  return zkp_buffer{block.host_ptr, block.device_ptr, block.bytes, flags_, 0};
}

Status BufferPool::release(const zkp_buffer& buffer) {
  std::unique_lock lock(mutex_);
  const auto it = live_.find(buffer.host_ptr);
  if (it == live_.end()) {
    return invalid_argument("release of host_ptr " + pointer_text(buffer.host_ptr) + " of " +
                            size_text(buffer.bytes) +
                            ": not a buffer this pool handed out, or already released");
  }
  const Block block = it->second;
  if (block.bytes != buffer.bytes || block.device_ptr != buffer.device_ptr) {
    return invalid_argument("release of host_ptr " + pointer_text(buffer.host_ptr) + " with " +
                            size_text(buffer.bytes) + " and device_ptr " +
                            pointer_text(buffer.device_ptr) + ", but the pool handed it out with " +
                            size_text(block.bytes) + " and device_ptr " +
                            pointer_text(block.device_ptr));
  }
  live_.erase(it);
  in_use_bytes_ -= block.bytes;
  ++stats_.releases;
  if (options_.reuse) {
    cache_[block.bytes].push_back(block);
    cached_bytes_ += block.bytes;
    room_.notify_all();
    return ok_status();
  }
  lock.unlock();
  free_blocks({block});
  lock.lock();
  held_bytes_ -= block.bytes;
  room_.notify_all();
  return ok_status();
}

zkp_memory_stats BufferPool::stats() const {
  std::lock_guard lock(mutex_);
  zkp_memory_stats out = stats_;
  out.struct_size = sizeof(zkp_memory_stats);
  out.cap_bytes = options_.cap_bytes;
  out.in_use_bytes = in_use_bytes_;
  out.held_bytes = held_bytes_;
  out.alloc_ns = alloc_ns_.load();
  return out;
}

std::string BufferPool::describe_locked(uint64_t bytes, uint64_t cls) const {
  return "request of " + size_text(bytes) + ", size class " + size_text(cls) + "; cap " +
         size_text(options_.cap_bytes) + ", held " + size_text(held_bytes_) + ", in use " +
         size_text(in_use_bytes_) + ", cached " + size_text(cached_bytes_) + ", " +
         std::to_string(waiters_.size()) + " waiting";
}

void BufferPool::note_held_locked() {
  stats_.high_water_bytes = std::max(stats_.high_water_bytes, held_bytes_);
}

}  // namespace zkpipe::memory
