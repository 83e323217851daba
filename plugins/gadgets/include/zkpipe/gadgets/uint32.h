// zkpipe/gadgets/uint32.h: a 32-bit word in circuit: 32 Booleans (little-endian: bit i has
// weight 2^i) and its native value. Rotations and shifts are free; xor, ch and maj are per-bit
// Boolean ops; addmany sums several words mod 2^32 with one packing constraint plus one boolean
// constraint per result bit (carries included). Constants fold everywhere.
// Thread-safety: values; the static functions take the ConstraintSystem of the calling thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/gadgets/boolean.h"

namespace zkpipe::gadgets {

class UInt32 {
 public:
  UInt32() = default;  // constant 0

  static UInt32 constant(uint32_t v);
  // 32 allocated bits (32 constraints).
  static UInt32 alloc(ConstraintSystem& cs, uint32_t v);
  // 32 bits, most significant first (as SHA-256 reads a word) or least significant first.
  static UInt32 from_bits_be(std::span<const Boolean> bits);
  static UInt32 from_bits_le(std::span<const Boolean> bits);

  uint32_t value() const { return value_; }
  const std::array<Boolean, 32>& bits_le() const { return bits_; }
  // Appends the 32 bits most significant first.
  void append_bits_be(std::vector<Boolean>& out) const;
  std::vector<Boolean> to_bits_be() const;
  bool is_constant() const;

  UInt32 rotr(unsigned n) const;
  UInt32 shr(unsigned n) const;

  static UInt32 xor_(ConstraintSystem& cs, const UInt32& a, const UInt32& b);
  static UInt32 xor3(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c);
  static UInt32 ch(ConstraintSystem& cs, const UInt32& e, const UInt32& f, const UInt32& g);
  static UInt32 maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c);
  // The sum mod 2^32. The result (carries included) has as many bits as the largest possible
  // sum needs; each is allocated with its boolean constraint, and one constraint ties them to
  // the operands. All-constant operands fold to a constant (no constraint).
  static UInt32 addmany(ConstraintSystem& cs, std::span<const UInt32> operands);
  // The same over pointers (no copies of the words).
  static UInt32 addmany(ConstraintSystem& cs, std::span<const UInt32* const> operands);

 private:
  std::array<Boolean, 32> bits_{};
  uint32_t value_ = 0;
};

}  // namespace zkpipe::gadgets
