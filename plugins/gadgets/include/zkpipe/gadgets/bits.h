// zkpipe/gadgets/bits.h: field elements to and from bits, in circuit and natively, and the
// Filecoin conventions between field elements and SHA-256 byte streams: an element is hashed as
// its 32-byte little-endian encoding (each byte's bits fed most-significant first), and a digest
// becomes an element by reading it little-endian after clearing its top two bits (254 bits).
// Bit vectors here are little-endian (bit i has weight 2^i) unless named "sha".
// Thread-safety: pure functions; circuit functions take the calling thread's ConstraintSystem.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/gadgets/boolean.h"

namespace zkpipe::gadgets {

// 2^i as a field element, i < 256 (a table built on first use).
const Fr& fr_pow2(size_t i);

// The nbits (<= 254) low bits of x, allocated, with one packing constraint sum 2^i b_i = x
// (so x < 2^nbits is enforced). nbits + 1 constraints.
std::vector<Boolean> to_bits_le(ConstraintSystem& cs, const Num& x, size_t nbits);
// All 255 bits of x, also enforcing that they encode the canonical integer (< r): 432
// constraints.
std::vector<Boolean> to_bits_le_strict(ConstraintSystem& cs, const Num& x);
// A new Num equal to sum 2^i bits[i] (bits.size() <= 254): one constraint.
Num pack_bits_le(ConstraintSystem& cs, std::span<const Boolean> bits);

// Free: the SHA-256 input bits of the 32-byte little-endian encoding of the integer whose
// little-endian bits are given (<= 256; missing high bits are constant false).
std::vector<Boolean> bits_le_to_sha_bytes(std::span<const Boolean> bits);
// The 256 digest bits (byte-major, each byte MSB first) read as a little-endian integer with
// the top two bits cleared, packed into a new Num: one constraint.
Num sha_digest_to_num(ConstraintSystem& cs, std::span<const Boolean> digest_bits);

// Native twins.
std::array<uint8_t, 32> fr_to_le_bytes(const Fr& x);
// Rejects (INVALID_ARGUMENT) an encoding of an integer >= r.
Result<Fr> fr_from_le_bytes(std::span<const uint8_t, 32> bytes);
Fr fr_from_sha_digest(const std::array<uint8_t, 32>& digest);

namespace detail {
// to_bits_le_strict with the bits taken from `integer` (< 2^255) instead of x's canonical value:
// lets tests check that a non-canonical encoding (r + k) leaves the circuit unsatisfied.
std::vector<Boolean> to_bits_le_strict_from(ConstraintSystem& cs, const Num& x,
                                            const crypto::Limbs<4>& integer);
}  // namespace detail

}  // namespace zkpipe::gadgets
