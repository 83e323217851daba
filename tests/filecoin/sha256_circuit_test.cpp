// SHA-256 in circuit as bellperson synthesizes it (zkpipe/filecoin_circuit/sha256.h), against
// the counts bellperson's and rust-fil-proofs' own tests assert: a compression of 512 allocated
// bits 25,840 constraints, a padded 512-bit message 44,874, the blank hash 0 (bellperson
// gadgets/sha256.rs tests), and the SHA-256 PoR circuits of storage-proofs-core
// tests/por_circuit.rs (64 leaves, public root: 272,295 / 216,258 / 250,987 for arity 2 / 4 /
// 8). Digests equal OpenSSL's, every recorded circuit is satisfied, and a witness-only run
// allocates the same values.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "filecoin/circuit_helpers.h"
#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/filecoin_circuit/sha256.h"
#include "zkpipe/gadgets/sha256.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

constexpr std::array<uint32_t, 8> kIv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

std::array<UInt32, 8> iv_words() {
  std::array<UInt32, 8> iv;
  for (size_t i = 0; i < 8; ++i) iv[i] = UInt32::constant(kIv[i]);
  return iv;
}

std::vector<uint8_t> bytes_of(size_t n, uint64_t seed) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((seed * 0x9e3779b1u + i * 131) >> 5);
  return out;
}

// SHA-256 bit order: bytes in order, each most significant bit first.
std::vector<Boolean> alloc_bits(ConstraintSystem& cs, const std::vector<uint8_t>& bytes) {
  std::vector<Boolean> bits;
  for (uint8_t b : bytes) {
    for (int k = 7; k >= 0; --k) bits.push_back(alloc_bit(cs, (b >> k) & 1));
  }
  return bits;
}

std::vector<uint8_t> to_bytes(const std::vector<Boolean>& bits) {
  std::vector<uint8_t> out(bits.size() / 8);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i].value()) out[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
  }
  return out;
}

std::vector<uint8_t> openssl_sha256(const std::vector<uint8_t>& m) {
  const Sha256Digest d = zkpipe::sha256(m);
  return {d.begin(), d.end()};
}

TEST_CASE("Filecoin SHA-256 circuit: bellperson's counts and digests", "[filecoin][circuit]") {
  SECTION("the blank hash folds to constants (test_blank_hash)") {
    ConstraintSystem cs = ConstraintSystem::recorder();
    std::vector<Boolean> block(512, Boolean::constant(false));
    block[0] = Boolean::constant(true);
    const std::array<UInt32, 8> out = sha256_compress(cs, block, iv_words());
    CHECK(cs.num_constraints() == 0);
    std::vector<Boolean> bits;
    for (const UInt32& w : out) w.append_bits_be(bits);
    CHECK(to_bytes(bits) == openssl_sha256({}));
  }
  SECTION("one compression of 512 allocated bits: 25,840 (test_full_block)") {
    const std::vector<uint8_t> block = bytes_of(64, 1);
    std::array<uint32_t, 8> expected = kIv;
    gadgets::sha256_compress(expected, block.data());
    std::array<uint32_t, 8> got{};
    const groth16::R1cs r1cs = record_satisfied([&](ConstraintSystem& cs) {
      const std::vector<Boolean> bits = alloc_bits(cs, block);
      const std::array<UInt32, 8> out = sha256_compress(cs, bits, iv_words());
      for (size_t i = 0; i < 8; ++i) got[i] = out[i].value();
    });
    CHECK(r1cs.num_constraints() - 512 == 25'840);
    CHECK(got == expected);
  }
  SECTION("a padded 512-bit message: 44,874 (test_full_hash)") {
    const std::vector<uint8_t> m = bytes_of(64, 2);
    std::vector<uint8_t> digest;
    const groth16::R1cs r1cs = record_satisfied(
        [&](ConstraintSystem& cs) { digest = to_bytes(sha256_message(cs, alloc_bits(cs, m))); });
    CHECK(r1cs.num_constraints() - 512 == 44'874);
    CHECK(digest == openssl_sha256(m));
  }
  SECTION("messages of every padding case equal OpenSSL's digest") {
    for (size_t n : {0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 200}) {
      INFO("bytes " << n);
      const std::vector<uint8_t> m = bytes_of(n, n + 7);
      std::vector<uint8_t> digest;
      record_satisfied(
          [&](ConstraintSystem& cs) { digest = to_bytes(sha256_message(cs, alloc_bits(cs, m))); });
      CHECK(digest == openssl_sha256(m));
    }
  }
}

TEST_CASE("Filecoin SHA-256 circuit: a wrong digest bit leaves a constraint unsatisfied",
          "[filecoin][circuit]") {
  ConstraintSystem cs = ConstraintSystem::recorder();
  const std::vector<uint8_t> m = bytes_of(40, 3);
  const std::vector<Boolean> digest = sha256_message(cs, alloc_bits(cs, m));
  // claim the digest's first bit is the opposite of what it is
  const Boolean claimed = alloc_bit(cs, !digest[0].value());
  Boolean::enforce_equal(cs, digest[0], claimed);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  CHECK_FALSE(groth16::check_satisfied(r1cs, {inputs, aux}, 1).ok());
}

TEST_CASE("Filecoin SHA-256 circuit: hash2 is Sha256Hasher's hash of two domain elements",
          "[filecoin][circuit]") {
  const Fr a = sample(11), b = sample(12);
  Fr got;
  record_satisfied([&](ConstraintSystem& cs) {
    got = sha256_hash2(cs, Num::alloc(cs, a), Num::alloc(cs, b)).value;
  });
  const Result<Fr> want = filecoin::fr_from_domain(
      filecoin::sha256_trunc254_pair(filecoin::domain_from_fr(a), filecoin::domain_from_fr(b)));
  REQUIRE(want.ok());
  CHECK(got == *want);
  const Fr pair[2] = {a, b};
  CHECK(tree_hash(TreeHasher::kSha256, pair) == *want);
}

TEST_CASE("Filecoin SHA-256 circuit: PoR counts of storage-proofs-core's SHA-256 trees",
          "[filecoin][circuit][heavy]") {
  // tests/por_circuit.rs: test_por_circuit_sha256_base_{2,4,8}: 64 leaves, public root, 3 inputs
  const std::pair<uint32_t, uint64_t> cases[] = {{2, 272'295}, {4, 216'258}, {8, 250'987}};
  for (const auto& [arity, expected] : cases) {
    INFO("arity " << arity);
    const Tree tree = random_tree(64, {arity, 0, 0}, 300 + arity, TreeHasher::kSha256);
    const uint64_t challenge = 64 / 3 + 1;
    const MerkleOpening o = tree.open(challenge);
    CHECK(opening_root(o) == tree.root());
    std::vector<Fr> inputs;
    const groth16::R1cs r1cs = record_satisfied(
        [&](ConstraintSystem& cs) { por_standalone(cs, o, tree.root(), false); }, &inputs);
    CHECK(r1cs.num_constraints() == expected);
    REQUIRE(inputs.size() == 3);
    CHECK(inputs[1] == Fr::from_u64(challenge));
    CHECK(inputs[2] == tree.root());
  }
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
