// a^-1 mod p for Fp by the divsteps of Bernstein and Yang (fields.h: fp_inverse_vartime, and
// the host inversion of Fp built on it). Thread-safety: pure functions.
#include <cstdint>

#include "zkpipe/crypto/fields.h"

namespace zkpipe::crypto {
namespace {

// a^-1 mod p for 0 < a < p (plain integers, not Montgomery form) by the divsteps of Bernstein and
// Yang ("Fast constant-time gcd computation and modular inversion", 2019) in batches of 62, in
// the variable-time form (skipping runs of zeros) that libsecp256k1's safegcd notes describe.
// About 3 us here against 30 us for Fermat's ~570 products, which would cost as much as ~400 of
// the additions. Numbers are signed: 7 limbs of 62 bits, the top limb signed. The timing depends
// on a, the product of the batch's denominators, which bucket sums make data-dependent anyway
// (conflict deferrals in msm_buckets.h already are).
constexpr int kLimbs62 = 7;  // 434 bits
constexpr uint64_t kM62 = (uint64_t{1} << 62) - 1;
struct S62 {
  int64_t v[kLimbs62];
};
// The 2x2 matrix of 62 divsteps, scaled by 2^62: [f, g] <- [u v; q r] [f, g] / 2^62.
struct Trans {
  int64_t u, v, q, r;
};

constexpr S62 to62(const Fp::L& a) {
  S62 r{};
  for (int k = 0; k < kLimbs62; ++k) {
    const int bit = 62 * k, w = bit / 64, s = bit % 64;
    uint64_t x = w < 6 ? a[w] >> s : 0;
    if (s > 2 && w + 1 < 6) x |= a[w + 1] << (64 - s);
    r.v[k] = static_cast<int64_t>(x & kM62);
  }
  return r;
}
constexpr S62 kP62 = to62(Fp::kModulus);
constexpr uint64_t kPInv62 = (~neg_inverse_mod_2_64(Fp::kModulus[0]) + 1) & kM62;  // p^-1

// 62 divsteps on the low bits of f (odd) and g, eta = -delta; returns the new eta.
int64_t divsteps62(int64_t eta, uint64_t f, uint64_t g, Trans& t) {
  uint64_t u = 1, v = 0, q = 0, r = 1;  // unsigned: the products wrap like the 2-adic values
  int i = 62;
  for (;;) {
    // Skip zeros of g: each halves g (and doubles u, v relative to it).
    const int zeros = __builtin_ctzll(g | (~uint64_t{0} << i));
    g >>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    i -= zeros;
    if (i == 0) break;
    // g is odd here. With eta < 0 swap (f, g) <- (g, -f); then eliminate as many low bits of g
    // as eta and i allow by g += w f with w = -g / f mod 2^limit.
    uint64_t w;
    int limit;
    if (eta < 0) {
      eta = -eta;
      uint64_t tmp = f;
      f = g;
      g = 0 - tmp;
      tmp = u;
      u = q;
      q = 0 - tmp;
      tmp = v;
      v = r;
      r = 0 - tmp;
      limit = static_cast<int>(std::min<int64_t>(eta + 1, i));
      const uint64_t m = (~uint64_t{0} >> (64 - limit)) & 63;
      w = (f * g * (f * f - 2)) & m;  // f (f^2 - 2) = -1/f mod 64
    } else {
      limit = static_cast<int>(std::min<int64_t>(eta + 1, i));
      const uint64_t m = (~uint64_t{0} >> (64 - limit)) & 15;
      w = f + (((f + 1) & 4) << 1);  // 1/f mod 16
      w = (0 - w * g) & m;
    }
    g += f * w;
    q += u * w;
    r += v * w;
  }
  t = {static_cast<int64_t>(u), static_cast<int64_t>(v), static_cast<int64_t>(q),
       static_cast<int64_t>(r)};
  return eta;
}

// [f, g] <- t [f, g] / 2^62 (exact).
void update_fg(S62& f, S62& g, const Trans& t) {
  __int128 cf = static_cast<__int128>(t.u) * f.v[0] + static_cast<__int128>(t.v) * g.v[0];
  __int128 cg = static_cast<__int128>(t.q) * f.v[0] + static_cast<__int128>(t.r) * g.v[0];
  cf >>= 62;  // the low 62 bits are zero
  cg >>= 62;
  for (int k = 1; k < kLimbs62; ++k) {
    cf += static_cast<__int128>(t.u) * f.v[k] + static_cast<__int128>(t.v) * g.v[k];
    cg += static_cast<__int128>(t.q) * f.v[k] + static_cast<__int128>(t.r) * g.v[k];
    f.v[k - 1] = static_cast<int64_t>(static_cast<uint64_t>(cf) & kM62);
    g.v[k - 1] = static_cast<int64_t>(static_cast<uint64_t>(cg) & kM62);
    cf >>= 62;
    cg >>= 62;
  }
  f.v[kLimbs62 - 1] = static_cast<int64_t>(cf);
  g.v[kLimbs62 - 1] = static_cast<int64_t>(cg);
}

// [d, e] <- (t [d, e] + p [md, me]) / 2^62 with md, me chosen to make the division exact: d and
// e stay in (-2p, p) and follow f and g modulo p.
void update_de(S62& d, S62& e, const Trans& t) {
  const int64_t sd = d.v[kLimbs62 - 1] >> 63, se = e.v[kLimbs62 - 1] >> 63;  // -1 if negative
  int64_t md = (t.u & sd) + (t.v & se), me = (t.q & sd) + (t.r & se);
  __int128 cd = static_cast<__int128>(t.u) * d.v[0] + static_cast<__int128>(t.v) * e.v[0];
  __int128 ce = static_cast<__int128>(t.q) * d.v[0] + static_cast<__int128>(t.r) * e.v[0];
  md -= static_cast<int64_t>((kPInv62 * static_cast<uint64_t>(cd) + static_cast<uint64_t>(md)) &
                             kM62);
  me -= static_cast<int64_t>((kPInv62 * static_cast<uint64_t>(ce) + static_cast<uint64_t>(me)) &
                             kM62);
  cd += static_cast<__int128>(kP62.v[0]) * md;
  ce += static_cast<__int128>(kP62.v[0]) * me;
  cd >>= 62;
  ce >>= 62;
  for (int k = 1; k < kLimbs62; ++k) {
    cd += static_cast<__int128>(t.u) * d.v[k] + static_cast<__int128>(t.v) * e.v[k] +
          static_cast<__int128>(kP62.v[k]) * md;
    ce += static_cast<__int128>(t.q) * d.v[k] + static_cast<__int128>(t.r) * e.v[k] +
          static_cast<__int128>(kP62.v[k]) * me;
    d.v[k - 1] = static_cast<int64_t>(static_cast<uint64_t>(cd) & kM62);
    e.v[k - 1] = static_cast<int64_t>(static_cast<uint64_t>(ce) & kM62);
    cd >>= 62;
    ce >>= 62;
  }
  d.v[kLimbs62 - 1] = static_cast<int64_t>(cd);
  e.v[kLimbs62 - 1] = static_cast<int64_t>(ce);
}

// The value of x (in (-4p, 4p)) mod p, as 64-bit limbs below p.
Fp::L from62_mod_p(const S62& x) {
  // Two's complement over 7 words (448 bits).
  uint64_t w[7] = {};
  __int128 c = 0;
  int bit = 0;
  for (int k = 0; k < kLimbs62; ++k, bit += 62) {
    // Add x.v[k] 2^bit into w (x.v[k] < 2^62 except the signed top limb).
    const int j = bit / 64, s = bit % 64;
    const __int128 a = static_cast<__int128>(x.v[k]) * (static_cast<__int128>(1) << s);
    c = a;
    for (int i = j; i < 7; ++i) {
      c += w[i];
      w[i] = static_cast<uint64_t>(c);
      c >>= 64;
    }
  }
  auto add_p = [&](bool sub) {
    uint64_t carry = 0;
    for (int i = 0; i < 7; ++i) {
      const uint64_t pi = i < 6 ? Fp::kModulus[i] : 0;
      const unsigned __int128 t = sub ? static_cast<unsigned __int128>(w[i]) - pi - carry
                                      : static_cast<unsigned __int128>(w[i]) + pi + carry;
      w[i] = static_cast<uint64_t>(t);
      carry = static_cast<uint64_t>(t >> 64) & 1;
    }
  };
  while (static_cast<int64_t>(w[6]) < 0) add_p(false);
  for (;;) {
    Fp::L v{w[0], w[1], w[2], w[3], w[4], w[5]};
    if (w[6] == 0 && limbs_less(v, Fp::kModulus)) return v;
    add_p(true);
  }
}

}  // namespace

Fp::L fp_inverse_vartime(const Fp::L& a) {
  S62 d{}, e{}, f = kP62, g = to62(a);
  e.v[0] = 1;
  int64_t eta = -1;
  for (;;) {
    Trans t;
    eta = divsteps62(eta, static_cast<uint64_t>(f.v[0]), static_cast<uint64_t>(g.v[0]), t);
    update_de(d, e, t);
    update_fg(f, g, t);
    int64_t any = 0;
    for (int k = 0; k < kLimbs62; ++k) any |= g.v[k];
    if (any == 0) break;
  }
  // f = +-1 (gcd(a, p) = 1) and d a = f mod p.
  if (f.v[kLimbs62 - 1] < 0) {
    for (int k = 0; k < kLimbs62; ++k) d.v[k] = -d.v[k];  // limbs need not be normalized below
  }
  return from62_mod_p(d);
}

// The Montgomery word w = a R inverted as an integer gives w^-1; the Montgomery form of a^-1 is
// a^-1 R = w^-1 R^2 = mont(w^-1, R^3).
template <>
Fp Fp::inverse_binary() const {
  if (is_zero()) return zero();
  const L w{l[0], l[1], l[2], l[3], l[4], l[5]};
  const L x = fp_inverse_vartime(w);
  Fp xm, r3;
  for (size_t i = 0; i < kLimbs; ++i) {
    xm.l[i] = x[i];
    r3.l[i] = kR3[i];
  }
  return xm * r3;
}

}  // namespace zkpipe::crypto
