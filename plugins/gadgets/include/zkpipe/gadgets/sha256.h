// zkpipe/gadgets/sha256.h: SHA-256 (FIPS 180-4), natively (whole messages through OpenSSL's EVP
// API; the bare compression function by hand) and in circuit over Booleans. In-circuit bit order
// is SHA-256's: byte-major, each byte most significant bit first. A compression with variable
// state and block costs 26,282 constraints; constant state or block words fold away.
// Thread-safety: pure functions; circuit functions take the calling thread's ConstraintSystem.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/gadgets/uint32.h"
#include "zkpipe/groth16/sectioned_file.h"

namespace zkpipe::gadgets {

// The initial hash value H(0).
extern const std::array<uint32_t, 8> kSha256Iv;

// Native: whole messages through OpenSSL's libcrypto, the one the file formats use.
using groth16::sha256;
// One compression of a 64-byte block into state.
void sha256_compress(std::array<uint32_t, 8>& state, const uint8_t block[64]);

// In circuit. block_bits: 512 bits, word j = bits [32j, 32j + 32) most significant first.
std::array<UInt32, 8> sha256_compress(ConstraintSystem& cs, const std::array<UInt32, 8>& state,
                                      std::span<const Boolean> block_bits);
// The digest (256 bits, byte-major, MSB first) of a message of whole bytes (message_bits.size()
// a multiple of 8); the padding is appended as constants.
std::vector<Boolean> sha256(ConstraintSystem& cs, std::span<const Boolean> message_bits);

}  // namespace zkpipe::gadgets
