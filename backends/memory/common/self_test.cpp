// backends/memory/common/self_test.cpp: the shared memory-plugin self-test (see self_test.h).
// It runs a fixed script on a 1 MiB pool in fail mode, so every step has one right answer.
// Thread-safety: reentrant; it touches only the pool it creates.
#include "common/self_test.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace zkpipe::memory {
namespace {

constexpr uint64_t kKiB = 1024;
// Small enough to run in milliseconds on any machine and to hit the cap with four buffers.
constexpr uint64_t kSelfTestCapBytes = 1024 * kKiB;
// Every backend hands out at least page-aligned memory (mmap, cudaHostAlloc).
constexpr uint64_t kMinAlignment = 4096;

Status fail(const std::string& step, const std::string& what) {
  return internal_error("self-test: " + step + ": " + what);
}

uint8_t pattern_byte(uint64_t i, uint32_t seed) {
  return static_cast<uint8_t>(i * 131 + seed);
}

void write_pattern(const zkp_buffer& buffer, uint32_t seed) {
  auto* p = static_cast<uint8_t*>(buffer.host_ptr);
  for (uint64_t i = 0; i < buffer.bytes; ++i) p[i] = pattern_byte(i, seed);
}

Status check_pattern(const zkp_buffer& buffer, uint32_t seed, const std::string& step) {
  const auto* p = static_cast<const uint8_t*>(buffer.host_ptr);
  for (uint64_t i = 0; i < buffer.bytes; ++i) {
    if (p[i] != pattern_byte(i, seed)) {
      return fail(step, "byte " + std::to_string(i) + " of the buffer at host_ptr reads " +
                            std::to_string(p[i]) + ", wrote " +
                            std::to_string(pattern_byte(i, seed)));
    }
  }
  return ok_status();
}

class SelfTest {
 public:
  SelfTest(BufferPool& pool, const SelfTestExpectations& expect, uint64_t granularity)
      : pool_(pool), expect_(expect), granularity_(granularity) {}

  // Allocates `bytes`, checks the buffer's properties and fills it with a pattern.
  Result<zkp_buffer> take(uint64_t bytes, const std::string& step) {
    Result<zkp_buffer> got = pool_.allocate(bytes);
    if (!got.ok()) {
      return fail(step,
                  "allocate(" + std::to_string(bytes) + ") failed: " + got.status().to_string());
    }
    const zkp_buffer& b = *got;
    const uint64_t want = (size_class(bytes) + granularity_ - 1) / granularity_ * granularity_;
    if (b.host_ptr == nullptr) return fail(step, "host_ptr is null");
    if (b.bytes != want) {
      return fail(step, "bytes is " + std::to_string(b.bytes) + ", expected the size class " +
                            std::to_string(want));
    }
    if (reinterpret_cast<uintptr_t>(b.host_ptr) % kMinAlignment != 0) {
      return fail(step, "host_ptr is not aligned to " + std::to_string(kMinAlignment) + " bytes");
    }
    if (b.flags != expect_.flags) {
      return fail(step, "flags are " + std::to_string(b.flags) + ", the backend promises " +
                            std::to_string(expect_.flags));
    }
    const bool mapped = (expect_.flags & ZKP_BUFFER_DEVICE_MAPPED) != 0;
    if (mapped != (b.device_ptr != nullptr)) {
      return fail(step, mapped ? "device_ptr is null for a device-mapped buffer"
                               : "device_ptr is set on a buffer that is not device-mapped");
    }
    const uint32_t seed = next_seed_++;
    write_pattern(b, seed);
    if (expect_.check_buffer) {
      Status s = expect_.check_buffer(b);
      if (!s.ok()) return fail(step, "backend check: " + s.to_string());
    }
    live_.emplace_back(b, seed);
    return b;
  }

  // Checks the pattern of every live buffer: catches overlapping or unbacked buffers.
  Status verify_all(const std::string& step) const {
    for (const auto& [buffer, seed] : live_) ZKP_RETURN_IF_ERROR(check_pattern(buffer, seed, step));
    return ok_status();
  }

  Status give(const zkp_buffer& buffer, const std::string& step) {
    Status s = pool_.release(buffer);
    if (!s.ok()) return fail(step, "release failed: " + s.to_string());
    std::erase_if(live_,
                  [&](const auto& entry) { return entry.first.host_ptr == buffer.host_ptr; });
    return ok_status();
  }

  Status give_all(const std::string& step) {
    while (!live_.empty()) ZKP_RETURN_IF_ERROR(give(live_.back().first, step));
    return ok_status();
  }

 private:
  BufferPool& pool_;
  const SelfTestExpectations& expect_;
  uint64_t granularity_;
  std::vector<std::pair<zkp_buffer, uint32_t>> live_;
  uint32_t next_seed_ = 1;
};

Status expect_code(const Result<zkp_buffer>& got, Code code, const std::string& step) {
  if (got.ok()) return fail(step, "allocate succeeded; expected " + std::string(code_name(code)));
  if (got.status().code() != code) {
    return fail(step,
                "expected " + std::string(code_name(code)) + ", got " + got.status().to_string());
  }
  return ok_status();
}

Status expect_stat(uint64_t actual, uint64_t expected, const char* name) {
  if (actual == expected) return ok_status();
  return fail("statistics", std::string(name) + " is " + std::to_string(actual) + ", expected " +
                                std::to_string(expected));
}

}  // namespace

Status run_self_test(std::unique_ptr<SystemAllocator> allocator,
                     const SelfTestExpectations& expect) {
  if (allocator == nullptr) return fail("setup", "no allocator");
  const uint64_t granularity = allocator->granularity();
  if (granularity > kMinSizeClassBytes) {
    return fail("setup", "allocator granularity " + std::to_string(granularity) +
                             " is above the 64 KiB this script is written for");
  }
  auto cls = [&](uint64_t bytes) {
    return (size_class(bytes) + granularity - 1) / granularity * granularity;
  };
  const uint64_t prealloc_bytes[] = {64 * kKiB};
  const uint32_t prealloc_count[] = {1};
  zkp_memory_options options{};
  options.struct_size = sizeof(options);
  options.on_cap = ZKP_ON_CAP_FAIL;
  options.cap_bytes = kSelfTestCapBytes;
  options.reuse = 1;
  options.prealloc_bytes = prealloc_bytes;
  options.prealloc_count = prealloc_count;
  options.prealloc_entries = 1;
  Result<std::unique_ptr<BufferPool>> created = BufferPool::create(std::move(allocator), options);
  if (!created.ok()) return fail("create", created.status().to_string());
  BufferPool& pool = **created;
  SelfTest t(pool, expect, granularity);

  // Four buffers of four classes, 720 KiB of the 1 MiB cap; the first reuses the prealloc.
  ZKP_ASSIGN_OR_RETURN(const zkp_buffer a, t.take(64 * kKiB, "allocate"));
  ZKP_ASSIGN_OR_RETURN(const zkp_buffer b, t.take(100 * kKiB, "allocate"));
  ZKP_ASSIGN_OR_RETURN(const zkp_buffer c, t.take(200 * kKiB, "allocate"));
  ZKP_ASSIGN_OR_RETURN(const zkp_buffer d, t.take(300 * kKiB, "allocate"));
  (void)a;
  (void)c;
  ZKP_RETURN_IF_ERROR(t.verify_all("write and read back"));

  // Reuse: a request of the same class gets the released block back.
  ZKP_RETURN_IF_ERROR(t.give(b, "reuse"));
  ZKP_ASSIGN_OR_RETURN(const zkp_buffer b2, t.take(110 * kKiB, "reuse"));
  if (b2.host_ptr != b.host_ptr) return fail("reuse", "a released block was not reused");
  if (pool.stats().reuses != 2) return fail("reuse", "reuses is not 2 (prealloc + release)");

  // The cap, in fail mode: a class above the cap, and one that does not fit beside the rest.
  ZKP_RETURN_IF_ERROR(expect_code(pool.allocate(2 * kSelfTestCapBytes), Code::kResourceExhausted,
                                  "request above the cap"));
  ZKP_RETURN_IF_ERROR(
      expect_code(pool.allocate(400 * kKiB), Code::kResourceExhausted, "request over the cap"));

  // Trim: with d cached, the same request fits once d is freed to make room.
  ZKP_RETURN_IF_ERROR(t.give(d, "trim"));
  ZKP_ASSIGN_OR_RETURN(const zkp_buffer e, t.take(400 * kKiB, "trim"));
  ZKP_RETURN_IF_ERROR(t.verify_all("read back after trim"));

  // A double release is refused and changes nothing.
  ZKP_RETURN_IF_ERROR(t.give(e, "double release"));
  Status again = pool.release(e);
  if (again.code() != Code::kInvalidArgument) {
    return fail("double release", "expected INVALID_ARGUMENT, got " + again.to_string());
  }
  ZKP_RETURN_IF_ERROR(t.give_all("release"));

  const zkp_memory_stats s = pool.stats();
  const uint64_t held = cls(64 * kKiB) + cls(100 * kKiB) + cls(200 * kKiB) + cls(400 * kKiB);
  ZKP_RETURN_IF_ERROR(expect_stat(s.cap_bytes, kSelfTestCapBytes, "cap_bytes"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.in_use_bytes, 0, "in_use_bytes"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.held_bytes, held, "held_bytes"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.allocations, 5, "allocations"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.reuses, 2, "reuses"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.releases, 6, "releases"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.failures, 2, "failures"));
  ZKP_RETURN_IF_ERROR(expect_stat(s.waits, 0, "waits"));
  if (s.high_water_bytes < s.held_bytes || s.high_water_bytes > s.cap_bytes) {
    return fail("statistics", "high_water_bytes " + std::to_string(s.high_water_bytes) +
                                  " is outside [held_bytes, cap_bytes]");
  }
  return ok_status();
}

}  // namespace zkpipe::memory
