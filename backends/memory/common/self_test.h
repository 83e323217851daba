// backends/memory/common/self_test.h: the self-test every memory plugin runs from its
// self_test entry point: a small capped pool on the plugin's real allocator, exercised for
// data integrity, buffer properties, reuse, trimming, the cap and consistent statistics.
// Thread-safety: run_self_test is reentrant; it touches only the pool it creates.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "common/buffer_pool.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::memory {

struct SelfTestExpectations {
  uint32_t flags = 0;  // ZKP_BUFFER_* every buffer must carry
  // Optional backend check of a live buffer whose host bytes hold a test pattern (e.g. that
  // the CUDA runtime knows it as pinned, or that its device pointer reads the same bytes).
  std::function<Status(const zkp_buffer&)> check_buffer;
};

// OK, or the first failed check: "self-test: <step>: <what went wrong>".
Status run_self_test(std::unique_ptr<SystemAllocator> allocator,
                     const SelfTestExpectations& expect);

}  // namespace zkpipe::memory
