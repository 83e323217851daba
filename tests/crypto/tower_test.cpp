// Fp6 and Fp12: ring axioms on random elements, the sparse products against full ones, Frobenius
// maps against a^p and their coefficients recomputed with independent big-integer exponents,
// cyclotomic squaring, and known answers from @noble/curves (tests/vectors/fp12.json).
#include <random>

#include <catch2/catch.hpp>

#include "crypto/vectors.h"
#include "zkpipe/crypto/fp12.h"

using namespace zkpipe::crypto;
using zkpipe::test::fp2_from_json;
using zkpipe::test::load_vectors;

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r(0x7a6b7069706531ull);
  return r;
}
Fp2 random_fp2() {
  return {Fp::random(rng()), Fp::random(rng())};
}
Fp6 random_fp6() {
  return {random_fp2(), random_fp2(), random_fp2()};
}
Fp12 random_fp12() {
  return {random_fp6(), random_fp6()};
}

Fp6 fp6_from_json(const nlohmann::json& j) {
  return {fp2_from_json(j[0]), fp2_from_json(j[1]), fp2_from_json(j[2])};
}
Fp12 fp12_from_json(const nlohmann::json& j) {
  return {fp6_from_json(j[0]), fp6_from_json(j[1])};
}

// The easy part of the final exponentiation, a^((p^6 - 1)(p^2 + 1)): a cyclotomic element.
Fp12 to_cyclotomic(const Fp12& a) {
  Fp12 t = a.conjugate() * a.inverse();
  return t.frobenius(2) * t;
}

// ---- a small big-integer toolkit, independent of bigint.h, for the Frobenius exponents ----
constexpr size_t kWide = 68;  // p^11 < 2^4191
using Wide = std::array<uint64_t, kWide>;

Wide wide_mul(const Wide& a, const Wide& b) {
  Wide r{};
  for (size_t i = 0; i < kWide; ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; i + j < kWide; ++j) {
      unsigned __int128 t = static_cast<unsigned __int128>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
  }
  return r;
}
Wide wide_small_mul(Wide a, uint64_t m) {
  unsigned __int128 carry = 0;
  for (auto& x : a) {
    unsigned __int128 t = static_cast<unsigned __int128>(x) * m + carry;
    x = static_cast<uint64_t>(t);
    carry = t >> 64;
  }
  return a;
}
// a / d, returning the remainder in *rem.
Wide wide_div_small(Wide a, uint64_t d, uint64_t* rem) {
  unsigned __int128 r = 0;
  for (size_t i = kWide; i-- > 0;) {
    unsigned __int128 cur = (r << 64) | a[i];
    a[i] = static_cast<uint64_t>(cur / d);
    r = cur % d;
  }
  *rem = static_cast<uint64_t>(r);
  return a;
}
Wide wide_from_p() {
  Wide w{};
  for (size_t i = 0; i < Fp::kLimbs; ++i) w[i] = Fp::kModulus[i];
  return w;
}

}  // namespace

TEST_CASE("Fp6: ring axioms hold on random elements", "[crypto]") {
  const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  const Fp2 xi{Fp::one(), Fp::one()};
  CHECK(v * v * v == Fp6{xi, Fp2::zero(), Fp2::zero()});
  for (int i = 0; i < 20; ++i) {
    Fp6 a = random_fp6(), b = random_fp6(), c = random_fp6();
    CHECK((a * b) * c == a * (b * c));
    CHECK(a * b == b * a);
    CHECK(a * (b + c) == a * b + a * c);
    CHECK((a - b) + b == a);
    CHECK(a + (-a) == Fp6::zero());
    CHECK(a.sqr() == a * a);
    CHECK(a * a.inverse() == Fp6::one());
    CHECK(a * Fp6::one() == a);
    CHECK(a.dbl() == a + a);
    CHECK(a.mul_by_nonresidue() == a * v);
    CHECK(a.mul_by_01(b.c0, b.c1) == a * Fp6{b.c0, b.c1, Fp2::zero()});
    CHECK(a.mul_by_1(b.c1) == a * Fp6{Fp2::zero(), b.c1, Fp2::zero()});
    CHECK(a * c.c2 == a * Fp6{c.c2, Fp2::zero(), Fp2::zero()});
  }
  CHECK(Fp6::zero().inverse() == Fp6::zero());
}

TEST_CASE("Fp12: ring axioms hold on random elements", "[crypto]") {
  const Fp12 w{Fp6::zero(), Fp6::one()};
  const Fp12 v{{Fp2::zero(), Fp2::one(), Fp2::zero()}, Fp6::zero()};
  CHECK(w * w == v);
  for (int i = 0; i < 10; ++i) {
    Fp12 a = random_fp12(), b = random_fp12(), c = random_fp12();
    CHECK((a * b) * c == a * (b * c));
    CHECK(a * b == b * a);
    CHECK(a * (b + c) == a * b + a * c);
    CHECK((a - b) + b == a);
    CHECK(a + (-a) == Fp12::zero());
    CHECK(a.sqr() == a * a);
    CHECK(a * a.inverse() == Fp12::one());
    CHECK(a * Fp12::one() == a);
    CHECK(a.conjugate() == a.frobenius(6));
    CHECK(a.pow(Limbs<1>{5}) == a * a * a * a * a);
  }
  CHECK(Fp12::zero().inverse() == Fp12::zero());
  CHECK(Fp12::one().is_one());
  CHECK(!Fp12::zero().is_one());
}

TEST_CASE("Fp12: mul_by_014 equals the full product with the sparse element", "[crypto]") {
  for (int i = 0; i < 10; ++i) {
    Fp12 a = random_fp12();
    Fp2 o0 = random_fp2(), o1 = random_fp2(), o4 = random_fp2();
    Fp12 sparse{{o0, o1, Fp2::zero()}, {Fp2::zero(), o4, Fp2::zero()}};
    CHECK(a.mul_by_014(o0, o1, o4) == a * sparse);
  }
}

TEST_CASE("Fp12: Frobenius maps equal powers of p", "[crypto]") {
  for (int i = 0; i < 3; ++i) {
    Fp12 a = random_fp12();
    Fp12 power = a;  // a^(p^k)
    for (size_t k = 1; k <= 12; ++k) {
      power = power.pow(Fp::kModulus);
      INFO("k = " << k);
      CHECK(a.frobenius(k) == power);
      CHECK(a.c0.frobenius(k) == power.c0);  // Fp6 is a subfield: same map restricted
    }
    CHECK(power == a);  // p^12: the identity on Fp12
    CHECK(a.frobenius(1).frobenius(1).frobenius(1) == a.frobenius(3));
  }
}

TEST_CASE("Fp12: Frobenius coefficients recomputed as xi^(j (p^k - 1) / 6)", "[crypto]") {
  const Fp2 xi{Fp::one(), Fp::one()};
  const Wide p = wide_from_p();
  Wide pk{};
  pk[0] = 1;
  for (size_t k = 0; k < 12; ++k) {
    Wide e = pk;  // p^k - 1, then divided by 6
    e[0] -= 1;    // p^k is odd, so no borrow
    uint64_t rem = 1;
    e = wide_div_small(e, 6, &rem);
    REQUIRE(rem == 0);
    for (size_t j = 0; j < 6; ++j) {
      INFO("k = " << k << ", j = " << j);
      CHECK(frobenius_coeff(k, j) == xi.pow(wide_small_mul(e, j)));
    }
    pk = wide_mul(pk, p);
  }
}

TEST_CASE("Fp12: cyclotomic squaring equals squaring in the cyclotomic subgroup", "[crypto]") {
  for (int i = 0; i < 10; ++i) {
    Fp12 m = to_cyclotomic(random_fp12());
    CHECK(m * m.conjugate() == Fp12::one());  // unitary
    CHECK(m.cyclotomic_sqr() == m.sqr());
    CHECK(m.cyclotomic_sqr().cyclotomic_sqr() == m.sqr().sqr());
  }
  // Outside the subgroup the shortcut does not apply.
  Fp12 a = random_fp12();
  CHECK(a.cyclotomic_sqr() != a.sqr());
}

TEST_CASE("Fp12: known answers from noble", "[crypto]") {
  auto v = load_vectors("fp12.json");
  REQUIRE(v["cases"].size() >= 1);
  for (const auto& c : v["cases"]) {
    Fp12 a = fp12_from_json(c["a"]), b = fp12_from_json(c["b"]);
    INFO("a = " << a.to_hex());
    CHECK(a * b == fp12_from_json(c["mul"]));
    CHECK(a.sqr() == fp12_from_json(c["sqr"]));
    CHECK(a.inverse() == fp12_from_json(c["inv_a"]));
    CHECK(a.frobenius(1) == fp12_from_json(c["frob1_a"]));
    CHECK(a.frobenius(2) == fp12_from_json(c["frob2_a"]));
    CHECK(a.frobenius(3) == fp12_from_json(c["frob3_a"]));
  }
  REQUIRE(v["cyclotomic"].size() >= 1);
  for (const auto& c : v["cyclotomic"]) {
    Fp12 a = fp12_from_json(c["a"]);
    Fp12 m = to_cyclotomic(a);
    CHECK(m == fp12_from_json(c["cyclo"]));
    CHECK(m.cyclotomic_sqr() == fp12_from_json(c["cyclo_sqr"]));
  }
}
