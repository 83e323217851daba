// sdk_arena: an example out-of-tree memory backend built against the installed SDK only.
// Aligned heap buffers, a byte cap enforced with an atomic counter (on_cap = fail semantics;
// it never waits), no reuse. Shows the shape of a plugin: guard every entry point, export
// one table. Thread-safety: allocate/release/stats are thread-safe (atomics only).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "zkpipe/sdk/sdk.h"

namespace {

constexpr uint64_t kAlignment = 4096;  // page alignment: what DMA engines and huge pages like

struct Arena {
  uint64_t cap = 0;
  std::atomic<uint64_t> in_use{0}, high_water{0}, allocations{0}, releases{0}, failures{0};
};

zkp_status init(const zkp_host* host, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] { zkpipe::sdk::set_host(host); });
}

zkp_status create(const zkp_memory_options* o, zkp_memory_pool** out, zkp_error err) {
  return zkpipe::sdk::guard(err, [&]() -> zkpipe::Status {
    if (o == nullptr || o->struct_size < sizeof(zkp_memory_options) || o->cap_bytes == 0) {
      return zkpipe::invalid_argument("sdk_arena: options missing or cap is 0");
    }
    if (o->huge_pages) return zkpipe::invalid_argument("sdk_arena: huge_pages is not supported");
    auto* a = new Arena;
    a->cap = o->cap_bytes;
    *out = reinterpret_cast<zkp_memory_pool*>(a);
    return zkpipe::ok_status();
  });
}

void destroy(zkp_memory_pool* p) {
  delete reinterpret_cast<Arena*>(p);
}

zkp_status allocate(zkp_memory_pool* p, uint64_t bytes, zkp_buffer* out, zkp_error err) {
  return zkpipe::sdk::guard(err, [&]() -> zkpipe::Status {
    auto* a = reinterpret_cast<Arena*>(p);
    const uint64_t size = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    uint64_t prev = a->in_use.fetch_add(size);
    if (size == 0 || prev + size > a->cap) {
      a->in_use.fetch_sub(size);
      a->failures++;
      return zkpipe::resource_exhausted("sdk_arena: " + std::to_string(bytes) +
                                        " bytes would exceed the cap of " + std::to_string(a->cap));
    }
    void* mem = std::aligned_alloc(kAlignment, size);
    if (mem == nullptr) {
      a->in_use.fetch_sub(size);
      a->failures++;
      return zkpipe::resource_exhausted("sdk_arena: aligned_alloc failed");
    }
    uint64_t hw = a->high_water.load();
    while (prev + size > hw && !a->high_water.compare_exchange_weak(hw, prev + size)) {
    }
    a->allocations++;
    *out = zkp_buffer{mem, nullptr, size, 0, 0};
    return zkpipe::ok_status();
  });
}

zkp_status release(zkp_memory_pool* p, const zkp_buffer* b, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] {
    auto* a = reinterpret_cast<Arena*>(p);
    std::free(b->host_ptr);
    a->in_use.fetch_sub(b->bytes);
    a->releases++;
  });
}

zkp_status stats(zkp_memory_pool* p, zkp_memory_stats* out, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] {
    auto* a = reinterpret_cast<Arena*>(p);
    zkp_memory_stats s{};
    s.struct_size = sizeof s;
    s.cap_bytes = a->cap;
    s.in_use_bytes = s.held_bytes = a->in_use.load();
    s.high_water_bytes = a->high_water.load();
    s.allocations = a->allocations.load();
    s.releases = a->releases.load();
    s.failures = a->failures.load();
    *out = s;
  });
}

zkp_status self_test(zkp_error err) {
  return zkpipe::sdk::guard(err, [&]() -> zkpipe::Status {
    zkp_memory_options o{};
    o.struct_size = sizeof o;
    o.cap_bytes = 1 << 20;
    zkp_memory_pool* p = nullptr;
    if (create(&o, &p, err) != ZKP_OK) return zkpipe::internal_error("self-test: create failed");
    zkp_buffer b{};
    zkp_status rc = allocate(p, 100000, &b, err);
    if (rc == ZKP_OK) {
      std::memset(b.host_ptr, 0x5a, b.bytes);
      rc = release(p, &b, err);
    }
    zkp_buffer too_big{};
    const bool cap_held =
        allocate(p, 2 << 20, &too_big, zkp_error{nullptr, 0}) == ZKP_ERR_RESOURCE_EXHAUSTED;
    destroy(p);
    if (rc != ZKP_OK) return zkpipe::internal_error("self-test: allocate/release failed");
    if (!cap_held) return zkpipe::internal_error("self-test: the cap was not enforced");
    return zkpipe::ok_status();
  });
}

}  // namespace

ZKP_EXPORT_PLUGIN(zkp_memory_backend) = {
    zkpipe::sdk::header<zkp_memory_backend>(ZKP_KIND_MEMORY, "sdk_arena", "1.2.3", ZKP_BUILD_TAG,
                                            init, self_test),
    create,
    destroy,
    allocate,
    release,
    stats};
