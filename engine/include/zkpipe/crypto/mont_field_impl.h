// zkpipe/crypto/mont_field_impl.h: the host-only parts of MontField (square root, batch
// inversion, bytes, hex, secure random). Included by mont_field.h; not for direct use.
// Thread-safety: pure functions, except random_secure (getrandom, thread-safe).
#pragma once

#include <sys/random.h>

#include <algorithm>
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

// Binary extended Euclid on the Montgomery word w = a R: with u = w x1 and v = w x2 (mod p)
// kept invariant, halving an even u halves x1 mod p, and u -= v gives x1 -= x2. It ends with
// u or v = 1, so x = w^-1; the Montgomery form of a^-1 is a^-1 R = x R^2 = mont(x, R^3).
template <typename P>
MontField<P> MontField<P>::inverse_binary() const {
  if (is_zero()) return zero();
  constexpr size_t N = kLimbs;
  uint64_t u[N], v[N], x1[N] = {1}, x2[N] = {0};
  for (size_t i = 0; i < N; ++i) {
    u[i] = l[i];
    v[i] = kModulus[i];
  }
  auto is_one = [](const uint64_t* a) {
    uint64_t acc = a[0] ^ 1;
    for (size_t i = 1; i < N; ++i) acc |= a[i];
    return acc == 0;
  };
  // a >>= k (0 < k < 64).
  auto shr = [](uint64_t* a, unsigned k) {
    for (size_t i = 0; i + 1 < N; ++i) a[i] = (a[i] >> k) | (a[i + 1] << (64 - k));
    a[N - 1] >>= k;
  };
  // x = x / 2 mod p (x < p): add p when odd, then shift the N + 1 words right by one.
  auto halve = [](uint64_t* x) {
    const uint64_t mask = 0 - (x[0] & 1);
    uint64_t c = 0;
    for (size_t i = 0; i < N; ++i) x[i] = adc(x[i], kModulus[i] & mask, c, c);
    for (size_t i = 0; i + 1 < N; ++i) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    x[N - 1] = (x[N - 1] >> 1) | (c << 63);
  };
  // a -= b (a >= b).
  auto sub = [](uint64_t* a, const uint64_t* b) {
    uint64_t br = 0;
    for (size_t i = 0; i < N; ++i) a[i] = sbb(a[i], b[i], br, br);
  };
  // x = x - y mod p.
  auto sub_mod = [](uint64_t* x, const uint64_t* y) {
    uint64_t br = 0;
    for (size_t i = 0; i < N; ++i) x[i] = sbb(x[i], y[i], br, br);
    const uint64_t mask = 0 - br;
    uint64_t c = 0;
    for (size_t i = 0; i < N; ++i) x[i] = adc(x[i], kModulus[i] & mask, c, c);
  };
  auto geq = [](const uint64_t* a, const uint64_t* b) {
    for (size_t i = N; i-- > 0;) {
      if (a[i] != b[i]) return a[i] > b[i];
    }
    return true;
  };
  while (!is_one(u) && !is_one(v)) {
    // u, v > 0 here (gcd(w, p) = 1, so neither reaches 0 before 1).
    while ((u[0] & 1) == 0) {
      const unsigned k = u[0] == 0 ? 63 : std::min(63, __builtin_ctzll(u[0]));
      shr(u, k);
      for (unsigned i = 0; i < k; ++i) halve(x1);
    }
    while ((v[0] & 1) == 0) {
      const unsigned k = v[0] == 0 ? 63 : std::min(63, __builtin_ctzll(v[0]));
      shr(v, k);
      for (unsigned i = 0; i < k; ++i) halve(x2);
    }
    if (geq(u, v)) {
      sub(u, v);
      sub_mod(x1, x2);
    } else {
      sub(v, u);
      sub_mod(x2, x1);
    }
  }
  MontField x, r3;
  const uint64_t* res = is_one(u) ? x1 : x2;
  for (size_t i = 0; i < N; ++i) {
    x.l[i] = res[i];
    r3.l[i] = kR3[i];
  }
  return x * r3;
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
