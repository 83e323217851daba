/* zkpipe/sdk/abi/size_class.h: the size classes of the in-tree memory backends' pool
 * (backends/memory/common/buffer_pool.h): a request is rounded up to one of 4 classes per power
 * of two, at least 64 KiB, then to the allocator's granularity (its page or huge page size).
 * zkp_buffer.bytes is that class. The engine's memory budget reserves a buffer's class before it
 * asks for it; a backend that rounds further is under-counted, and the engine says so. */
#pragma once

#include <stdint.h>

#define ZKP_MIN_SIZE_CLASS_BYTES (64u * 1024u)

/* 1 <= bytes <= 2^62; granularity a power of two. */
static inline uint64_t zkp_size_class(uint64_t bytes, uint64_t granularity) {
  uint64_t cls = ZKP_MIN_SIZE_CLASS_BYTES;
  if (bytes > cls) {
    /* 2^k < bytes <= 2^(k+1): the octave is cut into 4 equal steps of 2^(k-2). */
    const int k = 63 - __builtin_clzll(bytes - 1);
    const uint64_t step = (uint64_t)1 << (k - 2);
    cls = (bytes + step - 1) & ~(step - 1);
  }
  return (cls + granularity - 1) & ~(granularity - 1);
}
