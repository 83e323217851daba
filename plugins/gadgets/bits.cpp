// gadgets/bits.cpp: bit decomposition and packing of field elements, the strict (canonical)
// decomposition, and the Filecoin field-element <-> SHA-256 byte conventions.
#include "zkpipe/gadgets/bits.h"

#include <algorithm>
#include <cassert>

namespace zkpipe::gadgets {
namespace {

bool limb_bit(const crypto::Limbs<4>& v, size_t i) {
  return ((v[i / 64] >> (i % 64)) & 1) != 0;
}

// sum 2^i bits[i] = target (one constraint).
void enforce_packing(ConstraintSystem& cs, std::span<const Boolean> bits, Variable target) {
  cs.enforce_with(
      [&](LinearCombination& l) {
        for (size_t i = 0; i < bits.size(); ++i) bits[i].add_to(l, fr_pow2(i));
      },
      [](LinearCombination& l) { l = LinearCombination(Variable::one()); },
      [&](LinearCombination& l) { l = LinearCombination(target); });
}

}  // namespace

const Fr& fr_pow2(size_t i) {
  static const std::array<Fr, 256> kTable = [] {
    std::array<Fr, 256> t;
    t[0] = Fr::one();
    for (size_t k = 1; k < t.size(); ++k) t[k] = t[k - 1].dbl();
    return t;
  }();
  assert(i < kTable.size());
  return kTable[i];
}

std::vector<Boolean> to_bits_le(ConstraintSystem& cs, const Num& x, size_t nbits) {
  assert(nbits <= 254);
  const crypto::Limbs<4> v = x.value.to_canonical();
  std::vector<Boolean> bits;
  bits.reserve(nbits);
  for (size_t i = 0; i < nbits; ++i) bits.push_back(Boolean::alloc(cs, limb_bit(v, i)));
  enforce_packing(cs, bits, x.var);
  return bits;
}

std::vector<Boolean> to_bits_le_strict(ConstraintSystem& cs, const Num& x) {
  return detail::to_bits_le_strict_from(cs, x, x.value.to_canonical());
}

std::vector<Boolean> detail::to_bits_le_strict_from(ConstraintSystem& cs, const Num& x,
                                                    const crypto::Limbs<4>& integer) {
  constexpr size_t kBits = Fr::kBits;  // 255
  std::vector<Boolean> bits;
  bits.reserve(kBits);
  for (size_t i = 0; i < kBits; ++i) bits.push_back(Boolean::alloc(cs, limb_bit(integer, i)));
  enforce_packing(cs, bits, x.var);

  // bits <= m = r - 1, scanning down from the top. `eq` says the bits above the current
  // position equal m's. Where m has a run of zeros, eq * (sum of the run's bits) = 0 (a sum of
  // at most 255 bits cannot wrap); eq is then unchanged. Where m has a run of ones, eq becomes
  // eq & bits (one AND per bit), needed only while zeros of m remain below.
  const crypto::Limbs<4> m = Fr::kPMinus1;
  size_t lowest_zero = 0;
  while (limb_bit(m, lowest_zero)) ++lowest_zero;
  Boolean eq = Boolean::constant(true);
  size_t i = kBits;
  while (i > lowest_zero) {
    const size_t top = i - 1;
    const bool one = limb_bit(m, top);
    size_t bottom = top;
    while (bottom > 0 && limb_bit(m, bottom - 1) == one) --bottom;
    if (one) {
      for (size_t k = top + 1; k-- > bottom;) eq = Boolean::and_(cs, eq, bits[k]);
    } else {
      cs.enforce_with([&](LinearCombination& l) { eq.add_to(l, Fr::one()); },
                      [&](LinearCombination& l) {
                        for (size_t k = bottom; k <= top; ++k) bits[k].add_to(l, Fr::one());
                      },
                      [](LinearCombination&) {});
    }
    i = bottom;
  }
  return bits;
}

Num pack_bits_le(ConstraintSystem& cs, std::span<const Boolean> bits) {
  assert(bits.size() <= 254);
  crypto::Limbs<4> v{};
  for (size_t i = 0; i < bits.size(); ++i) v[i / 64] |= uint64_t{bits[i].value()} << (i % 64);
  const Num out = Num::alloc(cs, Fr::from_canonical(v));
  enforce_packing(cs, bits, out.var);
  return out;
}

std::vector<Boolean> bits_le_to_sha_bytes(std::span<const Boolean> bits) {
  assert(bits.size() <= 256);
  std::vector<Boolean> out(256);
  for (size_t k = 0; k < 32; ++k) {
    for (size_t j = 0; j < 8; ++j) {
      const size_t idx = 8 * k + 7 - j;
      out[8 * k + j] = idx < bits.size() ? bits[idx] : Boolean::constant(false);
    }
  }
  return out;
}

Num sha_digest_to_num(ConstraintSystem& cs, std::span<const Boolean> digest_bits) {
  assert(digest_bits.size() == 256);
  std::array<Boolean, 254> le;
  for (size_t i = 0; i < le.size(); ++i) le[i] = digest_bits[8 * (i / 8) + 7 - i % 8];
  return pack_bits_le(cs, le);
}

std::array<uint8_t, 32> fr_to_le_bytes(const Fr& x) {
  std::array<uint8_t, 32> out;
  x.to_bytes_be(out.data());
  std::reverse(out.begin(), out.end());
  return out;
}

Result<Fr> fr_from_le_bytes(std::span<const uint8_t, 32> bytes) {
  std::array<uint8_t, 32> be;
  std::reverse_copy(bytes.begin(), bytes.end(), be.begin());
  return Fr::from_bytes_be(be.data());
}

Fr fr_from_sha_digest(const std::array<uint8_t, 32>& digest) {
  std::array<uint8_t, 32> d = digest;
  d[31] &= 0x3f;  // 254 bits: always below r
  return fr_from_le_bytes(d).value();
}

}  // namespace zkpipe::gadgets
