// tests/backends/buffer_pool_test.cpp: BufferPool behaviour on one thread: size classes,
// reuse, the cap (fail mode), trimming, preallocation, bad releases, injected allocator
// faults, statistics, option validation, and the plugins' shared self-test. Waiting and concurrency
// live in buffer_pool_concurrency_test.cpp. Thread-safety: each test owns its pool.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "common/buffer_pool.h"
#include "common/self_test.h"
#include "test_allocators.h"

using namespace zkpipe;
using namespace zkpipe::memory;
using namespace zkpipe::memory::testing;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

std::unique_ptr<BufferPool> make_pool(const zkp_memory_options& options,
                                      std::shared_ptr<AllocatorCounters> counters,
                                      uint32_t flags = 0) {
  auto pool = BufferPool::create(std::make_unique<MallocAllocator>(counters, flags), options);
  REQUIRE(pool.ok());
  return std::move(pool).value();
}

zkp_buffer take(BufferPool& pool, uint64_t bytes) {
  auto got = pool.allocate(bytes);
  INFO(got.status().to_string());
  REQUIRE(got.ok());
  return *got;
}

}  // namespace

TEST_CASE("BufferPool: size classes waste at most 25% and start at 64 KiB", "[pool]") {
  CHECK(size_class(1) == 64 * kKiB);
  CHECK(size_class(64 * kKiB) == 64 * kKiB);
  CHECK(size_class(64 * kKiB + 1) == 80 * kKiB);
  CHECK(size_class(100 * kKiB) == 112 * kKiB);
  CHECK(size_class(128 * kKiB) == 128 * kKiB);
  CHECK(size_class(kMaxRequestBytes) == kMaxRequestBytes);
  for (uint64_t bytes = 64 * kKiB + 1; bytes < 64 * kMiB; bytes = bytes * 9 / 8 + 4093) {
    const uint64_t cls = size_class(bytes);
    INFO(bytes);
    CHECK(cls >= bytes);
    CHECK((cls - bytes) * 4 <= bytes);
    CHECK(size_class(cls) == cls);
  }
}

TEST_CASE("BufferPool: a released block is reused by any request of its size class", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool = make_pool(make_options(4 * kMiB, ZKP_ON_CAP_FAIL), counters);
  const zkp_buffer a = take(*pool, 100 * kKiB);
  CHECK(a.bytes == 112 * kKiB);
  std::memset(a.host_ptr, 0xab, a.bytes);
  REQUIRE(pool->release(a).ok());
  const zkp_buffer b = take(*pool, 97 * kKiB);  // same class (96 KiB, 112 KiB]
  CHECK(b.host_ptr == a.host_ptr);
  const zkp_buffer c = take(*pool, 113 * kKiB);  // next class: a fresh block
  CHECK(c.host_ptr != a.host_ptr);
  const zkp_memory_stats s = pool->stats();
  CHECK(s.allocations == 2);
  CHECK(s.reuses == 1);
  CHECK(counters->allocations == 2);
  REQUIRE(pool->release(b).ok());
  REQUIRE(pool->release(c).ok());
}

TEST_CASE("BufferPool: with reuse off a released block goes back to the system", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool = make_pool(make_options(4 * kMiB, ZKP_ON_CAP_FAIL, -1, /*reuse=*/false), counters);
  const zkp_buffer a = take(*pool, 64 * kKiB);
  REQUIRE(pool->release(a).ok());
  CHECK(counters->frees == 1);
  CHECK(pool->stats().held_bytes == 0);
  (void)take(*pool, 64 * kKiB);
  CHECK(pool->stats().reuses == 0);
  CHECK(pool->stats().allocations == 2);
}

TEST_CASE("BufferPool: a request whose class exceeds the cap fails at once", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool = make_pool(make_options(1 * kMiB, ZKP_ON_CAP_WAIT, -1), counters);
  auto got = pool->allocate(1 * kMiB + 1);  // would wait forever if it queued
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().code() == Code::kResourceExhausted);
  CHECK_THAT(got.status().message(),
             Catch::Contains("1048577 bytes") && Catch::Contains("cap of 1048576 bytes"));
  CHECK(pool->stats().failures == 1);
  CHECK(counters->allocations == 0);
}

TEST_CASE("BufferPool: fail mode refuses a request that has no room", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool = make_pool(make_options(256 * kKiB, ZKP_ON_CAP_FAIL), counters);
  const zkp_buffer a = take(*pool, 128 * kKiB);
  const zkp_buffer b = take(*pool, 64 * kKiB);
  auto got = pool->allocate(80 * kKiB);
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().code() == Code::kResourceExhausted);
  CHECK_THAT(got.status().message(), Catch::Contains("cap 262144 bytes"));
  (void)take(*pool, 64 * kKiB);  // exactly fills the cap
  const zkp_memory_stats s = pool->stats();
  CHECK(s.held_bytes == 256 * kKiB);
  CHECK(s.failures == 1);
  CHECK(s.waits == 0);
  REQUIRE(pool->release(a).ok());
  REQUIRE(pool->release(b).ok());
}

TEST_CASE("BufferPool: cached blocks of other classes are trimmed to make room", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool = make_pool(make_options(512 * kKiB, ZKP_ON_CAP_FAIL), counters);
  std::vector<zkp_buffer> small;
  for (int i = 0; i < 6; ++i) small.push_back(take(*pool, 64 * kKiB));
  const zkp_buffer mid = take(*pool, 128 * kKiB);
  for (const zkp_buffer& b : small) REQUIRE(pool->release(b).ok());
  REQUIRE(pool->release(mid).ok());
  CHECK(pool->stats().held_bytes == 512 * kKiB);  // all cached
  // 256 KiB needs 256 KiB of room: the 128 KiB block and two 64 KiB blocks suffice.
  const zkp_buffer big = take(*pool, 256 * kKiB);
  CHECK(counters->frees == 3);
  CHECK(counters->max_live_bytes <= 512 * kKiB);
  const zkp_memory_stats s = pool->stats();
  CHECK(s.held_bytes == 512 * kKiB);
  CHECK(s.in_use_bytes == 256 * kKiB);
  CHECK(s.high_water_bytes == 512 * kKiB);
  // The four 64 KiB blocks left are still reused.
  for (int i = 0; i < 4; ++i) (void)take(*pool, 64 * kKiB);
  CHECK(pool->stats().reuses == 4);
  REQUIRE(pool->release(big).ok());
}

TEST_CASE("BufferPool: preallocated blocks serve the first requests", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  const uint64_t bytes[] = {64 * kKiB, 1 * kMiB};
  const uint32_t count[] = {3, 1};
  zkp_memory_options o = make_options(2 * kMiB, ZKP_ON_CAP_FAIL);
  o.prealloc_bytes = bytes;
  o.prealloc_count = count;
  o.prealloc_entries = 2;
  {
    auto pool = make_pool(o, counters);
    CHECK(counters->allocations == 4);
    CHECK(pool->stats().held_bytes == 3 * 64 * kKiB + 1 * kMiB);
    (void)take(*pool, 1 * kMiB);
    (void)take(*pool, 10 * kKiB);
    CHECK(pool->stats().reuses == 2);
    CHECK(pool->stats().allocations == 4);
  }
  CHECK(counters->live_bytes == 0);  // the destructor frees buffers in use and cached

  SECTION("beyond the cap it is an error from create") {
    o.cap_bytes = 1 * kMiB;
    auto pool = BufferPool::create(std::make_unique<MallocAllocator>(counters), o);
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.status().code() == Code::kResourceExhausted);
    CHECK_THAT(pool.status().message(), Catch::Contains("preallocation entry 1"));
  }
  SECTION("a failed preallocation is an error and leaks nothing") {
    auto pool =
        BufferPool::create(std::make_unique<FaultyAllocator>(counters, std::set<uint64_t>{3}), o);
    REQUIRE_FALSE(pool.ok());
    CHECK(pool.status().code() == Code::kResourceExhausted);
    CHECK_THAT(pool.status().message(),
               Catch::Contains("preallocating buffer 3 of 3") && Catch::Contains("injected fault"));
    CHECK(counters->live_bytes == 0);
  }
}

TEST_CASE("BufferPool: a foreign or already released buffer is refused", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool =
      make_pool(make_options(1 * kMiB, ZKP_ON_CAP_FAIL), counters, ZKP_BUFFER_DEVICE_MAPPED);
  const zkp_buffer a = take(*pool, 64 * kKiB);
  CHECK(a.device_ptr != nullptr);
  CHECK(a.flags == ZKP_BUFFER_DEVICE_MAPPED);
  const zkp_memory_stats before = pool->stats();

  int on_stack = 0;
  const zkp_buffer foreign{&on_stack, nullptr, 64 * kKiB, 0, 0};
  Status s = pool->release(foreign);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("not a buffer this pool handed out"));

  zkp_buffer wrong_size = a;
  wrong_size.bytes = 128 * kKiB;
  CHECK(pool->release(wrong_size).code() == Code::kInvalidArgument);
  zkp_buffer wrong_device = a;
  wrong_device.device_ptr = nullptr;
  CHECK(pool->release(wrong_device).code() == Code::kInvalidArgument);

  const zkp_memory_stats after = pool->stats();
  CHECK(after.in_use_bytes == before.in_use_bytes);
  CHECK(after.releases == before.releases);

  REQUIRE(pool->release(a).ok());
  s = pool->release(a);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("already released"));
  CHECK(pool->stats().releases == 1);
  CHECK(pool->stats().in_use_bytes == 0);
  // The pool still works, and the block is reused exactly once.
  const zkp_buffer b = take(*pool, 64 * kKiB);
  CHECK(b.host_ptr == a.host_ptr);
  auto c = pool->allocate(64 * kKiB);
  REQUIRE(c.ok());
  CHECK(c->host_ptr != b.host_ptr);
}

TEST_CASE("BufferPool: an allocator failure is reported, counted, and the pool stays usable",
          "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto made =
      BufferPool::create(std::make_unique<FaultyAllocator>(counters, std::set<uint64_t>{2, 3}),
                         make_options(256 * kKiB, ZKP_ON_CAP_FAIL));
  REQUIRE(made.ok());
  BufferPool& pool = **made;
  const zkp_buffer a = take(pool, 128 * kKiB);
  auto failed = pool.allocate(96 * kKiB);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == Code::kResourceExhausted);
  CHECK_THAT(failed.status().message(), Catch::Contains("injected fault: allocation #2"));
  CHECK_FALSE(pool.allocate(64 * kKiB).ok());  // #3
  zkp_memory_stats s = pool.stats();
  CHECK(s.failures == 2);
  CHECK(s.held_bytes == 128 * kKiB);  // both reservations rolled back
  // The room reserved for the failed requests is usable again: the cap is reachable.
  const zkp_buffer b = take(pool, 128 * kKiB);
  s = pool.stats();
  CHECK(s.held_bytes == 256 * kKiB);
  CHECK(s.allocations == 2);
  REQUIRE(pool.release(a).ok());
  REQUIRE(pool.release(b).ok());
}

TEST_CASE("BufferPool: statistics add up", "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  auto pool = make_pool(make_options(1 * kMiB, ZKP_ON_CAP_FAIL), counters);
  std::vector<zkp_buffer> held;
  uint64_t served = 0, failed = 0, released = 0;
  for (uint64_t i = 1; i <= 40; ++i) {
    auto got = pool->allocate((i * 37 % 9 + 1) * 31 * kKiB);
    if (got.ok()) {
      ++served;
      held.push_back(*got);
    } else {
      ++failed;
    }
    if (i % 3 == 0 && !held.empty()) {
      REQUIRE(pool->release(held.front()).ok());
      held.erase(held.begin());
      ++released;
    }
    const zkp_memory_stats s = pool->stats();
    CHECK(s.struct_size == sizeof(zkp_memory_stats));
    CHECK(s.cap_bytes == 1 * kMiB);
    CHECK(s.in_use_bytes <= s.held_bytes);
    CHECK(s.held_bytes <= s.high_water_bytes);
    CHECK(s.high_water_bytes <= s.cap_bytes);
    CHECK(s.held_bytes == counters->live_bytes);
    CHECK(s.allocations + s.reuses == served);
    CHECK(s.failures == failed);
    CHECK(s.releases == released);
    CHECK(s.allocations == counters->allocations);
  }
  CHECK(failed > 0);
  CHECK(pool->allocate(0).status().code() == Code::kInvalidArgument);
  CHECK(pool->stats().failures == failed + 1);
  for (const zkp_buffer& b : held) REQUIRE(pool->release(b).ok());
  CHECK(pool->stats().in_use_bytes == 0);
}

TEST_CASE("BufferPool: options are validated", "[pool]") {
  zkp_memory_options o = make_options(1 * kMiB, ZKP_ON_CAP_FAIL);
  CHECK(validate_options(&o, false).ok());
  CHECK(validate_options(nullptr, true).code() == Code::kInvalidArgument);
  zkp_memory_options bad = o;
  bad.struct_size = 8;
  CHECK(validate_options(&bad, true).code() == Code::kInvalidArgument);
  bad = o;
  bad.cap_bytes = 0;
  CHECK(validate_options(&bad, true).message() == "cap_bytes must be greater than 0");
  bad = o;
  bad.on_cap = 7;
  CHECK(validate_options(&bad, true).code() == Code::kInvalidArgument);
  bad = o;
  bad.huge_pages = 1;
  CHECK(validate_options(&bad, true).ok());
  CHECK(validate_options(&bad, false).message() ==
        "huge_pages is supported only by the pageable backend");
  bad = o;
  bad.prealloc_entries = 1;
  CHECK(validate_options(&bad, true).code() == Code::kInvalidArgument);
  const uint64_t zero[] = {0};
  const uint32_t one[] = {1};
  bad.prealloc_bytes = zero;
  bad.prealloc_count = one;
  CHECK_THAT(validate_options(&bad, true).message(), Catch::Contains("prealloc_bytes[0] is 0"));
  auto counters = std::make_shared<AllocatorCounters>();
  CHECK_FALSE(BufferPool::create(std::make_unique<MallocAllocator>(counters), bad).ok());
}

TEST_CASE("BufferPool: the plugins' self-test passes on a sound allocator, names a fault",
          "[pool]") {
  auto counters = std::make_shared<AllocatorCounters>();
  SelfTestExpectations plain;
  CHECK(run_self_test(std::make_unique<MallocAllocator>(counters), plain).ok());
  SelfTestExpectations mapped;
  mapped.flags = ZKP_BUFFER_DEVICE_MAPPED;
  int checked = 0;
  mapped.check_buffer = [&](const zkp_buffer& b) {
    ++checked;
    return b.device_ptr != nullptr ? ok_status() : internal_error("no device pointer");
  };
  CHECK(run_self_test(std::make_unique<MallocAllocator>(counters, ZKP_BUFFER_DEVICE_MAPPED), mapped)
            .ok());
  CHECK(checked == 6);
  CHECK(counters->live_bytes == 0);

  SelfTestExpectations pinned;
  pinned.flags = ZKP_BUFFER_PINNED;
  Status s = run_self_test(std::make_unique<MallocAllocator>(counters), pinned);
  CHECK(s.code() == Code::kInternal);
  CHECK_THAT(s.message(), Catch::StartsWith("self-test: allocate: flags are 0"));
  plain.check_buffer = [](const zkp_buffer&) { return internal_error("not page-locked"); };
  s = run_self_test(std::make_unique<MallocAllocator>(counters), plain);
  CHECK_THAT(s.message(), Catch::Contains("backend check: INTERNAL: not page-locked"));
  s = run_self_test(std::make_unique<FaultyAllocator>(counters, std::set<uint64_t>{3}),
                    SelfTestExpectations{});
  CHECK_THAT(s.message(), Catch::Contains("injected fault: allocation #3"));
  CHECK(counters->live_bytes == 0);
}
