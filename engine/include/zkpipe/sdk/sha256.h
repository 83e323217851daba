// zkpipe/sdk/sha256.h: SHA-256 through OpenSSL's libcrypto, the one helper every layer uses
// (params and sector files' section digests, request digests in the engine and the job stores,
// the gadgets' native hashes): a whole message, a stream, and the lower-case hex of a digest.
// Library zkpipe::files. Thread-safety: sha256() and to_hex() are pure; a Sha256 is one
// thread's at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace zkpipe {

inline constexpr size_t kSha256Bytes = 32;
using Sha256Digest = std::array<uint8_t, kSha256Bytes>;

// Throws std::runtime_error when OpenSSL fails (it allocates nothing for a one-shot digest).
Sha256Digest sha256(std::span<const uint8_t> bytes);

// Lower-case hex, two digits a byte.
std::string to_hex(std::span<const uint8_t> bytes);

// A digest over pieces: update() as often as needed, finish() returns it and starts over.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t bytes);
  Sha256Digest finish();

 private:
  struct Ctx;
  Ctx* ctx_;
};

}  // namespace zkpipe
