// zkpipe/filecoin_circuit/sha256.h: SHA-256 in circuit exactly as bellperson synthesizes it
// (bellperson gadgets/sha256.rs, uint32.rs, multieq.rs over bellpepper-core's Boolean), and
// Filecoin's Sha256Hasher circuits on it (filecoin-hashers sha256.rs: hash_circuit,
// hash2_circuit, hash_multi_leaf_circuit). The order of allocations and constraints is the
// contract with Filecoin's .params:
//   - Boolean ops fold constants case by case as bellpepper-core does (xor, and, sha256_ch,
//     sha256_maj: maj allocates its result before b AND c);
//   - UInt32::addmany allocates the bits of the full sum (carries included), each with its
//     boolean constraint, and hands the equality to a MultiEq, which packs equalities into one
//     constraint lhs * 1 = rhs until Fr::CAPACITY bits would overflow, and flushes the rest when
//     the compression ends;
//   - a compression defers the additions of a and e, as bellperson does.
// A compression of 512 allocated bits under the IV costs 25,840 constraints; a padded 512-bit
// message 44,874 (bellperson's tests). Library zkpipe::filecoin_circuit.
// Thread-safety: functions take the ConstraintSystem of the calling thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/filecoin_circuit/gadgets.h"

namespace zkpipe::filecoin_circuit {

// bellpepper-core Boolean::xor, Boolean::and, Boolean::sha256_ch (a ? b : c) and
// Boolean::sha256_maj, with their constant folding.
Boolean bool_xor(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
Boolean bool_and(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
Boolean sha256_ch(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c);
Boolean sha256_maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c);

// bellperson's MultiEq: equalities of `num_bits`-bit quantities packed into one constraint
// (sum 2^offset lhs) * 1 = (sum 2^offset rhs). flush() emits what is pending (the Rust Drop).
class MultiEq {
 public:
  explicit MultiEq(ConstraintSystem& cs) : cs_(cs) {}
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;
  ~MultiEq() { flush(); }

  ConstraintSystem& cs() { return cs_; }
  void enforce_equal(uint32_t num_bits, const LinearCombination& lhs, const LinearCombination& rhs);
  void flush();

 private:
  void accumulate();

  ConstraintSystem& cs_;
  uint32_t bits_used_ = 0;
  LinearCombination lhs_, rhs_;
};

// bellperson's UInt32: 32 Booleans, least significant first, and the value.
class UInt32 {
 public:
  UInt32() = default;  // constant 0
  static UInt32 constant(uint32_t v);
  static UInt32 from_bits_be(std::span<const Boolean> bits);  // 32 bits, most significant first
  uint32_t value() const { return value_; }
  const std::array<Boolean, 32>& bits_le() const { return bits_; }
  void append_bits_be(std::vector<Boolean>& out) const;

  UInt32 rotr(unsigned by) const;
  UInt32 shr(unsigned by) const;
  UInt32 xor_with(ConstraintSystem& cs, const UInt32& other) const;
  static UInt32 ch(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c);
  static UInt32 maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c);
  // The sum mod 2^32 of 2 to 10 operands; all-constant operands fold to a constant.
  static UInt32 addmany(MultiEq& meq, std::span<const UInt32> operands);

 private:
  std::array<Boolean, 32> bits_{};
  uint32_t value_ = 0;
};

// sha256_compression_function: 512 bits (word j = bits [32j, 32j + 32), most significant
// first) into the state; returns the new state.
std::array<UInt32, 8> sha256_compress(ConstraintSystem& cs, std::span<const Boolean> block,
                                      const std::array<UInt32, 8>& state);
// sha256 (bellperson): a message of whole bytes (bits in SHA-256's order: bytes in order, each most
// significant bit first), padded with constants; the 256 digest bits in the same order.
std::vector<Boolean> sha256_message(ConstraintSystem& cs, std::span<const Boolean> message);

// AllocatedNum::to_bits_le: the 255 bits of n allocated least significant first (each with its
// boolean constraint), then 0 * 0 = sum 2^i b_i - n. Not strict: the bits are not range-checked
// against the modulus, as in bellpepper.
std::vector<Boolean> num_to_bits_le(ConstraintSystem& cs, const Num& n);
// multipack::pack_bits: the first 254 bits packed (least significant first) into a new
// allocated number x, with (sum 2^i b_i) * 1 = x.
Num pack_bits(ConstraintSystem& cs, std::span<const Boolean> bits);

// Sha256Hasher circuits: the digest of `bits` with its bytes' bit order reversed, truncated to
// 254 bits and packed (hash_circuit); of two numbers' 256-bit little-endian encodings
// (hash2_circuit: both to_bits_le first, then the hash); of several leaves
// (hash_multi_leaf_circuit: each leaf's bits allocated just before the next).
Num sha256_hash_bits(ConstraintSystem& cs, std::span<const Boolean> bits);
Num sha256_hash2(ConstraintSystem& cs, const Num& a, const Num& b);
Num sha256_hash_leaves(ConstraintSystem& cs, std::span<const Num> leaves);

}  // namespace zkpipe::filecoin_circuit
