// SHA-256, native and in circuit: FIPS 180-4 example vectors, random messages against OpenSSL,
// pinned constraint counts, tamper detection, witness-only mode equal to record mode.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::gadgets {
namespace {

using groth16::check_satisfied;

// The FIPS 180-4 examples (NIST "Examples with intermediate values", SHA-256).
struct Vector {
  std::string message;
  const char* digest_hex;
};
const Vector kVectors[] = {
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
     "opqrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

std::string hex(std::span<const uint8_t> bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

// Message bits byte-major, MSB first: allocated (or constants).
std::vector<Boolean> message_bits(ConstraintSystem& cs, std::span<const uint8_t> msg,
                                  bool constant = false) {
  std::vector<Boolean> bits;
  for (uint8_t byte : msg) {
    for (int i = 7; i >= 0; --i) {
      const bool v = (byte >> i) & 1;
      bits.push_back(constant ? Boolean::constant(v) : Boolean::alloc(cs, v));
    }
  }
  return bits;
}

std::vector<uint8_t> digest_bytes(const std::vector<Boolean>& bits) {
  REQUIRE(bits.size() == 256);
  std::vector<uint8_t> out(32, 0);
  for (size_t i = 0; i < 256; ++i) out[i / 8] |= uint8_t{bits[i].value()} << (7 - i % 8);
  return out;
}

// Hashes msg in circuit in record mode (R1CS satisfied) and witness-only mode (same
// assignment); returns the digest and the number of constraints of the hash.
std::pair<std::string, uint64_t> hash_in_circuit(std::span<const uint8_t> msg) {
  std::string digest;
  uint64_t constraints = 0;
  auto circuit = [&](ConstraintSystem& cs) {
    const std::vector<Boolean> bits = message_bits(cs, msg);
    const uint64_t before = cs.num_constraints();
    digest = hex(digest_bytes(sha256(cs, bits)));
    constraints = cs.num_constraints() - before;
  };
  auto rec = ConstraintSystem::recorder();
  circuit(rec);
  REQUIRE(rec.finish().ok());
  const auto r1cs = rec.take_r1cs();
  const auto [inputs, aux] = rec.take_witness();
  REQUIRE(check_satisfied(r1cs, {inputs, aux}).ok());
  std::vector<Fr> w_inputs(inputs.size()), w_aux(aux.size());
  auto wit = ConstraintSystem::witness({w_inputs, w_aux});
  const std::string recorded = digest;
  circuit(wit);
  REQUIRE(wit.finish().ok());
  REQUIRE(digest == recorded);
  REQUIRE(wit.num_constraints() == r1cs.num_constraints());
  REQUIRE(w_inputs == inputs);
  REQUIRE(w_aux == aux);
  return {digest, constraints};
}

std::array<UInt32, 8> alloc_state(ConstraintSystem& cs, const std::array<uint32_t, 8>& s) {
  std::array<UInt32, 8> out;
  for (size_t i = 0; i < 8; ++i) out[i] = UInt32::alloc(cs, s[i]);
  return out;
}

}  // namespace

TEST_CASE("SHA-256: native hash matches the FIPS 180-4 examples", "[gadgets][sha256]") {
  for (const Vector& v : kVectors) {
    INFO("message '" << v.message << "'");
    CHECK(hex(sha256(bytes_of(v.message))) == v.digest_hex);
  }
  // The bare compression on the padded one-block message "abc".
  uint8_t block[64] = {'a', 'b', 'c', 0x80};
  block[63] = 24;
  std::array<uint32_t, 8> state = kSha256Iv;
  sha256_compress(state, block);
  std::vector<uint8_t> out;
  for (uint32_t w : state) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(w >> s));
  }
  CHECK(hex(out) == kVectors[0].digest_hex);
}

TEST_CASE("SHA-256: in-circuit hash matches the FIPS 180-4 examples", "[gadgets][sha256]") {
  for (const Vector& v : kVectors) {
    INFO("message '" << v.message << "'");
    CHECK(hash_in_circuit(bytes_of(v.message)).first == v.digest_hex);
  }
}

TEST_CASE("SHA-256: random messages of 0 to 200 bytes in circuit match OpenSSL",
          "[gadgets][sha256]") {
  std::mt19937 rng(17);
  // Witness-only mode for every length (fast); record mode with the R1CS checked for the
  // lengths around the padding boundaries.
  for (size_t len = 0; len <= 200; ++len) {
    std::vector<uint8_t> msg(len);
    for (auto& b : msg) b = static_cast<uint8_t>(rng());
    const std::string expected = hex(sha256(msg));
    INFO("length " << len);
    if (len == 0 || len == 55 || len == 56 || len == 64 || len == 119 || len == 200) {
      CHECK(hash_in_circuit(msg).first == expected);
      continue;
    }
    const size_t aux_bits = 8 * len;
    const size_t blocks = (8 * len + 1 + 64 + 511) / 512;
    std::vector<Fr> inputs(1), aux(aux_bits + blocks * 20000);  // > aux per compression
    auto cs = ConstraintSystem::witness({inputs, aux});
    const std::vector<Boolean> digest = sha256(cs, message_bits(cs, msg));
    REQUIRE(cs.finish().ok());
    CHECK(hex(digest_bytes(digest)) == expected);
  }
}

TEST_CASE("SHA-256: constant messages cost no constraints", "[gadgets][sha256]") {
  auto cs = ConstraintSystem::recorder();
  const auto msg = bytes_of(kVectors[3].message);
  const std::vector<Boolean> digest = sha256(cs, message_bits(cs, msg, /*constant=*/true));
  CHECK(cs.num_constraints() == 0);
  CHECK(cs.num_aux() == 0);
  CHECK(hex(digest_bytes(digest)) == kVectors[3].digest_hex);
}

TEST_CASE("SHA-256: constraint counts are pinned", "[gadgets][sha256]") {
  std::mt19937 rng(19);
  // One compression with variable state and block.
  auto cs = ConstraintSystem::recorder();
  std::array<uint32_t, 8> state_values;
  for (auto& w : state_values) w = rng();
  std::vector<uint8_t> block(64);
  for (auto& b : block) b = static_cast<uint8_t>(rng());
  const auto state = alloc_state(cs, state_values);
  const auto bits = message_bits(cs, block);
  const uint64_t before = cs.num_constraints();
  const auto out = sha256_compress(cs, state, bits);
  CHECK(cs.num_constraints() - before == 26282);
  sha256_compress(state_values, block.data());
  for (size_t i = 0; i < 8; ++i) CHECK(out[i].value() == state_values[i]);
  // A 64-byte message: a compression from the constant IV, then one of the constant padding
  // block.
  std::vector<uint8_t> msg(64);
  for (auto& b : msg) b = static_cast<uint8_t>(rng());
  const auto [digest, constraints] = hash_in_circuit(msg);
  CHECK(digest == hex(sha256(msg)));
  CHECK(constraints == 45077);
}

TEST_CASE("SHA-256: a flipped aux bit is caught", "[gadgets][sha256]") {
  std::mt19937 rng(23);
  auto cs = ConstraintSystem::recorder();
  std::array<uint32_t, 8> state_values;
  for (auto& w : state_values) w = rng();
  std::vector<uint8_t> block(64);
  for (auto& b : block) b = static_cast<uint8_t>(rng());
  const auto bits = message_bits(cs, block);
  (void)sha256_compress(cs, alloc_state(cs, state_values), bits);
  const auto r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  REQUIRE(check_satisfied(r1cs, {inputs, aux}).ok());
  // Every aux variable of the compression is a bit: flipping any one must break a constraint.
  for (int i = 0; i < 64; ++i) {
    const size_t k = rng() % aux.size();
    INFO("aux " << k);
    const Fr saved = aux[k];
    REQUIRE((saved == Fr::zero() || saved == Fr::one()));
    aux[k] = Fr::one() - saved;
    CHECK_FALSE(check_satisfied(r1cs, {inputs, aux}).ok());
    aux[k] = saved;
  }
}

}  // namespace zkpipe::gadgets
