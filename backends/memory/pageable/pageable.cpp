// backends/memory/pageable/pageable.cpp: the `pageable` memory backend plugin. Each block is
// its own anonymous mmap (page-aligned; with huge_pages 2 MiB-aligned and madvise'd for
// transparent huge pages), and munmap gives it back to the OS at once.
// Thread-safety: as abi/memory.h; the allocator holds no mutable state (mmap is thread-safe).
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>

#include "common/buffer_pool.h"
#include "common/plugin_glue.h"
#include "common/self_test.h"
#include "zkpipe/sdk/sdk.h"

namespace {

using zkpipe::Result;
using zkpipe::Status;
using zkpipe::memory::Block;

constexpr const char* kName = "pageable";
// x86-64 and arm64 (4 KiB base pages) transparent huge page size; a block of it may be backed
// by one TLB entry instead of 512.
constexpr uint64_t kHugePageBytes = uint64_t{2} << 20;

// Warn once per process when the kernel refuses MADV_HUGEPAGE (THP disabled or not built).
constinit std::atomic<bool> g_warned_no_thp{false};

std::string errno_text(int err) {
  return std::error_code(err, std::generic_category()).message() + " (errno " +
         std::to_string(err) + ")";
}

class PageableAllocator final : public zkpipe::memory::SystemAllocator {
 public:
  explicit PageableAllocator(bool huge_pages)
      : huge_pages_(huge_pages), page_bytes_(static_cast<uint64_t>(sysconf(_SC_PAGESIZE))) {}

  Result<Block> allocate(uint64_t bytes) override {
    // Over-map by one huge page so a 2 MiB boundary lies inside, then unmap head and tail.
    const uint64_t span = huge_pages_ ? bytes + kHugePageBytes : bytes;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
      const int err = errno;
      std::string message = "mmap of " + std::to_string(span) + " bytes failed: " + errno_text(err);
      return err == ENOMEM ? zkpipe::resource_exhausted(std::move(message))
                           : zkpipe::internal_error(std::move(message));
    }
    if (!huge_pages_) return Block{raw, nullptr, bytes};

    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    const uint64_t head = aligned - start;
    const uint64_t tail = span - head - bytes;
    if (head != 0) munmap(raw, head);
    if (tail != 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    auto* ptr = reinterpret_cast<void*>(aligned);
    if (madvise(ptr, bytes, MADV_HUGEPAGE) != 0 && !g_warned_no_thp.exchange(true)) {
      zkpipe::sdk::log(ZKP_LOG_WARN, kName,
                       "madvise(MADV_HUGEPAGE) failed: " + errno_text(errno) +
                           "; buffers use base pages (see /sys/kernel/mm/transparent_hugepage)");
    }
    return Block{ptr, nullptr, bytes};
  }

  void free(const Block& block) override {
    if (munmap(block.host_ptr, block.bytes) != 0) {
      zkpipe::sdk::log(
          ZKP_LOG_ERROR, kName,
          "munmap of " + std::to_string(block.bytes) + " bytes failed: " + errno_text(errno));
    }
  }

  uint32_t flags() const override { return 0; }
  uint64_t granularity() const override { return huge_pages_ ? kHugePageBytes : page_bytes_; }

 private:
  const bool huge_pages_;
  const uint64_t page_bytes_;
};

zkp_status init(const zkp_host* host, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] { zkpipe::sdk::set_host(host); });
}

// The shared script on base pages, then one huge-page block: 2 MiB-aligned, readable back.
Status run_self_test() {
  ZKP_RETURN_IF_ERROR(zkpipe::memory::run_self_test(std::make_unique<PageableAllocator>(false),
                                                    zkpipe::memory::SelfTestExpectations{}));
  PageableAllocator huge(true);
  ZKP_ASSIGN_OR_RETURN(Block block, huge.allocate(kHugePageBytes));
  const bool aligned = reinterpret_cast<uintptr_t>(block.host_ptr) % kHugePageBytes == 0;
  std::memset(block.host_ptr, 0x5a, block.bytes);
  const auto* bytes = static_cast<const unsigned char*>(block.host_ptr);
  const bool readable = bytes[0] == 0x5a && bytes[block.bytes - 1] == 0x5a;
  huge.free(block);
  if (!aligned) return zkpipe::internal_error("self-test: huge pages: block is not 2 MiB-aligned");
  if (!readable) return zkpipe::internal_error("self-test: huge pages: block does not read back");
  return zkpipe::ok_status();
}

zkp_status self_test(zkp_error err) {
  return zkpipe::sdk::guard(err, [] { return run_self_test(); });
}

zkp_status create(const zkp_memory_options* options, zkp_memory_pool** out, zkp_error err) {
  return zkpipe::sdk::guard(err, [&]() -> Status {
    ZKP_RETURN_IF_ERROR(zkpipe::memory::validate_options(options, /*huge_pages_supported=*/true));
    return zkpipe::memory::create_pool(
        *options, std::make_unique<PageableAllocator>(options->huge_pages != 0), out);
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
    0u,  // buffer_flags (1.2): the pool-level property
    0u,
};
