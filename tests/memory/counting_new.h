// tests/memory/counting_new.h: every operator new of the zkpipe_memory_tests binary is counted
// (counting_new.cpp replaces the global allocation functions), so a test can measure the most
// heap memory a call holds at once beyond what was live before it.
// Thread-safety: the counters are atomics; a measurement covers every thread of the process.
#pragma once

#include <cstdint>

namespace zkpipe::test {

// Starts a measurement: the peak is reset to the bytes live now.
void reset_heap_peak();
// Bytes live now, and the most live since reset_heap_peak().
uint64_t heap_live_bytes();
uint64_t heap_peak_bytes();

// The peak growth of the live heap while fn() runs (what it allocated at most at once).
template <typename F>
uint64_t heap_peak_during(F&& fn) {
  reset_heap_peak();
  const uint64_t before = heap_live_bytes();
  fn();
  return heap_peak_bytes() - before;
}

}  // namespace zkpipe::test
