// Filecoin's Poseidon against neptune's and rust-fil-proofs' data: the round numbers of every
// width, all 585 round constants of neptune's published t = 9 file, the MerkleTree and
// ConstantLength hash vectors of neptune's tests (arities 2 to 36), the filecoin-hashers tree
// vectors, and the fast rounds against the textbook ones.
#include <random>
#include <regex>
#include <sstream>

#include "filecoin/filecoin_data.h"
#include "zkpipe/filecoin/poseidon.h"

namespace zkpipe::filecoin {
namespace {

using testdata::fr_be;

TEST_CASE("Filecoin Poseidon: round numbers match neptune's table for every width", "[filecoin]") {
  std::ifstream in(testdata::path("neptune/round_numbers.txt"));
  REQUIRE(in.good());
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    uint32_t t = 0, rf = 0, rp = 0;
    fields >> t >> rf >> rp;
    if (t < 2 || t - 1 > kPoseidonMaxArity) continue;
    INFO("t = " << t);
    const PoseidonRounds r = poseidon_round_numbers(t - 1);
    CHECK(r.full == rf);
    CHECK(r.partial == rp);
    ++checked;
  }
  CHECK(checked == static_cast<int>(kPoseidonMaxArity));
  // neptune's own test table (round_numbers.rs), the arities Filecoin uses.
  CHECK(poseidon_round_numbers(2).partial == 55);
  CHECK(poseidon_round_numbers(4).partial == 56);
  CHECK(poseidon_round_numbers(8).partial == 57);
  CHECK(poseidon_round_numbers(11).partial == 57);
  CHECK(poseidon_round_numbers(16).partial == 59);
  CHECK(poseidon_round_numbers(24).partial == 59);
  CHECK(poseidon_round_numbers(36).partial == 60);
}

TEST_CASE("Filecoin Poseidon: the Grain constants equal neptune's published t = 9 file",
          "[filecoin]") {
  const std::vector<uint8_t> text = testdata::bytes(
      "neptune/round_constants-1-1-255-9-8-57-"
      "73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001.txt");
  const std::string s(text.begin(), text.end());
  const std::regex hex("0x[0-9a-fA-F]{64}");
  std::vector<std::string> published;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), hex); it != std::sregex_iterator(); ++it)
    published.push_back(it->str());
  REQUIRE(published.size() == 585);
  const crypto::PoseidonParams& p = poseidon(8);
  REQUIRE(p.width == 9);
  REQUIRE(p.full_rounds == 8);
  REQUIRE(p.partial_rounds == 57);
  REQUIRE(p.round_constants.size() == 585);
  for (size_t i = 0; i < published.size(); ++i) {
    INFO("constant " << i);
    CHECK(p.round_constants[i] == fr_be(published[i]));
  }
}

TEST_CASE("Filecoin Poseidon: the MDS is neptune's Cauchy matrix 1 / (i + j + t)", "[filecoin]") {
  for (uint32_t arity : {2u, 11u}) {
    const crypto::PoseidonParams& p = poseidon(arity);
    const uint32_t t = p.width;
    for (uint32_t i = 0; i < t; ++i)
      for (uint32_t j = 0; j < t; ++j)
        CHECK(p.mds[i * t + j] * Fr::from_u64(i + j + t) == Fr::one());
  }
}

TEST_CASE("Filecoin Poseidon: neptune's hash vectors (Standard strength)", "[filecoin]") {
  const nlohmann::json data = testdata::json("poseidon_neptune.json");
  int checked = 0;
  for (const nlohmann::json& v : data.at("vectors")) {
    if (v.at("strength") != "Standard") continue;  // Filecoin uses Standard only
    const uint32_t arity = v.at("arity");
    const std::string type = v.at("hash_type");
    std::vector<Fr> inputs;
    for (const nlohmann::json& x : v.at("inputs_decimal")) inputs.push_back(Fr::from_u64(x));
    const Fr expected = fr_be(v.at("expected").at("canonical_be_hex"));
    INFO("arity " << arity << ", " << type);
    CHECK(v.at("partial_rounds") == poseidon_round_numbers(arity).partial);
    if (type == "MerkleTree") {
      REQUIRE(inputs.size() == arity);
      CHECK(poseidon_merkle(inputs) == expected);
      ++checked;
    } else if (type == "ConstantLength(4)") {
      if (arity < 4) continue;  // more inputs than lanes: neptune's sponge, not one permutation
      CHECK(poseidon_constant_length(arity, inputs) == expected);
      ++checked;
    } else {
      FAIL("unknown hash type " << type);
    }
  }
  CHECK(checked == 7 + 6);  // arities 2, 4, 8, 11, 16, 24, 36; ConstantLength from arity 4
}

TEST_CASE("Filecoin Poseidon: filecoin-hashers' H(1, 0) and 4-leaf root", "[filecoin]") {
  const nlohmann::json data = testdata::json("poseidon_filecoin_hashers.json");
  const nlohmann::json& v = data.at("vectors").at(0);
  const Domain one = domain_from_fr(Fr::one()), zero = domain_from_fr(Fr::zero());
  Result<Domain> n4 = poseidon_hash2(one, zero);
  REQUIRE(n4.ok());
  CHECK(*n4 == testdata::domain(v.at("node4_poseidon2_of_1_0").at("le_bytes_hex")));
  Result<Domain> n5 = poseidon_hash2(zero, one);
  REQUIRE(n5.ok());
  Result<Domain> root = poseidon_hash2(*n4, *n5);
  REQUIRE(root.ok());
  CHECK(*root == testdata::domain(v.at("root_node6").at("le_bytes_hex")));
}

// [heavy]: the textbook rounds of widths up to 37 take most of a minute under Debug ASan.
TEST_CASE("Filecoin Poseidon: the fast rounds equal the textbook rounds", "[filecoin][heavy]") {
  std::mt19937_64 rng(31);
  for (uint32_t arity = 1; arity <= kPoseidonMaxArity; ++arity) {
    const crypto::PoseidonParams& p = poseidon(arity);
    INFO("arity " << arity);
    CHECK(p.fast.empty() == (p.width > crypto::kPoseidonMaxFastWidth));
    std::vector<Fr> a(p.width), b;
    for (Fr& x : a) x = Fr::random(rng);
    b = a;
    crypto::poseidon_permute(p, a);
    crypto::poseidon_permute_plain(p, b);
    CHECK(a == b);
  }
}

TEST_CASE("Filecoin Poseidon: bad arities and domains are refused by name", "[filecoin]") {
  CHECK(find_poseidon(0).status().code() == Code::kInvalidArgument);
  CHECK_THAT(find_poseidon(37).status().message(), Catch::Contains("arities 1 to 36"));
  const std::vector<Fr> none;
  CHECK_THROWS_AS(poseidon_merkle(none), std::invalid_argument);
  Domain big;
  big.fill(0xff);
  Result<Domain> h = poseidon_hash2(big, Domain{});
  REQUIRE_FALSE(h.ok());
  CHECK_THAT(h.status().message(), Catch::Contains("left"));
  CHECK_THAT(h.status().message(), Catch::Contains("not below the group order"));
}

}  // namespace
}  // namespace zkpipe::filecoin
