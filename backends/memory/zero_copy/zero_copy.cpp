// backends/memory/zero_copy/zero_copy.cpp: the `zero_copy` memory backend plugin: mapped,
// portable page-locked host buffers (cudaHostAllocMapped) with a device pointer through which
// kernels read host memory in place. Good for single-pass streaming, bad for random gathers.
// Thread-safety: as abi/memory.h; the allocator holds no mutable state.
#include <cuda_runtime_api.h>  // first, so ZKP_BUILD_TAG names the CUDA runtime

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/buffer_pool.h"
#include "common/cuda_check.h"
#include "common/plugin_glue.h"
#include "common/self_test.h"
#include "zkpipe/sdk/sdk.h"

namespace {

using zkpipe::Result;
using zkpipe::Status;
using zkpipe::memory::Block;

constexpr const char* kName = "zero_copy";
// Bytes the self-test reads back through the device pointer: enough to see a real pattern,
// small enough that the copy is instant even over PCIe gen3.
constexpr size_t kDeviceReadBackBytes = 4096;

class MappedAllocator final : public zkpipe::memory::SystemAllocator {
 public:
  Result<Block> allocate(uint64_t bytes) override {
    void* host_ptr = nullptr;
    ZKP_CUDA_OK(cudaHostAlloc(&host_ptr, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    void* device_ptr = nullptr;
    Status mapped = ZKP_CUDA_STATUS(cudaHostGetDevicePointer(&device_ptr, host_ptr, 0));
    if (!mapped.ok()) {
      free(Block{host_ptr, nullptr, bytes});
      return mapped;
    }
    return Block{host_ptr, device_ptr, bytes};
  }

  void free(const Block& block) override {
    Status s = ZKP_CUDA_STATUS(cudaFreeHost(block.host_ptr));
    if (!s.ok()) zkpipe::sdk::log(ZKP_LOG_ERROR, kName, s.to_string());
  }

  uint32_t flags() const override { return ZKP_BUFFER_PINNED | ZKP_BUFFER_DEVICE_MAPPED; }
};

// The runtime must map the buffer at its device pointer, and reading through that pointer
// must see the bytes written on the host.
Status check_mapped(const zkp_buffer& buffer) {
  cudaPointerAttributes attr{};
  ZKP_CUDA_OK(cudaPointerGetAttributes(&attr, buffer.host_ptr));
  if (attr.type != cudaMemoryTypeHost || attr.devicePointer != buffer.device_ptr) {
    return zkpipe::internal_error(
        "cudaPointerGetAttributes does not report mapped host memory at the buffer's device_ptr");
  }
  std::vector<unsigned char> seen(kDeviceReadBackBytes);
  ZKP_CUDA_OK(cudaMemcpy(seen.data(), buffer.device_ptr, seen.size(), cudaMemcpyDeviceToHost));
  if (std::memcmp(seen.data(), buffer.host_ptr, seen.size()) != 0) {
    return zkpipe::internal_error("bytes read through device_ptr differ from the host bytes");
  }
  return zkpipe::ok_status();
}

zkp_status init(const zkp_host* host, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] {
    zkpipe::sdk::set_host(host);
    return zkpipe::memory::cuda_host_memory_available(/*require_map_host=*/true);
  });
}

zkp_status self_test(zkp_error err) {
  return zkpipe::sdk::guard(err, []() -> Status {
    ZKP_RETURN_IF_ERROR(zkpipe::memory::cuda_host_memory_available(true));
    zkpipe::memory::SelfTestExpectations expect;
    expect.flags = ZKP_BUFFER_PINNED | ZKP_BUFFER_DEVICE_MAPPED;
    expect.check_buffer = check_mapped;
    return zkpipe::memory::run_self_test(std::make_unique<MappedAllocator>(), expect);
  });
}

zkp_status create(const zkp_memory_options* options, zkp_memory_pool** out, zkp_error err) {
  return zkpipe::sdk::guard(err, [&]() -> Status {
    ZKP_RETURN_IF_ERROR(zkpipe::memory::validate_options(options, /*huge_pages_supported=*/false));
    return zkpipe::memory::create_pool(*options, std::make_unique<MappedAllocator>(), out);
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
    ZKP_BUFFER_PINNED | ZKP_BUFFER_DEVICE_MAPPED,  // buffer_flags (1.2): the pool-level property
    0u,
};
