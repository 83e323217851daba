// Filecoin PoSt and SnapDeals public inputs: polka-storage's real 2KiB WindowPoSt proof
// (filecoin-proofs 18.1) verifies with the inputs derived here and fails with any value changed;
// the leaf challenges of curio's golden 32GiB WindowPoSt vanilla proof equal its Merkle paths'
// indices; curio's arity-8 Poseidon vector; Winning PoSt's 66-challenge shape; SnapDeals' four
// inputs per partition (k_and_h_select from the partition counts and h of storage-proofs-update).
#include "filecoin/filecoin_data.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/proof_format.h"
#include "zkpipe/filecoin/verify.h"

namespace zkpipe::filecoin {
namespace {

nlohmann::json polka_post_desc() {
  const nlohmann::json d = testdata::json("polka_post_2kib.json");
  const nlohmann::json& r = d.at("inputs").at("replicas").at(0);
  return {{"registered_proof", "StackedDrgWindow2KiBV1_2"},
          {"randomness", d.at("inputs").at("randomness_hex")},
          {"prover_id", std::string(64, '0')},
          {"sectors", {{{"sector_id", r.at("sector_number")}, {"comm_r", r.at("comm_r_hex")}}}}};
}

Result<bool> verify_post(const nlohmann::json& desc, const std::vector<uint8_t>& proof) {
  static const groth16::VerifyingKey vk =
      *decode_compressed_verifying_key(testdata::bytes("polka_post_2kib.vk.bin"));
  return verify_proof(vk, proof, desc.dump(), "post.json");
}

TEST_CASE("Filecoin WindowPoSt: polka-storage's real 2KiB proof verifies with derived inputs",
          "[filecoin]") {
  const std::vector<uint8_t> proof = testdata::bytes("polka_post_2kib.proof.bin");
  Result<std::vector<std::vector<Fr>>> inputs =
      public_inputs(polka_post_desc().dump(), "post.json");
  REQUIRE(inputs.ok());
  REQUIRE(inputs->size() == 1);
  CHECK((*inputs)[0].size() == 22);  // 2 sectors (the one, repeated) x (comm_r + 10 leaves)
  for (size_t i = 0; i < 11; ++i) CHECK((*inputs)[0][i] == (*inputs)[0][11 + i]);
  Result<bool> ok = verify_post(polka_post_desc(), proof);
  INFO(ok.status().to_string());
  REQUIRE(ok.ok());
  CHECK(*ok);
  // Lotus's name of the same proof.
  nlohmann::json lotus = polka_post_desc();
  lotus["registered_proof"] = "StackedDrgWindow2KiBV1_1";
  CHECK(*verify_post(lotus, proof));

  nlohmann::json changed = polka_post_desc();
  changed["randomness"] = std::string(62, '0') + "02";
  CHECK_FALSE(*verify_post(changed, proof));
  changed = polka_post_desc();
  changed["sectors"][0]["sector_id"] = 78;
  CHECK_FALSE(*verify_post(changed, proof));
  changed = polka_post_desc();
  changed["registered_proof"] = "StackedDrgWindow2KiBV1";  // V1_0: other challenge indices
  Result<bool> v10 = verify_post(changed, proof);
  REQUIRE(v10.ok());
  for (int byte : {0, 60, 150, 191}) {
    std::vector<uint8_t> bad = proof;
    bad[byte] ^= 1;
    Result<bool> r = verify_post(polka_post_desc(), bad);
    CHECK((!r.ok() || !*r));
  }
  // The randomness's top two bits are cleared before use, as Lotus does.
  nlohmann::json top = polka_post_desc();
  std::string hex = top["randomness"];
  hex.replace(62, 2, "c1");
  top["randomness"] = hex;
  CHECK(*verify_post(top, proof));
}

TEST_CASE("Filecoin WindowPoSt: curio's golden 32GiB vanilla proof's challenged leaves",
          "[filecoin]") {
  const nlohmann::json data = testdata::json("curio/post_leaf_indices.json");
  const Bytes32 randomness = testdata::domain(data.at("randomness_hex"));
  Result<PostConfig> c = registered_post(data.at("registered_proof").get<std::string>());
  REQUIRE(c.ok());
  CHECK(c->api_version == ApiVersion::kV1_0_0);
  CHECK(c->sector_count == 2349);
  const std::vector<uint64_t> expected = data.at("leaf_indices");
  for (uint64_t n = 0; n < 10; ++n) {
    // V1_0: the first (only) sector's challenges are 0..9.
    CHECK(post_leaf_challenge(randomness, data.at("sector_id"), n, c->sector_size / 32) ==
          expected[n]);
  }
}

TEST_CASE("Filecoin Poseidon: curio's arity-8 vector", "[filecoin]") {
  const nlohmann::json data = testdata::json("curio/poseidon_arity8.json");
  std::vector<Fr> in;
  for (const nlohmann::json& x : data.at("inputs_le_hex"))
    in.push_back(*fr_from_domain(testdata::domain(x)));
  CHECK(domain_from_fr(poseidon_merkle(in)) == testdata::domain(data.at("expected_le_hex")));
}

TEST_CASE("Filecoin WinningPoSt: one sector, 66 challenges, 132 inputs", "[filecoin]") {
  nlohmann::json d = polka_post_desc();
  d["registered_proof"] = "StackedDrgWinning2KiBV1";
  Result<std::vector<std::vector<Fr>>> in = public_inputs(d.dump(), "winning.json");
  REQUIRE(in.ok());
  REQUIRE(in->size() == 1);
  REQUIRE((*in)[0].size() == 132);
  const Bytes32 r = testdata::domain(d["randomness"]);
  for (uint64_t n = 0; n < 66; ++n) {
    CHECK((*in)[0][2 * n] == (*in)[0][0]);
    CHECK((*in)[0][2 * n + 1] == Fr::from_u64(post_leaf_challenge(r, 77, n, 64)));
  }
  d["sectors"].push_back({{"sector_id", 80}, {"comm_r", d["sectors"][0]["comm_r"]}});
  CHECK_THAT(public_inputs(d.dump(), "winning.json").status().message(),
             Catch::Contains("one challenged sector"));
  for (uint64_t size : {1ull, 5ull, 1000ull})
    CHECK(winning_post_sector_index(Bytes32{}, r, size) < size);
}

TEST_CASE("Filecoin WindowPoSt: sectors sorted, partitions padded, bad fields named",
          "[filecoin]") {
  nlohmann::json d = polka_post_desc();
  const std::string comm = d["sectors"][0]["comm_r"];
  d["sectors"] = {{{"sector_id", 9}, {"comm_r", comm}},
                  {{"sector_id", 3}, {"comm_r", comm}},
                  {{"sector_id", 5}, {"comm_r", comm}}};
  Result<std::vector<std::vector<Fr>>> in = public_inputs(d.dump(), "w.json");
  REQUIRE(in.ok());
  REQUIRE(in->size() == 2);  // 3 sectors, 2 a partition
  const Bytes32 r = testdata::domain(d["randomness"]);
  CHECK((*in)[0][1] == Fr::from_u64(post_leaf_challenge(r, 3, 0, 64)));  // sector 3 first
  CHECK((*in)[0][12] == Fr::from_u64(post_leaf_challenge(r, 5, 0, 64)));
  CHECK((*in)[1][1] == Fr::from_u64(post_leaf_challenge(r, 9, 0, 64)));
  for (size_t i = 0; i < 11; ++i) CHECK((*in)[1][i] == (*in)[1][11 + i]);  // padded

  d["sectors"][1]["sector_id"] = 9;
  CHECK_THAT(public_inputs(d.dump(), "w.json").status().message(), Catch::Contains("given twice"));
  d = polka_post_desc();
  d["sectors"][0]["comm_r"] = std::string(64, 'f');
  CHECK_THAT(public_inputs(d.dump(), "w.json").status().message(),
             Catch::Contains("w.json: sectors[0].comm_r"));
  d = polka_post_desc();
  d["sectors"] = nlohmann::json::array();
  CHECK_THAT(public_inputs(d.dump(), "w.json").status().message(),
             Catch::Contains("sectors: empty"));
  d = polka_post_desc();
  d["registered_proof"] = "StackedDrgWindow4KiBV1";
  CHECK_THAT(public_inputs(d.dump(), "w.json").status().message(),
             Catch::Contains("registered_proof") && Catch::Contains("StackedDrgWindow2KiBV1_2"));
}

TEST_CASE("Filecoin SnapDeals: four inputs a partition", "[filecoin]") {
  const std::string a(64, '1'), b(64, '2'), c(64, '3');
  struct Case {
    const char* proof;
    size_t partitions;
    uint64_t first_k_and_h;
  };
  for (const Case& x : {Case{"StackedDrg2KiBV1", 1, 1}, Case{"StackedDrg8MiBV1", 4, 32},
                        Case{"StackedDrg512MiBV1", 16, 128}, Case{"StackedDrg32GiBV1", 16, 128},
                        Case{"StackedDrg64GiBV1", 16, 128}}) {
    const nlohmann::json d = {
        {"registered_proof", x.proof}, {"comm_r_old", a}, {"comm_d_new", b}, {"comm_r_new", c}};
    Result<std::vector<std::vector<Fr>>> in = public_inputs(d.dump(), "snap.json");
    INFO(x.proof);
    REQUIRE(in.ok());
    REQUIRE(in->size() == x.partitions);
    for (size_t k = 0; k < x.partitions; ++k) {
      REQUIRE((*in)[k].size() == 4);
      CHECK((*in)[k][0] == Fr::from_u64(x.first_k_and_h + k));
      CHECK((*in)[k][1] == *fr_from_domain(testdata::domain(a)));  // comm_r_old
      CHECK((*in)[k][2] == *fr_from_domain(testdata::domain(b)));  // comm_d_new
      CHECK((*in)[k][3] == *fr_from_domain(testdata::domain(c)));  // comm_r_new
    }
  }
  const nlohmann::json zero = {{"registered_proof", "StackedDrg2KiBV1"},
                               {"comm_r_old", a},
                               {"comm_d_new", std::string(64, '0')},
                               {"comm_r_new", c}};
  CHECK_THAT(public_inputs(zero.dump(), "snap.json").status().message(),
             Catch::Contains("comm_d_new is all zero"));
}

}  // namespace
}  // namespace zkpipe::filecoin
