// zkpipe/sdk/clock.h: the one clock of the tree for timings: now_ns(), nanoseconds on the monotonic
// clock (std::chrono::steady_clock; only differences mean anything), and the time elapsed since
// such a reading in seconds or milliseconds. Deadlines stay std::chrono::steady_clock time points,
// made with saturating_after.
// Header-only. Thread-safety: reads of the clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace zkpipe {

// Nanoseconds on the monotonic clock. Signed, as the clock's own count, so that a difference of
// two readings taken in either order is well defined.
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Seconds and milliseconds since `start_ns`, a now_ns() reading.
inline double seconds_since(int64_t start_ns) {
  return static_cast<double>(now_ns() - start_ns) / 1e9;
}
inline double ms_since(int64_t start_ns) {
  return static_cast<double>(now_ns() - start_ns) / 1e6;
}

// `t + d` on `t`'s clock, saturated: a duration past the clock's range (a client's timeout of
// 2^63-1 ms) gives the clock's latest time point instead of wrapping into the past; a negative
// one is taken as 0.
template <class TimePoint>
TimePoint saturating_after(TimePoint t, std::chrono::milliseconds d) {
  using Duration = typename TimePoint::duration;
  if (d.count() <= 0) return t;
  const auto max_left = TimePoint::max() - t;  // t is a clock reading, so this does not overflow
  if (d >= std::chrono::duration_cast<std::chrono::milliseconds>(max_left)) return TimePoint::max();
  return t + std::chrono::duration_cast<Duration>(d);
}

}  // namespace zkpipe
