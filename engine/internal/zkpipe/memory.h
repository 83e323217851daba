// zkpipe/memory.h: the engine's view of a memory backend plugin: a pool that hands out RAII
// Buffers (host pointer, device pointer or null, bytes, pinned, device_mapped).
// Thread-safety: MemoryPool::allocate and stats are thread-safe; a Buffer is owned by one
// thread at a time and returns itself to the pool when destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "zkpipe/config.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/abi/size_class.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe {

// The size class of a `bytes` request under `granularity` (abi/size_class.h): what the memory
// backends hand out and the budget reserves.
inline uint64_t size_class(uint64_t bytes, uint64_t granularity) {
  return zkp_size_class(bytes, granularity);
}

class MemoryPool;

class Buffer {
 public:
  Buffer() = default;
  Buffer(MemoryPool* pool, zkp_buffer raw) : pool_(pool), raw_(raw) {}
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { reset(); }

  void* host() const { return raw_.host_ptr; }
  void* device() const { return raw_.device_ptr; }
  uint64_t bytes() const { return raw_.bytes; }
  bool pinned() const { return (raw_.flags & ZKP_BUFFER_PINNED) != 0; }
  bool device_mapped() const { return (raw_.flags & ZKP_BUFFER_DEVICE_MAPPED) != 0; }
  uint32_t flags() const { return raw_.flags; }  // ZKP_BUFFER_*
  explicit operator bool() const { return raw_.host_ptr != nullptr; }

  // Returns the buffer to its pool now (a failure is logged: the caller cannot act on it).
  void reset();

 private:
  MemoryPool* pool_ = nullptr;
  zkp_buffer raw_{};
};

class MemoryPool {
 public:
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // Creates a pool of a loaded, available memory plugin.
  static Result<std::unique_ptr<MemoryPool>> create(const LoadedPlugin& plugin,
                                                    const MemoryConfig& config);

  Result<Buffer> allocate(uint64_t bytes);
  Status release(const zkp_buffer& raw);
  Result<zkp_memory_stats> stats() const;

  const std::string& backend_name() const { return plugin_->manifest.name; }
  // The pool-level property: the ZKP_BUFFER_* flags every buffer carries (the descriptor's
  // buffer_flags, ABI 1.2; 0 for a 1.0/1.1 plugin, whose buffers still carry their own flags).
  uint32_t buffer_flags() const {
    return table()->header.struct_size > offsetof(zkp_memory_backend, buffer_flags)
               ? table()->buffer_flags
               : 0u;
  }
  // Page-locked host memory (pinned_pool, zero_copy): what the pool holds counts against
  // RLIMIT_MEMLOCK in the engine's start-up plan.
  bool page_locked() const { return (buffer_flags() & ZKP_BUFFER_PINNED) != 0; }
  uint64_t cap_bytes() const { return cap_bytes_; }

 private:
  MemoryPool(const LoadedPlugin* plugin, zkp_memory_pool* pool, uint64_t cap)
      : plugin_(plugin), pool_(pool), cap_bytes_(cap) {}
  const zkp_memory_backend* table() const { return plugin_->table<zkp_memory_backend>(); }

  const LoadedPlugin* plugin_;
  zkp_memory_pool* pool_;
  uint64_t cap_bytes_;
};

// Opens the config's memory backend. When it is unavailable and config.memory.fallback names
// another backend, that one is opened and the switch is logged as a warning; with no
// fallback it is an UNAVAILABLE error naming the config key and the plugin's reason.
Result<std::unique_ptr<MemoryPool>> open_memory_backend(const Config& config,
                                                        PluginRegistry& registry);

}  // namespace zkpipe
