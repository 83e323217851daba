// zkpipe/crypto/mont_field_impl.h: the host-only parts of MontField (square root, batch
// inversion, bytes, hex, secure random). Included by mont_field.h; not for direct use.
// Thread-safety: pure functions, except random_secure (getrandom, thread-safe).
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <vector>

namespace zkpipe::crypto {

template <typename P>
bool MontField<P>::sqrt(MontField& out) const {
  if (is_zero()) {
    out = zero();
    return true;
  }
  if (legendre() != 1) return false;
  // Tonelli-Shanks with a fixed non-residue z (the smallest), c = z^t, t the odd part.
  static const MontField z = [] {
    for (uint64_t k = 2;; ++k) {
      MontField c = from_u64(k);
      if (c.legendre() == -1) return c;
    }
  }();
  Limbs<kLimbs> t_plus_1_half = kOddPart;  // (t + 1) / 2; t is odd so no carry past the top
  limbs_add(t_plus_1_half, limbs_from_u64<kLimbs>(1));
  t_plus_1_half = limbs_shr1(t_plus_1_half);
  size_t m = kTwoAdicity;
  MontField c = z.pow(kOddPart);
  MontField t = pow(kOddPart);
  MontField r = pow(t_plus_1_half);
  while (!t.is_one()) {
    size_t i = 0;
    MontField t2 = t;
    while (!t2.is_one()) {
      t2 = t2.sqr();
      ++i;
    }
    MontField b = c;
    for (size_t j = 0; j + 1 < m - i; ++j) b = b.sqr();
    m = i;
    c = b.sqr();
    t = t * c;
    r = r * b;
  }
  out = r;
  return true;
}

template <typename P>
void MontField<P>::batch_inverse(MontField* v, size_t n) {
  std::vector<MontField> prefix(n);
  MontField acc = one();
  for (size_t i = 0; i < n; ++i) {
    prefix[i] = acc;
    if (!v[i].is_zero()) acc = acc * v[i];
  }
  MontField inv = acc.inverse();
  for (size_t i = n; i-- > 0;) {
    if (v[i].is_zero()) continue;
    MontField vi = v[i];
    v[i] = inv * prefix[i];
    inv = inv * vi;
  }
}

template <typename P>
Result<MontField<P>> MontField<P>::from_bytes_be(const uint8_t* in) {
  Limbs<kLimbs> v{};
  for (size_t i = 0; i < kBytes; ++i) {
    v[(kBytes - 1 - i) / 8] |= uint64_t{in[i]} << (8 * ((kBytes - 1 - i) % 8));
  }
  if (!limbs_less(v, kModulus)) {
    return invalid_argument(std::string(P::kName) + ": non-canonical encoding (value >= modulus)");
  }
  return from_canonical(v);
}

template <typename P>
void MontField<P>::to_bytes_be(uint8_t* out) const {
  Limbs<kLimbs> v = to_canonical();
  for (size_t i = 0; i < kBytes; ++i) {
    out[i] = static_cast<uint8_t>(v[(kBytes - 1 - i) / 8] >> (8 * ((kBytes - 1 - i) % 8)));
  }
}

template <typename P>
std::string MontField<P>::to_hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  uint8_t b[kBytes];
  to_bytes_be(b);
  std::string s(2 * kBytes, '0');
  for (size_t i = 0; i < kBytes; ++i) {
    s[2 * i] = kDigits[b[i] >> 4];
    s[2 * i + 1] = kDigits[b[i] & 15];
  }
  return s;
}

template <typename P>
Result<MontField<P>> MontField<P>::from_hex(const std::string& hex) {
  if (hex.size() != 2 * kBytes) {
    return invalid_argument(std::string(P::kName) + ": hex must have " +
                            std::to_string(2 * kBytes) + " digits, got " +
                            std::to_string(hex.size()));
  }
  uint8_t b[kBytes];
  for (size_t i = 0; i < kBytes; ++i) {
    int v = 0;
    for (int k = 0; k < 2; ++k) {
      char ch = hex[2 * i + k];
      int d = ch >= '0' && ch <= '9'   ? ch - '0'
              : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                       : -1;
      if (d < 0)
        return invalid_argument(std::string(P::kName) + ": bad hex digit at " +
                                std::to_string(2 * i + k));
      v = v * 16 + d;
    }
    b[i] = static_cast<uint8_t>(v);
  }
  return from_bytes_be(b);
}

template <typename P>
MontField<P> MontField<P>::random_secure() {
  auto next = [] {
    uint64_t x;
    size_t got = 0;
    while (got < sizeof x) {
      ssize_t n = getrandom(reinterpret_cast<uint8_t*>(&x) + got, sizeof x - got, 0);
      if (n > 0)
        got += static_cast<size_t>(n);
      else if (errno != EINTR)
        __builtin_trap();  // no entropy source: never continue with weak randomness
    }
    return x;
  };
  return random(next);
}

}  // namespace zkpipe::crypto
