// SHA-256 in circuit as bellperson synthesizes it (zkpipe/filecoin_circuit/sha256.h).
#include "zkpipe/filecoin_circuit/sha256.h"

#include <cassert>
#include <stdexcept>
#include <string>

namespace zkpipe::filecoin_circuit {
namespace {

const Fr kOne = Fr::one();

// 2^i in Fr for i < 256.
const std::array<Fr, 256>& pow2() {
  static const std::array<Fr, 256> table = [] {
    std::array<Fr, 256> t;
    t[0] = Fr::one();
    for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1].dbl();
    return t;
  }();
  return table;
}

Fr bit_fr(bool b) {
  return b ? kOne : Fr::zero();
}

// AllocatedBit::xor: r allocated, (a + a) * b = a + b - r.
Boolean allocated_xor(ConstraintSystem& cs, Variable a, Variable b, bool value) {
  const Variable r = cs.alloc(bit_fr(value));
  cs.enforce_with(
      [&](LinearCombination& l) {
        l += a;
        l += a;
      },
      [&](LinearCombination& l) { l += b; },
      [&](LinearCombination& l) {
        l += a;
        l += b;
        l -= r;
      });
  return Boolean::from_bit_variable(r, value);
}

// AllocatedBit::and_not: r allocated, a * (1 - b) = r.
Boolean allocated_and_not(ConstraintSystem& cs, Variable a, Variable b, bool value) {
  const Variable r = cs.alloc(bit_fr(value));
  cs.enforce_with([&](LinearCombination& l) { l += a; },
                  [&](LinearCombination& l) {
                    l += Variable::one();
                    l -= b;
                  },
                  [&](LinearCombination& l) { l += r; });
  return Boolean::from_bit_variable(r, value);
}

}  // namespace

Boolean bool_xor(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if (a.is_constant() && !a.value()) return b;
  if (b.is_constant() && !b.value()) return a;
  if (a.is_constant()) return !b;  // a is true
  if (b.is_constant()) return !a;
  if (a.is_negated() != b.is_negated()) {
    // (Is, Not) | (Not, Is): xor(is, !not) negated
    const Boolean& is = a.is_negated() ? b : a;
    const Boolean& neg = a.is_negated() ? a : b;
    return !bool_xor(cs, is, !neg);
  }
  // (Is a, Is b) | (Not a, Not b): the allocated bits' xor (negations cancel)
  return allocated_xor(cs, a.variable(), b.variable(), a.value() != b.value());
}

Boolean bool_and(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if ((a.is_constant() && !a.value()) || (b.is_constant() && !b.value())) {
    return Boolean::constant(false);
  }
  if (a.is_constant()) return b;  // a is true
  if (b.is_constant()) return a;
  const bool value = a.value() && b.value();
  if (a.is_negated() != b.is_negated()) {
    const Boolean& is = a.is_negated() ? b : a;
    const Boolean& neg = a.is_negated() ? a : b;
    return allocated_and_not(cs, is.variable(), neg.variable(), value);
  }
  if (a.is_negated()) return bit_nor(cs, !a, !b);
  return bit_and(cs, a, b);
}

Boolean sha256_ch(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  const bool value = a.value() ? b.value() : c.value();
  const bool ka = a.is_constant(), kb = b.is_constant(), kc = c.is_constant();
  if (ka && kb && kc) return Boolean::constant(value);
  if (ka && !a.value()) return c;
  if (kb && !b.value()) return bool_and(cs, !a, c);
  if (kc && !c.value()) return bool_and(cs, a, b);
  if (kc) return !bool_and(cs, a, !b);
  if (kb) return !bool_and(cs, !a, !c);
  // a constant true falls through: (b - c) * 1 = ch - c
  const Variable ch = cs.alloc(bit_fr(value));
  cs.enforce_with(
      [&](LinearCombination& l) {
        b.add_to(l, kOne);
        c.add_to(l, -kOne);
      },
      [&](LinearCombination& l) { a.add_to(l, kOne); },
      [&](LinearCombination& l) {
        l += ch;
        c.add_to(l, -kOne);
      });
  return Boolean::from_bit_variable(ch, value);
}

Boolean sha256_maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  const bool value =
      ((a.value() && b.value()) != (a.value() && c.value())) != (b.value() && c.value());
  const bool ka = a.is_constant(), kb = b.is_constant(), kc = c.is_constant();
  if (ka && kb && kc) return Boolean::constant(value);
  if (ka && !a.value()) return bool_and(cs, b, c);
  if (kb && !b.value()) return bool_and(cs, a, c);
  if (kc && !c.value()) return bool_and(cs, a, b);
  if (kc) return !bool_and(cs, !a, !b);
  if (kb) return !bool_and(cs, !a, !c);
  if (ka) return !bool_and(cs, !b, !c);
  const Variable maj = cs.alloc(bit_fr(value));
  const Boolean bc = bool_and(cs, b, c);
  cs.enforce_with(
      [&](LinearCombination& l) {
        bc.add_to(l, kOne.dbl());
        b.add_to(l, -kOne);
        c.add_to(l, -kOne);
      },
      [&](LinearCombination& l) { a.add_to(l, kOne); },
      [&](LinearCombination& l) {
        bc.add_to(l, kOne);
        l -= maj;
      });
  return Boolean::from_bit_variable(maj, value);
}

// ---- MultiEq ----

void MultiEq::accumulate() {
  cs_.enforce_with([&](LinearCombination& l) { l = std::move(lhs_); },
                   [](LinearCombination& l) { l += Variable::one(); },
                   [&](LinearCombination& l) { l = std::move(rhs_); });
  lhs_ = LinearCombination();
  rhs_ = LinearCombination();
  bits_used_ = 0;
}

void MultiEq::enforce_equal(uint32_t num_bits, const LinearCombination& lhs,
                            const LinearCombination& rhs) {
  if (kFrCapacity <= bits_used_ + num_bits) accumulate();
  if (kFrCapacity <= bits_used_ + num_bits) {
    throw std::invalid_argument("MultiEq: " + std::to_string(num_bits) + " bits do not fit");
  }
  if (!cs_.witness_only()) {
    const Fr& coeff = pow2()[bits_used_];
    for (const auto& [v, c] : lhs.terms()) lhs_.add(c * coeff, v);
    for (const auto& [v, c] : rhs.terms()) rhs_.add(c * coeff, v);
  }
  bits_used_ += num_bits;
}

void MultiEq::flush() {
  if (bits_used_ > 0) accumulate();
}

// ---- UInt32 ----

UInt32 UInt32::constant(uint32_t v) {
  UInt32 r;
  r.value_ = v;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = Boolean::constant((v >> i) & 1);
  return r;
}

UInt32 UInt32::from_bits_be(std::span<const Boolean> bits) {
  if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_be: 32 bits needed");
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) {
    r.bits_[i] = bits[31 - i];
    if (r.bits_[i].value()) r.value_ |= uint32_t{1} << i;
  }
  return r;
}

void UInt32::append_bits_be(std::vector<Boolean>& out) const {
  for (unsigned i = 32; i-- > 0;) out.push_back(bits_[i]);
}

UInt32 UInt32::rotr(unsigned by) const {
  by %= 32;
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bits_[(i + by) % 32];
  r.value_ = (value_ >> by) | (by ? value_ << (32 - by) : 0);
  return r;
}

UInt32 UInt32::shr(unsigned by) const {
  by %= 32;
  UInt32 r;
  for (unsigned i = 0; i + by < 32; ++i) r.bits_[i] = bits_[i + by];
  r.value_ = value_ >> by;
  return r;
}

UInt32 UInt32::xor_with(ConstraintSystem& cs, const UInt32& other) const {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bool_xor(cs, bits_[i], other.bits_[i]);
  r.value_ = value_ ^ other.value_;
  return r;
}

UInt32 UInt32::ch(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = sha256_ch(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
  r.value_ = (a.value_ & b.value_) ^ (~a.value_ & c.value_);
  return r;
}

UInt32 UInt32::maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) {
    r.bits_[i] = sha256_maj(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
  }
  r.value_ = (a.value_ & b.value_) ^ (a.value_ & c.value_) ^ (b.value_ & c.value_);
  return r;
}

UInt32 UInt32::addmany(MultiEq& meq, std::span<const UInt32> operands) {
  if (operands.size() < 2 || operands.size() > 10) {
    throw std::invalid_argument("UInt32::addmany: 2 to 10 operands");
  }
  ConstraintSystem& cs = meq.cs();
  uint64_t max_value = operands.size() * uint64_t{0xffffffff};
  uint64_t sum = 0;
  bool all_constants = true;
  for (const UInt32& op : operands) {
    sum += op.value_;
    for (const Boolean& b : op.bits_) all_constants &= b.is_constant();
  }
  if (all_constants) return constant(static_cast<uint32_t>(sum));

  std::vector<Boolean> result_bits;
  while (max_value != 0) {
    result_bits.push_back(alloc_bit(cs, (sum >> result_bits.size()) & 1));
    max_value >>= 1;
  }
  const uint32_t n = static_cast<uint32_t>(result_bits.size());
  if (cs.witness_only()) {
    meq.enforce_equal(n, {}, {});
  } else {
    LinearCombination lhs, rhs;
    for (const UInt32& op : operands) {
      for (unsigned i = 0; i < 32; ++i) op.bits_[i].add_to(lhs, pow2()[i]);
    }
    for (uint32_t i = 0; i < n; ++i) rhs.add(pow2()[i], result_bits[i].variable());
    meq.enforce_equal(n, lhs, rhs);
  }
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = result_bits[i];
  r.value_ = static_cast<uint32_t>(sum);
  return r;
}

// ---- the compression function ----

namespace {

constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
constexpr uint32_t kIv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// bellperson's Maybe: a word known, or a sum whose addition is deferred until it is used.
struct Deferrable {
  bool deferred = false;
  UInt32 word;
  std::vector<UInt32> terms;

  UInt32 compute(MultiEq& meq, std::span<const UInt32> others = {}) const {
    if (!deferred) return word;
    std::vector<UInt32> all = terms;
    all.insert(all.end(), others.begin(), others.end());
    return UInt32::addmany(meq, all);
  }
  static Deferrable of(UInt32 w) { return {false, std::move(w), {}}; }
  static Deferrable sum(std::vector<UInt32> t) { return {true, {}, std::move(t)}; }
};

UInt32 xor3(ConstraintSystem& cs, const UInt32& x, unsigned r1, unsigned r2, const UInt32& third) {
  UInt32 s = x.rotr(r1);
  s = s.xor_with(cs, x.rotr(r2));
  return s.xor_with(cs, third);
}

}  // namespace

std::array<UInt32, 8> sha256_compress(ConstraintSystem& cs, std::span<const Boolean> block,
                                      const std::array<UInt32, 8>& state) {
  if (block.size() != 512) throw std::invalid_argument("sha256_compress: 512 bits needed");
  std::vector<UInt32> w;
  w.reserve(64);
  for (size_t j = 0; j < 16; ++j) w.push_back(UInt32::from_bits_be(block.subspan(32 * j, 32)));

  MultiEq meq(cs);
  for (size_t i = 16; i < 64; ++i) {
    const UInt32 s0 = xor3(cs, w[i - 15], 7, 18, w[i - 15].shr(3));
    const UInt32 s1 = xor3(cs, w[i - 2], 17, 19, w[i - 2].shr(10));
    const UInt32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
    w.push_back(UInt32::addmany(meq, ops));
  }

  Deferrable a = Deferrable::of(state[0]);
  UInt32 b = state[1], c = state[2], d = state[3];
  Deferrable e = Deferrable::of(state[4]);
  UInt32 f = state[5], g = state[6], h = state[7];
  for (size_t i = 0; i < 64; ++i) {
    const UInt32 new_e = e.compute(meq);
    const UInt32 s1 = xor3(cs, new_e, 6, 11, new_e.rotr(25));
    const UInt32 ch = UInt32::ch(cs, new_e, f, g);
    std::vector<UInt32> temp1 = {h, s1, ch, UInt32::constant(kRoundConstants[i]), w[i]};

    const UInt32 new_a = a.compute(meq);
    const UInt32 s0 = xor3(cs, new_a, 2, 13, new_a.rotr(22));
    const UInt32 maj = UInt32::maj(cs, new_a, b, c);

    h = g;
    g = f;
    f = new_e;
    std::vector<UInt32> e_terms = temp1;
    e_terms.push_back(d);
    e = Deferrable::sum(std::move(e_terms));
    d = c;
    c = b;
    b = new_a;
    temp1.push_back(s0);
    temp1.push_back(maj);
    a = Deferrable::sum(std::move(temp1));
  }

  std::array<UInt32, 8> out;
  out[0] = a.compute(meq, std::span<const UInt32>(&state[0], 1));
  const auto add2 = [&](const UInt32& x, const UInt32& y) {
    const UInt32 ops[2] = {x, y};
    return UInt32::addmany(meq, ops);
  };
  out[1] = add2(state[1], b);
  out[2] = add2(state[2], c);
  out[3] = add2(state[3], d);
  out[4] = e.compute(meq, std::span<const UInt32>(&state[4], 1));
  out[5] = add2(state[5], f);
  out[6] = add2(state[6], g);
  out[7] = add2(state[7], h);
  meq.flush();
  return out;
}

std::vector<Boolean> sha256_message(ConstraintSystem& cs, std::span<const Boolean> message) {
  if (message.size() % 8 != 0) throw std::invalid_argument("sha256: whole bytes needed");
  std::vector<Boolean> padded(message.begin(), message.end());
  const uint64_t len = message.size();
  padded.push_back(Boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant((len >> i) & 1));

  std::array<UInt32, 8> state;
  for (size_t i = 0; i < 8; ++i) state[i] = UInt32::constant(kIv[i]);
  const std::span<const Boolean> all(padded);
  for (size_t off = 0; off < padded.size(); off += 512) {
    state = sha256_compress(cs, all.subspan(off, 512), state);
  }
  std::vector<Boolean> out;
  out.reserve(256);
  for (const UInt32& word : state) word.append_bits_be(out);
  return out;
}

// ---- numbers and bits ----

std::vector<Boolean> num_to_bits_le(ConstraintSystem& cs, const Num& n) {
  const auto limbs = n.value.to_canonical();
  std::vector<Boolean> bits;
  bits.reserve(255);
  // field_into_allocated_bits_le: NUM_BITS = 255 bits, allocated least significant first
  for (unsigned i = 0; i < 255; ++i) bits.push_back(alloc_bit(cs, (limbs[i / 64] >> (i % 64)) & 1));
  cs.enforce_with([](LinearCombination&) {}, [](LinearCombination&) {},
                  [&](LinearCombination& l) {
                    for (unsigned i = 0; i < 255; ++i) l.add(pow2()[i], bits[i].variable());
                    l -= n.var;
                  });
  return bits;
}

Num pack_bits(ConstraintSystem& cs, std::span<const Boolean> bits) {
  const size_t count = std::min<size_t>(bits.size(), kFrCapacity);
  Fr value = Fr::zero();
  for (size_t i = 0; i < count; ++i) {
    if (bits[i].value()) value += pow2()[i];
  }
  const Num x = Num::alloc(cs, value);
  cs.enforce_with(
      [&](LinearCombination& l) {
        for (size_t i = 0; i < count; ++i) bits[i].add_to(l, pow2()[i]);
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += x.var; });
  return x;
}

namespace {

// A number's little-endian bits padded to whole bytes, each byte's bits reversed: the bytes of
// its little-endian encoding in SHA-256's bit order.
void append_le_bytes(std::vector<Boolean>& out, const std::vector<Boolean>& bits_le) {
  std::vector<Boolean> padded = bits_le;
  while (padded.size() % 8 != 0) padded.push_back(Boolean::constant(false));
  for (size_t i = 0; i < padded.size(); i += 8) {
    for (size_t k = 8; k-- > 0;) out.push_back(padded[i + k]);
  }
}

}  // namespace

Num sha256_hash_bits(ConstraintSystem& cs, std::span<const Boolean> bits) {
  const std::vector<Boolean> be = sha256_message(cs, bits);
  std::vector<Boolean> le;
  le.reserve(256);
  for (size_t i = 0; i < be.size(); i += 8) {
    for (size_t k = 8; k-- > 0;) le.push_back(be[i + k]);
  }
  le.resize(kFrCapacity);
  return pack_bits(cs, le);
}

Num sha256_hash2(ConstraintSystem& cs, const Num& a, const Num& b) {
  const std::vector<Boolean> a_bits = num_to_bits_le(cs, a);
  const std::vector<Boolean> b_bits = num_to_bits_le(cs, b);
  std::vector<Boolean> preimage;
  preimage.reserve(512);
  append_le_bytes(preimage, a_bits);
  append_le_bytes(preimage, b_bits);
  return sha256_hash_bits(cs, preimage);
}

Num sha256_hash_leaves(ConstraintSystem& cs, std::span<const Num> leaves) {
  std::vector<Boolean> preimage;
  preimage.reserve(256 * leaves.size());
  for (const Num& leaf : leaves) append_le_bytes(preimage, num_to_bits_le(cs, leaf));
  return sha256_hash_bits(cs, preimage);
}

}  // namespace zkpipe::filecoin_circuit
