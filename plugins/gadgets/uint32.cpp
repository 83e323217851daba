// gadgets/uint32.cpp: 32-bit words in circuit. Values are computed with native uint32_t
// operations; bits are Boolean ops (constants fold); addmany allocates only the result bits.
#include "zkpipe/gadgets/uint32.h"

#include <bit>
#include <cassert>

#include "zkpipe/gadgets/bits.h"

namespace zkpipe::gadgets {

UInt32 UInt32::constant(uint32_t v) {
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) out.bits_[i] = Boolean::constant(((v >> i) & 1) != 0);
  out.value_ = v;
  return out;
}

UInt32 UInt32::alloc(ConstraintSystem& cs, uint32_t v) {
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) out.bits_[i] = Boolean::alloc(cs, ((v >> i) & 1) != 0);
  out.value_ = v;
  return out;
}

UInt32 UInt32::from_bits_le(std::span<const Boolean> bits) {
  assert(bits.size() == 32);
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) {
    out.bits_[i] = bits[i];
    out.value_ |= uint32_t{bits[i].value()} << i;
  }
  return out;
}

UInt32 UInt32::from_bits_be(std::span<const Boolean> bits) {
  assert(bits.size() == 32);
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) {
    out.bits_[i] = bits[31 - i];
    out.value_ |= uint32_t{bits[31 - i].value()} << i;
  }
  return out;
}

void UInt32::append_bits_be(std::vector<Boolean>& out) const {
  for (unsigned i = 32; i-- > 0;) out.push_back(bits_[i]);
}

std::vector<Boolean> UInt32::to_bits_be() const {
  std::vector<Boolean> out;
  out.reserve(32);
  append_bits_be(out);
  return out;
}

bool UInt32::is_constant() const {
  for (const Boolean& b : bits_) {
    if (!b.is_constant()) return false;
  }
  return true;
}

UInt32 UInt32::rotr(unsigned n) const {
  n %= 32;
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) out.bits_[i] = bits_[(i + n) % 32];
  out.value_ = std::rotr(value_, static_cast<int>(n));
  return out;
}

UInt32 UInt32::shr(unsigned n) const {
  UInt32 out;
  for (unsigned i = 0; i + n < 32; ++i) out.bits_[i] = bits_[i + n];
  out.value_ = n >= 32 ? 0 : value_ >> n;
  return out;
}

UInt32 UInt32::xor_(ConstraintSystem& cs, const UInt32& a, const UInt32& b) {
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) out.bits_[i] = Boolean::xor_(cs, a.bits_[i], b.bits_[i]);
  out.value_ = a.value_ ^ b.value_;
  return out;
}

UInt32 UInt32::xor3(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) {
    out.bits_[i] = Boolean::xor3(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
  }
  out.value_ = a.value_ ^ b.value_ ^ c.value_;
  return out;
}

UInt32 UInt32::ch(ConstraintSystem& cs, const UInt32& e, const UInt32& f, const UInt32& g) {
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i)
    out.bits_[i] = Boolean::ch(cs, e.bits_[i], f.bits_[i], g.bits_[i]);
  out.value_ = (e.value_ & f.value_) ^ (~e.value_ & g.value_);
  return out;
}

UInt32 UInt32::maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 out;
  for (unsigned i = 0; i < 32; ++i) {
    out.bits_[i] = Boolean::maj(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
  }
  out.value_ = (a.value_ & b.value_) ^ (a.value_ & c.value_) ^ (b.value_ & c.value_);
  return out;
}

UInt32 UInt32::addmany(ConstraintSystem& cs, std::span<const UInt32> operands) {
  constexpr size_t kChunk = 16;
  std::array<const UInt32*, kChunk> ptrs;
  if (operands.size() <= kChunk) {
    for (size_t i = 0; i < operands.size(); ++i) ptrs[i] = &operands[i];
    return addmany(cs, std::span<const UInt32* const>(ptrs.data(), operands.size()));
  }
  std::vector<const UInt32*> many(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) many[i] = &operands[i];
  return addmany(cs, std::span<const UInt32* const>(many));
}

UInt32 UInt32::addmany(ConstraintSystem& cs, std::span<const UInt32* const> operands) {
  assert(operands.size() < (size_t{1} << 31));
  // The exact sum, the constant part and the largest sum the variable bits allow.
  uint64_t sum = 0, constant_part = 0, variable_max = 0;
  for (const UInt32* p : operands) {
    const UInt32& op = *p;
    sum += op.value_;
    for (unsigned i = 0; i < 32; ++i) {
      const Boolean& b = op.bits_[i];
      if (!b.is_constant()) {
        variable_max += uint64_t{1} << i;
      } else if (b.value()) {
        constant_part += uint64_t{1} << i;
      }
    }
  }
  if (variable_max == 0) return constant(static_cast<uint32_t>(sum));

  const unsigned nbits = static_cast<unsigned>(std::bit_width(constant_part + variable_max));
  std::array<Boolean, 64> result;
  for (unsigned j = 0; j < nbits; ++j) result[j] = Boolean::alloc(cs, ((sum >> j) & 1) != 0);
  cs.enforce_with(
      [&](LinearCombination& l) {
        for (const UInt32* op : operands) {
          for (unsigned i = 0; i < 32; ++i) op->bits_[i].add_to(l, fr_pow2(i));
        }
      },
      [](LinearCombination& l) { l = LinearCombination(Variable::one()); },
      [&](LinearCombination& l) {
        for (unsigned j = 0; j < nbits; ++j) result[j].add_to(l, fr_pow2(j));
      });

  UInt32 out;
  for (unsigned j = 0; j < 32 && j < nbits; ++j) out.bits_[j] = result[j];
  out.value_ = static_cast<uint32_t>(sum);
  return out;
}

}  // namespace zkpipe::gadgets
