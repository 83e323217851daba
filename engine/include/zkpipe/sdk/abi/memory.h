/* zkpipe/sdk/abi/memory.h: the memory backend plugin ABI (kind ZKP_KIND_MEMORY).
 * A memory backend hands out host buffers (and, for mapped memory, a device pointer) from a
 * pool with a byte cap, size-class reuse and statistics.
 * Thread-safety: create/destroy on one thread; allocate, release and stats are thread-safe on
 * one instance. allocate may block up to the configured wait timeout when the cap is reached.
 * The SDK has no memory-plugin glue: the in-tree backends share backends/memory/common (a
 * size-class BufferPool, the entry points over it, the self-test), which is not installed. An
 * out-of-tree memory plugin writes its entry points over zkpipe/sdk/sdk.h (sdk::guard,
 * ZKP_EXPORT_PLUGIN), as tests/sdk_plugin/plugin does, and rounds to the size classes of
 * zkpipe/sdk/abi/size_class.h. */
#pragma once

#include "zkpipe/sdk/abi/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer property flags. */
#define ZKP_BUFFER_PINNED 1u        /* page-locked: DMA at line rate */
#define ZKP_BUFFER_DEVICE_MAPPED 2u /* device_ptr reads host memory in place */

typedef struct zkp_buffer {
  void* host_ptr;   /* never null for a live buffer */
  void* device_ptr; /* null unless ZKP_BUFFER_DEVICE_MAPPED */
  uint64_t bytes;   /* usable bytes: at least what was asked, the size class */
  uint32_t flags;   /* ZKP_BUFFER_* */
  uint32_t reserved;
} zkp_buffer;

/* What to do when a request would exceed the cap. */
#define ZKP_ON_CAP_WAIT 0u
#define ZKP_ON_CAP_FAIL 1u

typedef struct zkp_memory_options {
  uint32_t struct_size;
  uint32_t on_cap;         /* ZKP_ON_CAP_* */
  uint64_t cap_bytes;      /* total held (in use + cached) never exceeds this; > 0 */
  int64_t wait_timeout_ms; /* ZKP_ON_CAP_WAIT: longest wait; < 0 waits forever */
  uint32_t huge_pages;     /* 1: ask for transparent huge pages (backends that can) */
  uint32_t reuse;          /* 1: keep released buffers for reuse by size class */
  /* Buffers allocated at create: prealloc_count[i] buffers of prealloc_bytes[i] each. */
  const uint64_t* prealloc_bytes;
  const uint32_t* prealloc_count;
  uint32_t prealloc_entries;
  uint32_t reserved;
} zkp_memory_options;

typedef struct zkp_memory_stats {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t cap_bytes;
  uint64_t in_use_bytes;     /* handed out now (size-class bytes) */
  uint64_t held_bytes;       /* in use + cached for reuse */
  uint64_t high_water_bytes; /* max held_bytes so far */
  uint64_t allocations;      /* fresh allocations from the system */
  uint64_t reuses;           /* requests served from the cache */
  uint64_t releases;         /* buffers given back by callers */
  uint64_t failures;         /* requests that failed (cap, timeout, system) */
  uint64_t waits;            /* requests that had to wait for room */
  uint64_t alloc_ns;         /* time inside the system allocator (incl. frees, trims) */
  uint64_t wait_ns;          /* time requests spent waiting for room */
} zkp_memory_stats;

typedef struct zkp_memory_pool zkp_memory_pool; /* opaque, owned by the plugin */

typedef struct zkp_memory_backend {
  zkp_plugin_header header; /* kind = ZKP_KIND_MEMORY */
  zkp_status (*create)(const zkp_memory_options* options, zkp_memory_pool** out, zkp_error err);
  /* Frees everything the pool holds; buffers still out become invalid. */
  void (*destroy)(zkp_memory_pool* pool);
  zkp_status (*allocate)(zkp_memory_pool* pool, uint64_t bytes, zkp_buffer* out, zkp_error err);
  /* `buffer` must be one this pool handed out and not yet released. */
  zkp_status (*release)(zkp_memory_pool* pool, const zkp_buffer* buffer, zkp_error err);
  zkp_status (*stats)(zkp_memory_pool* pool, zkp_memory_stats* out, zkp_error err);
  /* ABI 1.2. The pool-level property: the ZKP_BUFFER_* flags every buffer of this backend
   * carries (pinned_pool: PINNED; zero_copy: PINNED | DEVICE_MAPPED; pageable: 0). The engine
   * counts a PINNED pool against RLIMIT_MEMLOCK and tells the compute backend what it gets. A
   * 1.0/1.1 descriptor (struct_size <= offsetof(zkp_memory_backend, buffer_flags)): 0, and each
   * buffer's own flags still say what it is. */
  uint32_t buffer_flags;
  uint32_t reserved_1_2; /* zero */
} zkp_memory_backend;

#ifdef __cplusplus
} /* extern "C" */
#endif
