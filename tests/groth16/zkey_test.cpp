// snarkjs .zkey: reading snarkjs 0.7.6's key for the cubic circuit (tests/groth16/data, see its
// README), proving with it and verifying against snarkjs's exported key and the zkey's own key,
// rejection of a changed public input, corrupted files refused naming section and byte offset,
// and snarkjs's generator-5 roots of unity.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/groth16/zkey.h"

using namespace zkpipe::groth16;
using zkpipe::crypto::Fr;
using zkpipe::testing::read_bytes;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;
using zkpipe::testing::write_bytes;

namespace {

const std::string kDataDir = std::string(ZKPIPE_SOURCE_DIR) + "/tests/groth16/data";
const std::string kZkey = kDataDir + "/cubic.zkey";
const std::string kWtns = kDataDir + "/cubic.wtns";
const std::string kVkJson = kDataDir + "/cubic_vk.json";

const TempDir& temp_dir() {
  static const TempDir dir("zkpipe_zkey_test");
  return dir;
}

uint64_t le_at(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{b.at(at + i)} << (8 * i);
  return v;
}
// The byte offset of section `type`'s payload (walks the iden3 section table).
size_t section_begin(const std::vector<uint8_t>& b, uint32_t type) {
  size_t at = 12;
  const uint64_t count = le_at(b, 8, 4);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t t = le_at(b, at, 4), size = le_at(b, at + 4, 8);
    if (t == type) return at + 12;
    at += 12 + size;
  }
  FAIL("section " << type << " not found");
  return 0;
}

const SnarkjsKey& fixture_key() {
  static const SnarkjsKey key = [] {
    auto k = read_snarkjs_zkey(kZkey);
    if (!k.ok()) FAIL(k.status().to_string());
    return std::move(*k);
  }();
  return key;
}
std::vector<Fr> fixture_witness() {
  auto w = read_iden3_wtns(kWtns);
  REQUIRE(w.ok());
  return *w;
}

// A row's (column, canonical value) terms, sorted.
std::vector<std::pair<uint32_t, zkpipe::crypto::Limbs<4>>> row_terms(const SparseMatrix& m,
                                                                     size_t row) {
  std::vector<std::pair<uint32_t, zkpipe::crypto::Limbs<4>>> out;
  for (uint64_t t = m.row_begin[row]; t < m.row_begin[row + 1]; ++t) {
    out.emplace_back(m.column[t], m.value[t].to_canonical());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Reading the fixture with `patch` applied fails naming `section` and the byte offset `at`.
void require_refused(const std::string& name, std::vector<uint8_t> bytes,
                     const std::string& section, size_t at) {
  const std::string path = temp_dir().file(name);
  write_bytes(path, bytes);
  auto key = read_snarkjs_zkey(path);
  REQUIRE_FALSE(key.ok());
  const std::string msg = key.status().message();
  INFO(msg);
  CHECK(key.status().code() == zkpipe::Code::kInvalidArgument);
  CHECK(msg.find(path) != std::string::npos);
  CHECK(msg.find(section) != std::string::npos);
  CHECK(msg.find("at byte " + std::to_string(at)) != std::string::npos);
}

}  // namespace

TEST_CASE("zkey: snarkjs's cubic key reads with its sizes, vk and binding rows", "[groth16]") {
  const SnarkjsKey& key = fixture_key();
  CHECK(key.n_vars == 5);
  CHECK(key.n_public == 1);
  CHECK(key.domain_size == 8);
  CHECK(key.a_query.size() == 5);
  CHECK(key.b2_query.size() == 5);
  CHECK(key.c_query.size() == 3);
  CHECK(key.h_query.size() == 8);
  // snarkjs writes unused B bases as all-zero bytes: read as infinity.
  CHECK(std::count_if(key.b2_query.begin(), key.b2_query.end(),
                      [](const auto& p) { return p.infinity; }) > 0);
  auto vk = import_snarkjs_vk(read_text(kVkJson), kVkJson);
  REQUIRE(vk.ok());
  CHECK(vk->alpha_g1 == key.vk.alpha_g1);
  CHECK(vk->beta_g2 == key.vk.beta_g2);
  CHECK(vk->gamma_g2 == key.vk.gamma_g2);
  CHECK(vk->delta_g2 == key.vk.delta_g2);
  CHECK(vk->ic == key.vk.ic);

  // The coefficients decode to the recorded circuit's A and B, then one binding row per public
  // signal (signal i with coefficient 1) in A.
  zkpipe::groth16::ConstraintSystem cs = ConstraintSystem::recorder();
  REQUIRE(synthesize_example({"cubic", 0, 1}, cs).ok());
  REQUIRE(cs.finish().ok());
  const R1cs r1cs = cs.take_r1cs();
  const size_t m = r1cs.num_constraints();
  REQUIRE(key.a.rows() == 8);
  for (size_t row = 0; row < m; ++row) {
    CHECK(row_terms(key.a, row) == row_terms(r1cs.a, row));
    CHECK(row_terms(key.b, row) == row_terms(r1cs.b, row));
  }
  for (uint32_t i = 0; i <= key.n_public; ++i) {
    const auto terms = row_terms(key.a, m + i);
    REQUIRE(terms.size() == 1);
    CHECK(terms[0].first == i);
    CHECK(terms[0].second == Fr::one().to_canonical());
    CHECK(row_terms(key.b, m + i).empty());
  }
}

TEST_CASE("zkey: a proof with snarkjs's key verifies against its vk json and the zkey's vk",
          "[groth16]") {
  const SnarkjsKey& key = fixture_key();
  const std::vector<Fr> witness = fixture_witness();
  auto proof = prove_with_zkey(key, witness, ProverRandomness::secure(), 2);
  REQUIRE(proof.ok());
  const std::vector<Fr> public_inputs(witness.begin() + 1, witness.begin() + 1 + key.n_public);

  auto vk = import_snarkjs_vk(read_text(kVkJson), kVkJson);
  REQUIRE(vk.ok());
  const VerifyingKey* imported = &*vk;
  for (const VerifyingKey* k : {imported, &key.vk}) {
    const PreparedVerifyingKey pvk(*k);
    auto valid = verify(pvk, *proof, public_inputs);
    REQUIRE(valid.ok());
    CHECK(*valid);
    std::vector<Fr> tampered = public_inputs;
    tampered[0] += Fr::one();
    auto rejected = verify(pvk, *proof, tampered);
    REQUIRE(rejected.ok());
    CHECK_FALSE(*rejected);
  }
  // Same randomness, same proof, whatever the thread count.
  const ProverRandomness rand{Fr::from_u64(11), Fr::from_u64(12)};
  auto p1 = prove_with_zkey(key, witness, rand, 1);
  auto p4 = prove_with_zkey(key, witness, rand, 4);
  REQUIRE((p1.ok() && p4.ok()));
  CHECK(*p1 == *p4);
}

TEST_CASE("zkey: a witness of the wrong length is refused; a wrong witness gives a bad proof",
          "[groth16]") {
  const SnarkjsKey& key = fixture_key();
  std::vector<Fr> witness = fixture_witness();
  std::vector<Fr> short_witness(witness.begin(), witness.end() - 1);
  auto refused = prove_with_zkey(key, short_witness, ProverRandomness::secure(), 1);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("nVars = 5") != std::string::npos);

  witness.back() += Fr::one();
  auto proof = prove_with_zkey(key, witness, ProverRandomness::secure(), 1);
  REQUIRE(proof.ok());
  const PreparedVerifyingKey pvk(key.vk);
  auto valid = verify(pvk, *proof, std::vector<Fr>{witness[1]});
  REQUIRE(valid.ok());
  CHECK_FALSE(*valid);
}

TEST_CASE("zkey: corrupted keys are refused naming the section and the byte offset", "[groth16]") {
  const std::vector<uint8_t> good = read_bytes(kZkey);
  REQUIRE(good.size() > 1000);

  SECTION("a byte of an A point flipped: off the curve") {
    std::vector<uint8_t> b = good;
    const size_t a = section_begin(b, 5);
    b[a + 96 + 50] ^= 0x01;  // point 1, the low byte of y
    require_refused("flipped.zkey", b, "section 5 (A points)", a + 96);
  }
  SECTION("a coordinate >= q") {
    std::vector<uint8_t> b = good;
    const size_t h = section_begin(b, 9);
    b[h + 47] = 0xff;  // the top byte of point 0's x
    require_refused("big.zkey", b, "section 9 (H points)", h);
  }
  SECTION("truncated") {
    std::vector<uint8_t> b(good.begin(), good.end() - 40);
    const size_t last = section_begin(good, 10);  // the contributions come last
    require_refused("short.zkey", b, "section 10", last);
  }
  SECTION("another curve's prime q") {
    std::vector<uint8_t> b = good;
    const size_t h = section_begin(b, 2);
    b[h + 4] ^= 0x02;
    require_refused("curve.zkey", b, "section 2 (Groth16 header)", h + 4);
  }
  SECTION("gamma2 or delta2 at infinity (all-zero bytes): a degenerate key") {
    // The header's points follow n8q, q, n8r, r, nVars, nPublic, domainSize (100 bytes):
    // alpha1 +0, beta1 +96, beta2 +192, gamma2 +384, delta1 +576, delta2 +672.
    for (size_t at : {size_t{384}, size_t{672}}) {
      std::vector<uint8_t> b = good;
      const size_t point = section_begin(b, 2) + 100 + at;
      std::fill(b.begin() + point, b.begin() + point + 192, 0);
      require_refused(
          "degenerate.zkey", b,
          at == 384 ? "gamma2 is the point at infinity" : "delta2 is the point at infinity", point);
    }
  }
  SECTION("a coefficient's signal out of range") {
    std::vector<uint8_t> b = good;
    const size_t c = section_begin(b, 4);
    b[c + 4 + 8] = 0x07;  // entry 0's signal: 7 >= nVars = 5
    require_refused("signal.zkey", b, "section 4 (coefficients)", c + 4 + 8);
  }
}

TEST_CASE("zkey: snarkjs's roots of unity come from 5 and differ from ours", "[groth16]") {
  for (unsigned log_n : {1u, 2u, 3u, 10u, 20u, 32u}) {
    const Fr w = snarkjs_root_of_unity(log_n);
    Fr half = w;
    for (unsigned i = 1; i < log_n; ++i) half = half.sqr();  // w^(n/2)
    CHECK(half == -Fr::one());
    CHECK(half.sqr().is_one());  // w^n
  }
  CHECK(snarkjs_root_of_unity(32) != zkpipe::crypto::ntt_root_of_unity(32));
  // w_32 = 5^t with r - 1 = 2^32 t.
  CHECK(snarkjs_root_of_unity(32) == Fr::from_u64(5).pow(Fr::kOddPart));
}
