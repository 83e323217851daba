// backends/memory/pinned_pool/pinned_pool.cpp: the `pinned_pool` memory backend plugin:
// page-locked host buffers from cudaHostAlloc (portable to every CUDA context), kept by size
// class for reuse under the cap, so host-to-device copies are asynchronous DMA at line rate.
// Thread-safety: as abi/memory.h; the allocator holds no mutable state.
#include <cuda_runtime_api.h>  // first, so ZKP_BUILD_TAG names the CUDA runtime

#include <memory>
#include <string>

#include "common/buffer_pool.h"
#include "common/cuda_check.h"
#include "common/plugin_glue.h"
#include "common/self_test.h"
#include "zkpipe/sdk/sdk.h"

namespace {

using zkpipe::Result;
using zkpipe::Status;
using zkpipe::memory::Block;

constexpr const char* kName = "pinned_pool";

class PinnedAllocator final : public zkpipe::memory::SystemAllocator {
 public:
  Result<Block> allocate(uint64_t bytes) override {
    void* host_ptr = nullptr;
    ZKP_CUDA_OK(cudaHostAlloc(&host_ptr, bytes, cudaHostAllocPortable));
    return Block{host_ptr, nullptr, bytes};
  }

  void free(const Block& block) override {
    Status s = ZKP_CUDA_STATUS(cudaFreeHost(block.host_ptr));
    if (!s.ok()) zkpipe::sdk::log(ZKP_LOG_ERROR, kName, s.to_string());
  }

  uint32_t flags() const override { return ZKP_BUFFER_PINNED; }
};

// The CUDA runtime must know each buffer as page-locked host memory.
Status check_pinned(const zkp_buffer& buffer) {
  cudaPointerAttributes attr{};
  ZKP_CUDA_OK(cudaPointerGetAttributes(&attr, buffer.host_ptr));
  if (attr.type != cudaMemoryTypeHost) {
    return zkpipe::internal_error("cudaPointerGetAttributes reports memory type " +
                                  std::to_string(static_cast<int>(attr.type)) +
                                  ", not cudaMemoryTypeHost");
  }
  return zkpipe::ok_status();
}

zkp_status init(const zkp_host* host, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] {
    zkpipe::sdk::set_host(host);
    return zkpipe::memory::cuda_host_memory_available(/*require_map_host=*/false);
  });
}

zkp_status self_test(zkp_error err) {
  return zkpipe::sdk::guard(err, []() -> Status {
    ZKP_RETURN_IF_ERROR(zkpipe::memory::cuda_host_memory_available(false));
    zkpipe::memory::SelfTestExpectations expect;
    expect.flags = ZKP_BUFFER_PINNED;
    expect.check_buffer = check_pinned;
    return zkpipe::memory::run_self_test(std::make_unique<PinnedAllocator>(), expect);
  });
}

zkp_status create(const zkp_memory_options* options, zkp_memory_pool** out, zkp_error err) {
  return zkpipe::sdk::guard(err, [&]() -> Status {
    ZKP_RETURN_IF_ERROR(zkpipe::memory::validate_options(options, /*huge_pages_supported=*/false));
    return zkpipe::memory::create_pool(*options, std::make_unique<PinnedAllocator>(), out);
  });
}

}  // namespace

ZKP_EXPORT_PLUGIN(zkp_memory_backend) = {
    zkpipe::sdk::header<zkp_memory_backend>(ZKP_KIND_MEMORY, kName, "0.1.0", ZKP_BUILD_TAG, init,
                                            self_test),
    create,
    zkpipe::memory::destroy_entry,
    zkpipe::memory::allocate_entry,
    zkpipe::memory::release_entry,
    zkpipe::memory::stats_entry,
    ZKP_BUFFER_PINNED,  // buffer_flags (1.2): the pool-level property
    0u,
};
