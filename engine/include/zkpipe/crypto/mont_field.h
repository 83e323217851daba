// zkpipe/crypto/mont_field.h: a prime field in Montgomery form over N 64-bit limbs, generic over
// a parameter struct that gives only the modulus; every other constant (R, R^2, -p^-1 mod 2^64,
// exponents) is derived from it at compile time (bigint.h). Fp and Fr of BLS12-381 are two
// instantiations (fields.h); another curve is another parameter struct. Arithmetic is ZKP_HD so
// CUDA kernels use the same code and limb layout. Thread-safety: values; all functions are pure
// except the secure random source (thread-safe getrandom).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "zkpipe/crypto/bigint.h"
#include "zkpipe/crypto/hd.h"
#include "zkpipe/crypto/mont_mul32.h"
#include "zkpipe/crypto/mont_mul_adx.h"
#include "zkpipe/sdk/status.h"

// Inline-assembly field addition and subtraction (x86-64 host, optimized builds: at -O0 GCC
// cannot find the registers).
#if defined(__x86_64__) && !defined(__CUDA_ARCH__) && defined(__OPTIMIZE__)
#define ZKP_X86_ASM_ADDSUB 1
#endif

#if defined(__CUDACC__)
#define ZKP_UNROLL _Pragma("unroll")
#else
#define ZKP_UNROLL _Pragma("GCC unroll 16")
#endif

namespace zkpipe::crypto {

template <typename P>
struct MontField {
  static constexpr size_t kLimbs = P::kLimbs;
  static constexpr size_t kBytes = kLimbs * 8;
  using L = Limbs<kLimbs>;
  static constexpr L kModulus = P::kModulus;
  static constexpr size_t kBits = limbs_bit_length(kModulus);
  static constexpr uint64_t kInv = neg_inverse_mod_2_64(kModulus[0]);  // -p^-1 mod 2^64
  static constexpr L kR = limbs_pow2_mod(64 * kLimbs, kModulus);       // 2^(64N) mod p = one
  static constexpr L kR2 = limbs_pow2_mod(128 * kLimbs, kModulus);     // 2^(128N) mod p
  static constexpr L kR3 = limbs_pow2_mod(192 * kLimbs, kModulus);     // 2^(192N) mod p

  // The constants as values any ZKP_HD function can use: device code may not read a host
  // constexpr array at run time, but each limb passes through a template argument as a
  // compile-time scalar; on both sides the result folds into immediates.
  enum class Const { kModulus, kR, kR2, kPMinus2 };
  struct LimbValues {
    uint64_t v[kLimbs];
  };
  static constexpr const L& host_const(Const c) {
    return c == Const::kModulus ? kModulus : c == Const::kR ? kR : c == Const::kR2 ? kR2 : kPMinus2;
  }
  template <Const C, size_t... I>
  static ZKP_HD LimbValues limb_values(std::index_sequence<I...>) {
    return {{std::integral_constant<uint64_t, host_const(C)[I]>::value...}};
  }
  template <Const C>
  static ZKP_HD LimbValues limb_values() {
    return limb_values<C>(std::make_index_sequence<kLimbs>{});
  }
  // The multiplication below skips the final carry word, which is sound when the top limb of
  // the modulus leaves the top bit free with room (as for BLS12-381's Fp and Fr).
  static_assert(kModulus[kLimbs - 1] < 0x7fffffffffffffffull,
                "modulus too large for no-carry CIOS");
  static_assert((kModulus[0] & 1) == 1, "modulus must be odd");
  // 4p >= 2^(64 kLimbs): the 32-bit product's odd accumulator needs a top word (mont_mul32.h).
  static constexpr bool kWideCios = kModulus[kLimbs - 1] >= (uint64_t{1} << 62);

  uint64_t l[kLimbs];  // Montgomery form: value * R mod p, always < p

  // ---- construction ------------------------------------------------------------------------
  static ZKP_HD MontField zero() {
    MontField r{};
    return r;
  }
  static ZKP_HD MontField one() {
    MontField r;
    const LimbValues k = limb_values<Const::kR>();
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) r.l[i] = k.v[i];
    return r;
  }
  // From a canonical integer < p.
  static ZKP_HD MontField from_canonical(const L& v) {
    MontField a, r2;
    const LimbValues k2 = limb_values<Const::kR2>();
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) {
      a.l[i] = v[i];
      r2.l[i] = k2.v[i];
    }
    return a * r2;
  }
  static ZKP_HD MontField from_u64(uint64_t v) { return from_canonical(limbs_from_u64<kLimbs>(v)); }

  // The canonical integer (leaves Montgomery form: multiply by 1).
  ZKP_HD L to_canonical() const {
    MontField one_raw{};
    one_raw.l[0] = 1;
    MontField c = *this * one_raw;
    L out{};
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) out[i] = c.l[i];
    return out;
  }

  // ---- comparison --------------------------------------------------------------------------
  ZKP_HD bool is_zero() const {
    uint64_t acc = 0;
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) acc |= l[i];
    return acc == 0;
  }
  ZKP_HD bool is_one() const { return *this == one(); }
  ZKP_HD bool operator==(const MontField& o) const {
    uint64_t acc = 0;
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) acc |= l[i] ^ o.l[i];
    return acc == 0;
  }
  ZKP_HD bool operator!=(const MontField& o) const { return !(*this == o); }

  // ---- arithmetic --------------------------------------------------------------------------
  // On optimized x86-64 host builds the 6-limb sum and difference are inline assembly: one
  // carry chain, then CMOV (GCC broke the chains with SETB or vectorized the select).
  ZKP_HD MontField operator+(const MontField& b) const {
#if defined(__CUDA_ARCH__)
    return add_chain<mul32::Ptx>(b);
#else
#if defined(ZKP_X86_ASM_ADDSUB)
    if constexpr (kLimbs == 6) return add6(b);
#endif
    MontField r;
    uint64_t c = 0;
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) r.l[i] = adc(l[i], b.l[i], c, c);
    r.reduce_once();
    return r;
#endif
  }
  ZKP_HD MontField operator-(const MontField& b) const {
#if defined(__CUDA_ARCH__)
    return sub_chain<mul32::Ptx>(b);
#else
#if defined(ZKP_X86_ASM_ADDSUB)
    if constexpr (kLimbs == 6) return sub6(b);
#endif
    MontField r;
    uint64_t br = 0;
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) r.l[i] = sbb(l[i], b.l[i], br, br);
    // On borrow add p back: mask is all ones when br == 1.
    const uint64_t mask = 0 - br;
    uint64_t c = 0;
    const LimbValues p = limb_values<Const::kModulus>();
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) r.l[i] = adc(r.l[i], p.v[i] & mask, c, c);
    return r;
#endif
  }
  ZKP_HD MontField operator-() const {
    return zero() - *this;
  }
  ZKP_HD MontField dbl() const {
    return *this + *this;
  }
  ZKP_HD MontField& operator+=(const MontField& b) {
    return *this = *this + b;
  }
  ZKP_HD MontField& operator-=(const MontField& b) {
    return *this = *this - b;
  }
  // In place (the product is written straight into this: no temporary and no 48-byte copy,
  // whose vector loads would stall on the assembly's 8-byte stores).
  ZKP_HD MontField& operator*=(const MontField& b) {
#if defined(ZKP_HAVE_MONT_MUL_ADX) && !defined(__CUDA_ARCH__)
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (kCpuHasAdx) [[likely]] {
        if constexpr (kLimbs == 6) {
          zkp_mont_mul_adx_6(l, l, b.l, kModulus.data(), kInv);
        } else {
          zkp_mont_mul_adx_4(l, l, b.l, kModulus.data(), kInv);
        }
        return *this;
      }
    }
#endif
    return *this = *this * b;
  }

  // Montgomery product a * b * R^-1 mod p: CIOS without the extra carry word. On x86-64 CPUs
  // with BMI2 + ADX (checked once at start-up) one call to the generated MULX/ADCX/ADOX code,
  // reduction included; otherwise, on the host, one call to the portable loop. Both are out of
  // line: inlining ~150 instructions at every product made G2 and pairing code take minutes to
  // compile, for no gain. On the device the portable loop is inlined.
  ZKP_HD MontField operator*(const MontField& b) const {
#if defined(__CUDA_ARCH__)
    return mul_chain<mul32::Ptx>(b);
#else
#if defined(ZKP_HAVE_MONT_MUL_ADX)
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (kCpuHasAdx) [[likely]] {
        MontField r;
        if constexpr (kLimbs == 6) {
          zkp_mont_mul_adx_6(r.l, l, b.l, kModulus.data(), kInv);
        } else {
          zkp_mont_mul_adx_4(r.l, l, b.l, kModulus.data(), kInv);
        }
        return r;
      }
    }
#endif
    return mul_portable_outline(*this, b);
#endif
  }
#if !defined(__CUDA_ARCH__)
  __attribute__((noinline)) static MontField mul_portable_outline(const MontField& a,
                                                                  const MontField& b) {
    return a.mul_portable(b);
  }
#endif
  ZKP_HD MontField mul_portable(const MontField& b) const {
    const LimbValues p = limb_values<Const::kModulus>();
    uint64_t t[kLimbs] = {0};
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) {
      uint64_t a_carry, c_carry;
      t[0] = mac(l[0], b.l[i], t[0], 0, a_carry);
      const uint64_t m = t[0] * kInv;
      mac(m, p.v[0], t[0], 0, c_carry);
      ZKP_UNROLL for (size_t j = 1; j < kLimbs; ++j) {
        t[j] = mac(l[j], b.l[i], t[j], a_carry, a_carry);
        t[j - 1] = mac(m, p.v[j], t[j], c_carry, c_carry);
      }
      t[kLimbs - 1] = c_carry + a_carry;
    }
    MontField r;
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) r.l[i] = t[i];
    r.reduce_once();
    return r;
  }
  // The product, the square, the sum and the difference as 32-bit carry chains (mont_mul32.h):
  // the device's arithmetic (Ops = mul32::Ptx, one PTX instruction per step); the tests run
  // them on the host with mul32::Emulated against the portable code.
  template <typename Ops>
  ZKP_HD MontField mul_chain(const MontField& b) const {
    return on_words<Ops>(
        b, [](Ops& ops, uint32_t* r, const uint32_t* x, const uint32_t* y, const uint32_t* q) {
          mul32::mont_mul<2 * kLimbs, kWideCios>(ops, r, x, y, q, static_cast<uint32_t>(kInv));
        });
  }
  template <typename Ops>
  ZKP_HD MontField sqr_chain() const {
    return on_words<Ops>(
        *this, [](Ops& ops, uint32_t* r, const uint32_t* x, const uint32_t*, const uint32_t* q) {
          mul32::mont_sqr<2 * kLimbs>(ops, r, x, q, static_cast<uint32_t>(kInv));
        });
  }
  template <typename Ops>
  ZKP_HD MontField add_chain(const MontField& b) const {
    return on_words<Ops>(b, [](Ops& ops, uint32_t* r, const uint32_t* x, const uint32_t* y,
                               const uint32_t* q) { mul32::add_mod<2 * kLimbs>(ops, r, x, y, q); });
  }
  template <typename Ops>
  ZKP_HD MontField sub_chain(const MontField& b) const {
    return on_words<Ops>(b, [](Ops& ops, uint32_t* r, const uint32_t* x, const uint32_t* y,
                               const uint32_t* q) { mul32::sub_mod<2 * kLimbs>(ops, r, x, y, q); });
  }
  // f(ops, r, x, y, q) over 32-bit words: x this, y b, q the modulus; returns r.
  template <typename Ops, typename F>
  ZKP_HD MontField on_words(const MontField& b, F f) const {
    uint32_t x[2 * kLimbs], y[2 * kLimbs], q[2 * kLimbs], r[2 * kLimbs];
    to_words(x);
    b.to_words(y);
    modulus_words(q);
    Ops ops;
    f(ops, r, x, y, q);
    return from_words(r);
  }
  ZKP_HD void to_words(uint32_t* w) const {
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) {
      w[2 * i] = static_cast<uint32_t>(l[i]);
      w[2 * i + 1] = static_cast<uint32_t>(l[i] >> 32);
    }
  }
  static ZKP_HD MontField from_words(const uint32_t* w) {
    MontField r;
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) {
      r.l[i] = uint64_t{w[2 * i]} | (uint64_t{w[2 * i + 1]} << 32);
    }
    return r;
  }
  static ZKP_HD void modulus_words(uint32_t* w) {
    const LimbValues p = limb_values<Const::kModulus>();
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) {
      w[2 * i] = static_cast<uint32_t>(p.v[i]);
      w[2 * i + 1] = static_cast<uint32_t>(p.v[i] >> 32);
    }
  }

  // On the device a square is the product with itself: with the renaming CIOS product
  // (mont_mul32.h) it measured fewer SASS instructions than the SOS square (Fp 392 against 512,
  // Fr 256 against 272; tools/bench/gpu/static_report.py), which stays as sqr_chain for the
  // comparison.
  ZKP_HD MontField sqr() const {
#if defined(__CUDA_ARCH__)
    return mul_chain<mul32::Ptx>(*this);
#else
    return *this * *this;
#endif
  }

  // this^e for an exponent given as little-endian limbs (any length), square-and-multiply.
  template <size_t M>
  ZKP_HD MontField pow(const Limbs<M>& e) const {
    MontField r = one();
    for (size_t i = M * 64; i-- > 0;) {
      r = r.sqr();
      if ((e[i / 64] >> (i % 64)) & 1) r = r * *this;
    }
    return r;
  }
  ZKP_HD MontField pow_u64(uint64_t e) const {
    return pow(Limbs<1>{e});
  }

  // The inverse of 0 is 0. On the host, the binary extended Euclidean algorithm (variable time,
  // ~3x faster than Fermat for Fp); on the device, Fermat (a^(p-2)).
  ZKP_HD MontField inverse() const {
#if defined(__CUDA_ARCH__)
    return inverse_fermat();
#else
    return inverse_binary();
#endif
  }
  ZKP_HD MontField inverse_fermat() const {
    const LimbValues e = limb_values<Const::kPMinus2>();
    Limbs<kLimbs> exponent{};
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) exponent[i] = e.v[i];
    return pow(exponent);
  }
  // Host only. Not constant-time: for public values (MSM buckets, affine conversion, pairings).
  MontField inverse_binary() const;

  // 1 for a non-zero square, -1 for a non-square, 0 for 0 (Euler's criterion).
  int legendre() const {
    if (is_zero()) return 0;
    return pow(kPMinus1Half).is_one() ? 1 : -1;
  }

  // A square root (Tonelli-Shanks; for p = 3 mod 4 this is one exponentiation). False when
  // this is not a square.
  bool sqrt(MontField& out) const;

  // Inverts every non-zero element in place with one inversion (Montgomery's trick); zeros stay.
  static void batch_inverse(MontField* v, size_t n);

  // ---- bytes ---------------------------------------------------------------------------------
  // Canonical big-endian bytes (kBytes). Non-canonical input (>= p) is rejected.
  static Result<MontField> from_bytes_be(const uint8_t* in);
  void to_bytes_be(uint8_t* out) const;
  std::string to_hex() const;  // big-endian, canonical, 2*kBytes chars
  static Result<MontField> from_hex(const std::string& hex);

  // Uniform in [0, p) from a generator of 64-bit words (rejection sampling).
  template <typename Rng>
  static MontField random(Rng& rng) {
    constexpr uint64_t kTopMask =
        kBits % 64 == 0 ? ~uint64_t{0} : (uint64_t{1} << (kBits % 64)) - 1;
    for (;;) {
      L v{};
      for (auto& x : v) x = rng();
      v[kLimbs - 1] &= kTopMask;
      if (limbs_less(v, kModulus)) return from_canonical(v);
    }
  }
  // Uniform from the operating system's CSPRNG (getrandom).
  static MontField random_secure();

  // ---- derived exponents ---------------------------------------------------------------------
  static constexpr L sub_small(L a, uint64_t s) {
    L b = limbs_from_u64<kLimbs>(s);
    limbs_sub(a, b);
    return a;
  }
  static constexpr L kPMinus1 = sub_small(kModulus, 1);
  static constexpr L kPMinus2 = sub_small(kModulus, 2);
  static constexpr L kPMinus1Half = limbs_shr1(kPMinus1);
  // p - 1 = 2^kTwoAdicity * kOddPart.
  static constexpr size_t two_adicity() {
    size_t s = 0;
    while (!limbs_bit(kPMinus1, s)) ++s;
    return s;
  }
  static constexpr size_t kTwoAdicity = two_adicity();
  static constexpr L odd_part() {
    L t = kPMinus1;
    for (size_t i = 0; i < kTwoAdicity; ++i) t = limbs_shr1(t);
    return t;
  }
  static constexpr L kOddPart = odd_part();

 private:
#if defined(ZKP_X86_ASM_ADDSUB)
  // this + b mod p for 6 limbs (both below p, 2p < 2^384): t = a + b, u = t - p, t = u unless
  // that borrowed.
  MontField add6(const MontField& b) const {
    uint64_t t0 = l[0], t1 = l[1], t2 = l[2], t3 = l[3], t4 = l[4], t5 = l[5];
    uint64_t u0, u1, u2, u3, u4, u5;
    __asm__(
        "addq %[b0], %[t0]\n\tadcq %[b1], %[t1]\n\tadcq %[b2], %[t2]\n\t"
        "adcq %[b3], %[t3]\n\tadcq %[b4], %[t4]\n\tadcq %[b5], %[t5]\n\t"
        "movq %[t0], %[u0]\n\tmovq %[t1], %[u1]\n\tmovq %[t2], %[u2]\n\t"
        "movq %[t3], %[u3]\n\tmovq %[t4], %[u4]\n\tmovq %[t5], %[u5]\n\t"
        "subq %[p0], %[u0]\n\tsbbq %[p1], %[u1]\n\tsbbq %[p2], %[u2]\n\t"
        "sbbq %[p3], %[u3]\n\tsbbq %[p4], %[u4]\n\tsbbq %[p5], %[u5]\n\t"
        "cmovncq %[u0], %[t0]\n\tcmovncq %[u1], %[t1]\n\tcmovncq %[u2], %[t2]\n\t"
        "cmovncq %[u3], %[t3]\n\tcmovncq %[u4], %[t4]\n\tcmovncq %[u5], %[t5]"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4),
          [t5] "+&r"(t5), [u0] "=&r"(u0), [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3),
          [u4] "=&r"(u4), [u5] "=&r"(u5)
        : [b0] "m"(b.l[0]), [b1] "m"(b.l[1]), [b2] "m"(b.l[2]), [b3] "m"(b.l[3]), [b4] "m"(b.l[4]),
          [b5] "m"(b.l[5]), [p0] "m"(kModulus[0]), [p1] "m"(kModulus[1]), [p2] "m"(kModulus[2]),
          [p3] "m"(kModulus[3]), [p4] "m"(kModulus[4]), [p5] "m"(kModulus[5])
        : "cc");
    MontField r;
    r.l[0] = t0, r.l[1] = t1, r.l[2] = t2, r.l[3] = t3, r.l[4] = t4, r.l[5] = t5;
    return r;
  }
  // this - b mod p for 6 limbs: t = a - b; on borrow add p (masked by the borrow). The masked
  // p goes through fixed scratch registers (r8-r13, clobbered): named operands would pass asm's
  // 30-operand limit.
  MontField sub6(const MontField& b) const {
    uint64_t t0 = l[0], t1 = l[1], t2 = l[2], t3 = l[3], t4 = l[4], t5 = l[5];
    uint64_t m;
    __asm__(
        "subq %[b0], %[t0]\n\tsbbq %[b1], %[t1]\n\tsbbq %[b2], %[t2]\n\t"
        "sbbq %[b3], %[t3]\n\tsbbq %[b4], %[t4]\n\tsbbq %[b5], %[t5]\n\t"
        "sbbq %[m], %[m]\n\t"
        "movq %[p0], %%r8\n\tmovq %[p1], %%r9\n\tmovq %[p2], %%r10\n\t"
        "movq %[p3], %%r11\n\tmovq %[p4], %%r12\n\tmovq %[p5], %%r13\n\t"
        "andq %[m], %%r8\n\tandq %[m], %%r9\n\tandq %[m], %%r10\n\t"
        "andq %[m], %%r11\n\tandq %[m], %%r12\n\tandq %[m], %%r13\n\t"
        "addq %%r8, %[t0]\n\tadcq %%r9, %[t1]\n\tadcq %%r10, %[t2]\n\t"
        "adcq %%r11, %[t3]\n\tadcq %%r12, %[t4]\n\tadcq %%r13, %[t5]"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4),
          [t5] "+&r"(t5), [m] "=&r"(m)
        : [b0] "m"(b.l[0]), [b1] "m"(b.l[1]), [b2] "m"(b.l[2]), [b3] "m"(b.l[3]), [b4] "m"(b.l[4]),
          [b5] "m"(b.l[5]), [p0] "m"(kModulus[0]), [p1] "m"(kModulus[1]), [p2] "m"(kModulus[2]),
          [p3] "m"(kModulus[3]), [p4] "m"(kModulus[4]), [p5] "m"(kModulus[5])
        : "cc", "r8", "r9", "r10", "r11", "r12", "r13");
    MontField r;
    r.l[0] = t0, r.l[1] = t1, r.l[2] = t2, r.l[3] = t3, r.l[4] = t4, r.l[5] = t5;
    return r;
  }
#endif

  ZKP_HD void reduce_once() {
    uint64_t t[kLimbs];
    uint64_t br = 0;
    const LimbValues p = limb_values<Const::kModulus>();
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) t[i] = sbb(l[i], p.v[i], br, br);
    // Keep the subtraction when it did not borrow (this >= p). A select per limb: GCC makes it
    // a CMOV; the and/or mask form was vectorized into SSE shuffles (3x the instructions).
    ZKP_UNROLL for (size_t i = 0; i < kLimbs; ++i) l[i] = br ? l[i] : t[i];
  }
};

}  // namespace zkpipe::crypto

#include "zkpipe/crypto/mont_field_impl.h"
