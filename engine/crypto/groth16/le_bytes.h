// groth16/le_bytes.h (internal to zkpipe_groth16): little-endian integer loads and stores for the
// file formats (byte by byte, so any alignment is fine) and `cat`, which streams its arguments
// into one message string. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace zkpipe::groth16::detail {

template <typename... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

inline uint64_t load_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline void store_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(load_le(p, 4));
}
inline uint64_t load_u64(const uint8_t* p) {
  return load_le(p, 8);
}
inline void store_u32(uint8_t* p, uint32_t v) {
  store_le(p, v, 4);
}
inline void store_u64(uint8_t* p, uint64_t v) {
  store_le(p, v, 8);
}

}  // namespace zkpipe::groth16::detail
