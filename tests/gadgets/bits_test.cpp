// Bit decomposition and packing of field elements, the strict (canonical) decomposition, and the
// Filecoin field-element <-> SHA-256 byte conventions, native and in circuit.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::gadgets {
namespace {

using groth16::check_satisfied;

bool satisfied(ConstraintSystem& cs) {
  auto r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  return check_satisfied(r1cs, {inputs, aux}).ok();
}

bool bit_of(const crypto::Limbs<4>& v, size_t i) {
  return (v[i / 64] >> (i % 64)) & 1;
}

Fr random_below_pow2(std::mt19937_64& rng, size_t nbits) {
  crypto::Limbs<4> v{};
  for (size_t i = 0; i < nbits; ++i) v[i / 64] |= (rng() & 1) << (i % 64);
  return Fr::from_canonical(v);
}

}  // namespace

TEST_CASE("Bits: to_bits_le and pack_bits_le round trip", "[gadgets]") {
  std::mt19937_64 rng(3);
  for (size_t nbits : {1, 8, 32, 64, 65, 200, 254}) {
    INFO("nbits " << nbits);
    const Fr x = random_below_pow2(rng, nbits);
    auto cs = ConstraintSystem::recorder();
    const Num num = Num::alloc(cs, x);
    const uint64_t before = cs.num_constraints();
    const std::vector<Boolean> bits = to_bits_le(cs, num, nbits);
    CHECK(cs.num_constraints() - before == nbits + 1);
    REQUIRE(bits.size() == nbits);
    const auto canonical = x.to_canonical();
    for (size_t i = 0; i < nbits; ++i) REQUIRE(bits[i].value() == bit_of(canonical, i));
    const Num packed = pack_bits_le(cs, bits);
    CHECK(packed.value == x);
    enforce_equal(cs, packed.lc(), num.lc());
    CHECK(satisfied(cs));
  }
}

TEST_CASE("Bits: to_bits_le rejects a value that needs more bits", "[gadgets]") {
  auto cs = ConstraintSystem::recorder();
  const Num num = Num::alloc(cs, Fr::from_u64(256));
  (void)to_bits_le(cs, num, 8);
  CHECK_FALSE(satisfied(cs));
}

TEST_CASE("Bits: to_bits_le_strict decomposes canonical values", "[gadgets]") {
  std::mt19937_64 rng(5);
  const Fr r_minus_1 = -Fr::one();
  std::vector<Fr> values = {Fr::zero(), Fr::one(), r_minus_1, r_minus_1 - Fr::one(),
                            Fr::from_canonical({0, 0, 0, 0x4000000000000000ull})};
  for (int i = 0; i < 8; ++i) values.push_back(Fr::random(rng));
  for (const Fr& x : values) {
    auto cs = ConstraintSystem::recorder();
    const Num num = Num::alloc(cs, x);
    const std::vector<Boolean> bits = to_bits_le_strict(cs, num);
    REQUIRE(bits.size() == 255);
    const auto canonical = x.to_canonical();
    for (size_t i = 0; i < 255; ++i) REQUIRE(bits[i].value() == bit_of(canonical, i));
    // 255 bits, the packing, 132 ANDs (133 one bits of r - 1 above its lowest zero, the first
    // free) and one per run of zeros (44), plus nothing for the Num.
    CHECK(cs.num_constraints() == 255 + 1 + 132 + 44);
    CHECK(satisfied(cs));
  }
}

TEST_CASE("Bits: to_bits_le_strict rejects a non-canonical encoding of r + small", "[gadgets]") {
  for (uint64_t small : std::initializer_list<uint64_t>{0, 1, 5, 0xfffffffeull}) {
    INFO("small " << small);
    crypto::Limbs<4> r_plus = Fr::kModulus;
    r_plus[0] += small;  // the low limb of r is 0xffffffff00000001: no carry
    {
      auto cs = ConstraintSystem::recorder();
      const Num num = Num::alloc(cs, Fr::from_u64(small));
      (void)detail::to_bits_le_strict_from(cs, num, r_plus);
      CHECK_FALSE(satisfied(cs));
    }
    {
      auto cs = ConstraintSystem::recorder();
      const Num num = Num::alloc(cs, Fr::from_u64(small));
      (void)detail::to_bits_le_strict_from(cs, num, {small, 0, 0, 0});
      CHECK(satisfied(cs));
    }
  }
}

TEST_CASE("Bits: native little-endian bytes and the SHA digest truncation", "[gadgets]") {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 16; ++i) {
    const Fr x = Fr::random(rng);
    const auto bytes = fr_to_le_bytes(x);
    auto back = fr_from_le_bytes(bytes);
    REQUIRE(back.ok());
    CHECK(*back == x);
  }
  CHECK(fr_to_le_bytes(Fr::from_u64(0x0102))[0] == 0x02);
  CHECK(fr_to_le_bytes(Fr::from_u64(0x0102))[1] == 0x01);
  std::array<uint8_t, 32> r_bytes{};
  for (size_t i = 0; i < 32; ++i)
    r_bytes[i] = static_cast<uint8_t>(Fr::kModulus[i / 8] >> (8 * (i % 8)));
  CHECK_FALSE(fr_from_le_bytes(r_bytes).ok());

  std::array<uint8_t, 32> ones;
  ones.fill(0xff);
  const auto top_cleared = fr_to_le_bytes(fr_from_sha_digest(ones));
  for (size_t i = 0; i < 31; ++i) CHECK(top_cleared[i] == 0xff);
  CHECK(top_cleared[31] == 0x3f);
}

TEST_CASE("Bits: field element to SHA bytes and digest to field element in circuit",
          "[gadgets][sha256]") {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 3; ++i) {
    const Fr x = Fr::random(rng);
    auto cs = ConstraintSystem::recorder();
    const Num num = Num::alloc(cs, x);
    const std::vector<Boolean> bits = to_bits_le_strict(cs, num);
    const std::vector<Boolean> sha_bits = bits_le_to_sha_bytes(bits);
    REQUIRE(sha_bits.size() == 256);
    const auto bytes = fr_to_le_bytes(x);
    for (size_t k = 0; k < 256; ++k) {
      REQUIRE(sha_bits[k].value() == ((bytes[k / 8] >> (7 - k % 8)) & 1));
    }
    const std::vector<Boolean> digest = sha256(cs, sha_bits);
    const uint64_t before = cs.num_constraints();
    const Num out = sha_digest_to_num(cs, digest);
    CHECK(cs.num_constraints() - before == 1);
    CHECK(out.value == fr_from_sha_digest(sha256(bytes)));
    CHECK(satisfied(cs));
  }
}

}  // namespace zkpipe::gadgets
