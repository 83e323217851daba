// tests/memory/counting_new.cpp: replaces the global operator new and delete (all forms) with
// malloc and free that count the usable size of each block (malloc_usable_size), keeping the
// live total and its peak. Only in zkpipe_memory_tests.
#include "counting_new.h"

#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

std::atomic<uint64_t> live{0};
std::atomic<uint64_t> peak{0};

void* counted(std::size_t bytes, std::size_t align) {
  if (bytes == 0) bytes = 1;
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(bytes);
  } else if (posix_memalign(&p, align, bytes) != 0) {
    p = nullptr;
  }
  if (p == nullptr) throw std::bad_alloc();
  const uint64_t now = live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  uint64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  return p;
}

void uncounted(void* p) noexcept {
  if (p == nullptr) return;
  live.fetch_sub(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

namespace zkpipe::test {
void reset_heap_peak() {
  peak.store(live.load());
}
uint64_t heap_live_bytes() {
  return live.load();
}
uint64_t heap_peak_bytes() {
  return peak.load();
}
}  // namespace zkpipe::test

void* operator new(std::size_t n) {
  return counted(n, 0);
}
void* operator new[](std::size_t n) {
  return counted(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return counted(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return counted(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n, 0);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept {
  uncounted(p);
}
void operator delete[](void* p) noexcept {
  uncounted(p);
}
void operator delete(void* p, std::size_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  uncounted(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  uncounted(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  uncounted(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  uncounted(p);
}
