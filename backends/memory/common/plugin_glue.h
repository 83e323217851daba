// backends/memory/common/plugin_glue.h: the C entry points every memory plugin shares
// (create's common half, destroy, allocate, release, stats), each wrapped in sdk::guard, over
// a BufferPool. A plugin adds init, self_test and its SystemAllocator. Include it in one .cpp.
// Not in the SDK (it sits on the in-tree BufferPool); zkpipe/sdk/abi/memory.h says what an
// out-of-tree memory plugin writes instead. Thread-safety: as zkpipe/sdk/abi/memory.h:
// create/destroy on one thread; allocate, release and stats are thread-safe on one pool.
#pragma once

#include <memory>
#include <utility>

#include "common/buffer_pool.h"
#include "zkpipe/sdk/sdk.h"

// The ABI's opaque pool handle; each plugin library has its own definition.
struct zkp_memory_pool {
  std::unique_ptr<zkpipe::memory::BufferPool> pool;
};

namespace zkpipe::memory {

// create's second half, after the plugin validated `options` and built its allocator.
inline Status create_pool(const zkp_memory_options& options,
                          std::unique_ptr<SystemAllocator> allocator, zkp_memory_pool** out) {
  if (out == nullptr) return invalid_argument("create: out is null");
  *out = nullptr;
  ZKP_ASSIGN_OR_RETURN(auto pool, BufferPool::create(std::move(allocator), options));
  *out = new zkp_memory_pool{std::move(pool)};
  return ok_status();
}

inline void destroy_entry(zkp_memory_pool* pool) {
  (void)sdk::guard(zkp_error{nullptr, 0}, [&] { delete pool; });
}

inline zkp_status allocate_entry(zkp_memory_pool* pool, uint64_t bytes, zkp_buffer* out,
                                 zkp_error err) {
  return sdk::guard(err, [&]() -> Status {
    if (pool == nullptr || out == nullptr) return invalid_argument("allocate: pool or out is null");
    *out = zkp_buffer{};
    ZKP_ASSIGN_OR_RETURN(*out, pool->pool->allocate(bytes));
    return ok_status();
  });
}

inline zkp_status release_entry(zkp_memory_pool* pool, const zkp_buffer* buffer, zkp_error err) {
  return sdk::guard(err, [&]() -> Status {
    if (pool == nullptr || buffer == nullptr) {
      return invalid_argument("release: pool or buffer is null");
    }
    return pool->pool->release(*buffer);
  });
}

// The caller sets out->struct_size to the size of its zkp_memory_stats (0 reads as this
// plugin's); a caller built with a newer, longer struct gets the fields this plugin knows.
inline zkp_status stats_entry(zkp_memory_pool* pool, zkp_memory_stats* out, zkp_error err) {
  return sdk::guard(err, [&]() -> Status {
    if (pool == nullptr || out == nullptr) return invalid_argument("stats: pool or out is null");
    if (out->struct_size != 0 && out->struct_size < sizeof(zkp_memory_stats)) {
      return invalid_argument("stats: struct_size " + std::to_string(out->struct_size) +
                              " is smaller than the " + std::to_string(sizeof(zkp_memory_stats)) +
                              " bytes of ABI 1.0");
    }
    *out = pool->pool->stats();
    return ok_status();
  });
}

}  // namespace zkpipe::memory
