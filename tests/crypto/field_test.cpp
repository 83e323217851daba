// Fp and Fr: known answers from @noble/curves, derived constants recomputed independently,
// bytes and hex, batch inversion, square roots.
#include <random>

#include <catch2/catch.hpp>

#include "crypto/vectors.h"
#include "zkpipe/crypto/field_edges.h"
#include "zkpipe/crypto/fp2.h"

using namespace zkpipe::crypto;
using zkpipe::test::field_from_hex;
using zkpipe::test::load_vectors;

namespace {

template <typename F>
void check_field_vectors(const char* file) {
  auto v = load_vectors(file);
  uint8_t modulus_be[F::kBytes];
  for (size_t i = 0; i < F::kBytes; ++i) {
    modulus_be[i] = static_cast<uint8_t>(F::kModulus[(F::kBytes - 1 - i) / 8] >>
                                         (8 * ((F::kBytes - 1 - i) % 8)));
  }
  std::string hex;
  for (uint8_t b : modulus_be) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
  CHECK(hex == v["modulus"].get<std::string>());
  for (const auto& c : v["cases"]) {
    INFO(c.dump());
    F a = field_from_hex<F>(c["a"]), b = field_from_hex<F>(c["b"]);
    CHECK((a + b).to_hex() == c["add"].get<std::string>());
    CHECK((a - b).to_hex() == c["sub"].get<std::string>());
    CHECK((a * b).to_hex() == c["mul"].get<std::string>());
    CHECK(a.sqr().to_hex() == c["sqr"].get<std::string>());
    CHECK((-a).to_hex() == c["neg_a"].get<std::string>());
    if (!c["inv_a"].is_null()) CHECK(a.inverse().to_hex() == c["inv_a"].get<std::string>());
    CHECK(a.legendre() == c["legendre_a"].get<int>());
    F root;
    const bool has_root = a.sqrt(root);
    CHECK(has_root == !c["sqrt_a"].is_null());
    if (has_root) {
      CHECK(root.sqr() == a);
      F noble_root = field_from_hex<F>(c["sqrt_a"]);
      CHECK((root == noble_root || root == -noble_root));
    }
  }
}

}  // namespace

TEST_CASE("Fp: known answers from noble", "[crypto]") {
  check_field_vectors<Fp>("fp.json");
}
TEST_CASE("Fr: known answers from noble", "[crypto]") {
  check_field_vectors<Fr>("fr.json");
}

TEST_CASE("Fr: the 2^32-th root of unity from generator 7 matches noble", "[crypto]") {
  auto v = load_vectors("fr.json");
  Fr root = Fr::from_u64(7).pow(Fr::kOddPart);
  CHECK(root.to_hex() == v["root_of_unity_2_32"].get<std::string>());
  Fr x = root;
  for (int i = 0; i < 31; ++i) x = x.sqr();
  CHECK(!x.is_one());
  CHECK(x.sqr().is_one());
}

TEST_CASE("MontField: derived constants recomputed independently", "[crypto]") {
  // R = 2^384 mod p: 1 in Montgomery form must act as the identity and to_canonical(one) == 1.
  std::mt19937_64 rng(7);
  Fp a = Fp::random(rng);
  CHECK(a * Fp::one() == a);
  CHECK(Fp::one().to_canonical() == limbs_from_u64<6>(1));
  CHECK(Fr::one().to_canonical() == limbs_from_u64<4>(1));
  // kInv: p[0] * (-kInv) == 1 mod 2^64.
  CHECK(Fp::kModulus[0] * (0 - Fp::kInv) == 1);
  CHECK(Fr::kModulus[0] * (0 - Fr::kInv) == 1);
  // from_u64 round trip exercises R^2.
  CHECK(Fp::from_u64(123456789).to_canonical() == limbs_from_u64<6>(123456789));
  // Fermat: a^(p-1) == 1; two-adicity: p - 1 == 2^s * t.
  CHECK(a.pow(Fp::kPMinus1).is_one());
  Limbs<4> t = Fr::kOddPart;
  for (size_t i = 0; i < Fr::kTwoAdicity; ++i) {
    uint64_t carry = 0;
    for (auto& limb : t) {
      uint64_t next = limb >> 63;
      limb = (limb << 1) | carry;
      carry = next;
    }
  }
  CHECK(t == Fr::kPMinus1);
}

TEST_CASE("MontField: bytes round trip and non-canonical input is rejected", "[crypto]") {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50; ++i) {
    Fp a = Fp::random(rng);
    uint8_t b[48];
    a.to_bytes_be(b);
    auto back = Fp::from_bytes_be(b);
    REQUIRE(back.ok());
    CHECK(*back == a);
  }
  uint8_t p_be[48];
  for (size_t i = 0; i < 48; ++i)
    p_be[i] = static_cast<uint8_t>(Fp::kModulus[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
  auto bad = Fp::from_bytes_be(p_be);
  CHECK(bad.status().code() == zkpipe::Code::kInvalidArgument);
  CHECK_THAT(bad.status().message(), Catch::Matchers::Contains("non-canonical"));
  CHECK(!Fr::from_hex("zz").ok());
  CHECK(!Fr::from_hex(std::string(64, 'g')).ok());
}

TEST_CASE("MontField: batch inversion equals single inversions, zeros stay zero", "[crypto]") {
  std::mt19937_64 rng(5);
  std::vector<Fr> v(33);
  for (auto& x : v) x = Fr::random(rng);
  v[0] = v[17] = Fr::zero();
  std::vector<Fr> w = v;
  Fr::batch_inverse(w.data(), w.size());
  for (size_t i = 0; i < v.size(); ++i) CHECK(w[i] == v[i].inverse());
}

TEST_CASE("Fp2: known answers from noble", "[crypto]") {
  auto v = load_vectors("fp2.json");
  for (const auto& c : v["cases"]) {
    INFO(c.dump());
    Fp2 a = zkpipe::test::fp2_from_json(c["a"]), b = zkpipe::test::fp2_from_json(c["b"]);
    auto eq = [](const Fp2& x, const nlohmann::json& j) {
      return x == zkpipe::test::fp2_from_json(j);
    };
    CHECK(eq(a + b, c["add"]));
    CHECK(eq(a - b, c["sub"]));
    CHECK(eq(a * b, c["mul"]));
    CHECK(eq(a.sqr(), c["sqr"]));
    if (!c["inv_a"].is_null()) CHECK(eq(a.inverse(), c["inv_a"]));
    CHECK(eq(a.conjugate(), c["frobenius_a"]));
    Fp2 root;
    const bool has_root = a.sqrt(root);
    CHECK(has_root == !c["sqrt_a"].is_null());
    if (has_root) CHECK(root.sqr() == a);
  }
}

TEST_CASE("MontField: secure random values are in range and differ", "[crypto]") {
  Fr a = Fr::random_secure(), b = Fr::random_secure();
  CHECK(a != b);
  CHECK(limbs_less(a.to_canonical(), Fr::kModulus));
}

TEST_CASE("MontField: the assembly multiplication agrees with the portable one", "[crypto]") {
  std::mt19937_64 rng(11);
  auto check = [&](auto tag) {
    using F = decltype(tag);
    std::vector<F> xs = field_edge_values<F>();
    for (int i = 0; i < 2000; ++i) xs.push_back(F::random(rng));
    for (size_t i = 0; i + 1 < xs.size(); ++i) {
      REQUIRE(xs[i] * xs[i + 1] == xs[i].mul_portable(xs[i + 1]));
      REQUIRE(xs[i] * xs[i] == xs[i].mul_portable(xs[i]));
      F y = xs[i];  // in place: the output aliases one or both inputs
      y *= xs[i + 1];
      REQUIRE(y == xs[i].mul_portable(xs[i + 1]));
      y *= y;
      REQUIRE(y == xs[i].mul_portable(xs[i + 1]).mul_portable(xs[i].mul_portable(xs[i + 1])));
    }
  };
  check(Fp{});
  check(Fr{});
}

// The device's product, square, sum and difference (mont_mul32.h: 32-bit carry chains, one PTX
// instruction a step) run here with the carry flag emulated: every pair of edge values, then
// random ones. Equal to the portable results (the host's + and - are those), they are canonical
// (< p) too.
TEST_CASE("MontField: the 32-bit carry-chain arithmetic agrees with the portable code",
          "[crypto]") {
  std::mt19937_64 rng(13);
  auto check = [&](auto tag) {
    using F = decltype(tag);
    const std::vector<F> edges = field_edge_values<F>();
    for (const F& a : edges) {
      INFO(a.to_hex());
      REQUIRE(a.template sqr_chain<mul32::Emulated>() == a.mul_portable(a));
      for (const F& b : edges) {
        INFO(b.to_hex());
        REQUIRE(a.template mul_chain<mul32::Emulated>(b) == a.mul_portable(b));
        REQUIRE(a.template add_chain<mul32::Emulated>(b) == a + b);
        REQUIRE(a.template sub_chain<mul32::Emulated>(b) == a - b);
      }
    }
    for (int i = 0; i < 5000; ++i) {
      const F a = F::random(rng), b = F::random(rng);
      REQUIRE(a.template mul_chain<mul32::Emulated>(b) == a.mul_portable(b));
      REQUIRE(a.template sqr_chain<mul32::Emulated>() == a.mul_portable(a));
      REQUIRE(a.template add_chain<mul32::Emulated>(b) == a + b);
      REQUIRE(a.template sub_chain<mul32::Emulated>(b) == a - b);
    }
  };
  check(Fp{});
  check(Fr{});
}

TEST_CASE("Fp2: the lazy-reduction product and square agree with the plain formulas", "[crypto]") {
  std::mt19937_64 rng(12);
  std::vector<Fp> parts{Fp::zero(), Fp::one(), -Fp::one()};
  Fp pm1, top{};  // raw words p - 1 and 2^320: extremes of the reductions
  for (size_t i = 0; i < Fp::kLimbs; ++i) pm1.l[i] = Fp::kModulus[i];
  pm1.l[0] -= 1;
  top.l[Fp::kLimbs - 1] = 1;
  parts.push_back(pm1);
  parts.push_back(top);
  std::vector<Fp2> xs;
  for (const Fp& a : parts) {
    for (const Fp& b : parts) xs.push_back({a, b});
  }
  for (int i = 0; i < 2000; ++i) xs.push_back({Fp::random(rng), Fp::random(rng)});
  for (size_t i = 0; i + 1 < xs.size(); ++i) {
    const Fp2 want = xs[i].mul_karatsuba(xs[i + 1]);
    REQUIRE(xs[i] * xs[i + 1] == want);
    Fp2 y = xs[i];
    y *= xs[i + 1];  // in place
    REQUIRE(y == want);
    y *= y;
    REQUIRE(y == want.mul_karatsuba(want));
    REQUIRE(xs[i].sqr() == xs[i].sqr_portable());
  }
  for (const Fp2& x : xs) {  // always fully reduced (raw words below p)
    const Fp2 sq = x * x;
    REQUIRE(
        limbs_less(Fp::L{sq.c0.l[0], sq.c0.l[1], sq.c0.l[2], sq.c0.l[3], sq.c0.l[4], sq.c0.l[5]},
                   Fp::kModulus));
    REQUIRE(
        limbs_less(Fp::L{sq.c1.l[0], sq.c1.l[1], sq.c1.l[2], sq.c1.l[3], sq.c1.l[4], sq.c1.l[5]},
                   Fp::kModulus));
  }
}

TEST_CASE("MontField: binary inversion agrees with Fermat and inverts", "[crypto]") {
  std::mt19937_64 rng(13);
  auto check = [&](auto tag) {
    using F = decltype(tag);
    std::vector<F> xs{F::one(), -F::one(), F::from_u64(2), -F::from_u64(2)};
    F raw1{}, rawp1;  // Montgomery words 1 and p - 1
    raw1.l[0] = 1;
    for (size_t i = 0; i < F::kLimbs; ++i) rawp1.l[i] = F::kModulus[i];
    rawp1.l[0] -= 1;
    xs.push_back(raw1);
    xs.push_back(rawp1);
    for (int i = 0; i < 300; ++i) xs.push_back(F::random(rng));
    for (const F& x : xs) {
      const F inv = x.inverse_binary();
      REQUIRE(inv == x.inverse_fermat());
      REQUIRE(inv * x == F::one());
    }
    REQUIRE(F::zero().inverse_binary().is_zero());
  };
  check(Fp{});
  check(Fr{});
}
