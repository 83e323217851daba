// zkpipe/filecoin/hashes.h: Filecoin's byte-level hashing. A Domain is 32 bytes, a BLS12-381 Fr
// in little-endian order (as rust-fil-proofs' Domain types keep it); SHA-256 "truncated to 254
// bits" clears the top two bits of byte 31 so every digest is a canonical Fr; fr32 padding
// spreads every 254 bits of data over 32 bytes (two zero bits on top); BLAKE2b-512 (OpenSSL's)
// is the digest parameters.json gives for Filecoin's parameter files.
// Library zkpipe::filecoin. Thread-safety: pure functions; a Blake2b512 is one thread's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::filecoin {

using crypto::Fr;
using Domain = std::array<uint8_t, 32>;

// The Fr a domain encodes; INVALID_ARGUMENT naming `what` when it is not canonical (>= r).
Result<Fr> fr_from_domain(const Domain& d, const std::string& what = "domain");
Domain domain_from_fr(const Fr& x);

// The value of one hex digit (either case), or -1 (bytes are written as hex by zkpipe::to_hex,
// zkpipe/sdk/sha256.h).
int hex_digit(char c);

// SHA-256 of `bytes` with the two top bits of byte 31 cleared (Filecoin's Sha256Domain hash).
Domain sha256_trunc254(std::span<const uint8_t> bytes);
// The same over left || right: one node of a SHA-256 Merkle tree (comm_d).
Domain sha256_trunc254_pair(const Domain& left, const Domain& right);

// fr32: every 127 bytes of data become 128 bytes (4 Fr), bit for bit: input bit i (bit i % 8 of
// byte i / 8) goes to output chunk i / 254, bit i % 254; the chunks' two top bits are zero. The
// last, partial 127-byte group is padded as if it were followed by zero bits, to whole 32-byte
// chunks (so fr32_pad of n bytes is ceil(8 n / 254) * 32 bytes).
std::vector<uint8_t> fr32_pad(std::span<const uint8_t> data);
// The inverse: `bytes_out` data bytes from fr32-padded `padded`. INVALID_ARGUMENT when a chunk's
// top two bits are set (naming the chunk's offset) or `padded` is too short.
Result<std::vector<uint8_t>> fr32_unpad(std::span<const uint8_t> padded, size_t bytes_out);
// The padded size of an unpadded piece size (127 -> 128) and back; 0 unless a multiple of 127/128.
uint64_t padded_piece_size(uint64_t unpadded);
uint64_t unpadded_piece_size(uint64_t padded);

inline constexpr size_t kBlake2b512Bytes = 64;
using Blake2b512Digest = std::array<uint8_t, kBlake2b512Bytes>;

// BLAKE2b-512 over pieces (a parameter file is read in chunks). Throws std::runtime_error when
// OpenSSL fails (it does not for in-memory input).
class Blake2b512 {
 public:
  Blake2b512();
  ~Blake2b512();
  Blake2b512(const Blake2b512&) = delete;
  Blake2b512& operator=(const Blake2b512&) = delete;
  void update(const void* data, size_t bytes);
  Blake2b512Digest finish();  // and starts over

 private:
  struct Ctx;
  Ctx* ctx_;
};

Blake2b512Digest blake2b512(std::span<const uint8_t> bytes);

}  // namespace zkpipe::filecoin
