// gadgets/sha256.cpp: the SHA-256 compression natively (by hand; whole messages go through
// groth16::sha256, OpenSSL) and in circuit. The circuit keeps sums unmaterialized where it can:
// T1 = h + S1 + ch + K + W is never allocated (it is summed into both e' and a'), W[62], W[63]
// are summed straight into their rounds, and the last round's a', e' are summed straight into
// the output state.
#include "zkpipe/gadgets/sha256.h"

#include <bit>
#include <cassert>

namespace zkpipe::gadgets {
namespace {

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr std::array<uint32_t, 64> kK = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Up to kMax words to be summed mod 2^32, held by pointer.
struct Terms {
  static constexpr size_t kMax = 12;
  std::array<const UInt32*, kMax> ops;
  size_t n = 0;

  Terms& push(const UInt32& w) {
    assert(n < kMax);
    ops[n++] = &w;
    return *this;
  }
  Terms& append(const Terms& t) {
    for (size_t i = 0; i < t.n; ++i) push(*t.ops[i]);
    return *this;
  }
  UInt32 sum(ConstraintSystem& cs) const {
    return UInt32::addmany(cs, std::span<const UInt32* const>(ops.data(), n));
  }
};

}  // namespace

const std::array<uint32_t, 8> kSha256Iv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                           0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void sha256_compress(std::array<uint32_t, 8>& state, const uint8_t block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t) {
    w[t] = (uint32_t{block[4 * t]} << 24) | (uint32_t{block[4 * t + 1]} << 16) |
           (uint32_t{block[4 * t + 2]} << 8) | uint32_t{block[4 * t + 3]};
  }
  for (int t = 16; t < 64; ++t) {
    const uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = s1 + w[t - 7] + s0 + w[t - 16];
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; ++t) {
    const uint32_t s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    const uint32_t ch = (e & f) ^ (~e & g);
    const uint32_t t1 = h + s1 + ch + kK[t] + w[t];
    const uint32_t s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + s0 + maj;
  }
  const uint32_t v[8] = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state[i] += v[i];
}

std::array<UInt32, 8> sha256_compress(ConstraintSystem& cs, const std::array<UInt32, 8>& state,
                                      std::span<const Boolean> block_bits) {
  assert(block_bits.size() == 512);
  // The message schedule. W[62] and W[63] feed no later word, so they stay as four terms each.
  std::array<UInt32, 64> w;
  std::array<std::array<UInt32, 4>, 2> w_tail;
  for (size_t t = 0; t < 16; ++t) w[t] = UInt32::from_bits_be(block_bits.subspan(32 * t, 32));
  for (size_t t = 16; t < 64; ++t) {
    const UInt32& x = w[t - 15];
    const UInt32& y = w[t - 2];
    const UInt32 s0 = UInt32::xor3(cs, x.rotr(7), x.rotr(18), x.shr(3));
    const UInt32 s1 = UInt32::xor3(cs, y.rotr(17), y.rotr(19), y.shr(10));
    if (t < 62) {
      w[t] = Terms().push(s1).push(w[t - 7]).push(s0).push(w[t - 16]).sum(cs);
    } else {
      w_tail[t - 62] = {s1, w[t - 7], s0, w[t - 16]};
    }
  }

  UInt32 a = state[0], b = state[1], c = state[2], d = state[3];
  UInt32 e = state[4], f = state[5], g = state[6], h = state[7];
  for (size_t t = 0; t < 64; ++t) {
    const UInt32 s1 = UInt32::xor3(cs, e.rotr(6), e.rotr(11), e.rotr(25));
    const UInt32 ch = UInt32::ch(cs, e, f, g);
    const UInt32 s0 = UInt32::xor3(cs, a.rotr(2), a.rotr(13), a.rotr(22));
    const UInt32 maj = UInt32::maj(cs, a, b, c);
    const UInt32 k = UInt32::constant(kK[t]);
    Terms t1;
    t1.push(h).push(s1).push(ch).push(k);
    if (t < 62) {
      t1.push(w[t]);
    } else {
      for (const UInt32& term : w_tail[t - 62]) t1.push(term);
    }
    Terms new_e = Terms().append(t1).push(d);
    Terms new_a = Terms().append(t1).push(s0).push(maj);
    if (t == 63) {  // summed straight into the output words 0 and 4
      new_e.push(state[4]);
      new_a.push(state[0]);
    }
    const UInt32 e_next = new_e.sum(cs);
    const UInt32 a_next = new_a.sum(cs);
    h = g;
    g = f;
    f = e;
    e = e_next;
    d = c;
    c = b;
    b = a;
    a = a_next;
  }
  const std::array<const UInt32*, 8> v = {&a, &b, &c, &d, &e, &f, &g, &h};
  std::array<UInt32, 8> out;
  for (size_t i = 0; i < 8; ++i) {
    out[i] = (i == 0 || i == 4) ? *v[i] : Terms().push(state[i]).push(*v[i]).sum(cs);
  }
  return out;
}

std::vector<Boolean> sha256(ConstraintSystem& cs, std::span<const Boolean> message_bits) {
  assert(message_bits.size() % 8 == 0);
  const uint64_t len = message_bits.size();
  const size_t blocks = (len + 1 + 64 + 511) / 512;
  std::vector<Boolean> padded(message_bits.begin(), message_bits.end());
  padded.reserve(blocks * 512);
  padded.push_back(Boolean::constant(true));
  while (padded.size() % 512 != 448) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant(((len >> i) & 1) != 0));
  assert(padded.size() == blocks * 512);

  std::array<UInt32, 8> state;
  for (size_t i = 0; i < 8; ++i) state[i] = UInt32::constant(kSha256Iv[i]);
  for (size_t blk = 0; blk < blocks; ++blk) {
    state = sha256_compress(cs, state, std::span<const Boolean>(padded).subspan(512 * blk, 512));
  }
  std::vector<Boolean> digest;
  digest.reserve(256);
  for (const UInt32& word : state) word.append_bits_be(digest);
  return digest;
}

}  // namespace zkpipe::gadgets
