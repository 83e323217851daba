// Filecoin PoRep: the SDR graph against rust-fil-proofs' parent_cache.json (the cache's file name
// and SHA-256 for 2KiB at porep_ids 0 and 5 and 8MiB), the registered proofs, and the real 2KiB
// PoRep proof polka-storage made with filecoin-proofs 18.1: it verifies under its key with the
// inputs derived here from its description, and fails when any field or proof byte changes.
#include "filecoin/filecoin_data.h"
#include "zkpipe/filecoin/porep_inputs.h"
#include "zkpipe/filecoin/proof_format.h"
#include "zkpipe/filecoin/sdr_graph.h"
#include "zkpipe/groth16/verifier.h"

namespace zkpipe::filecoin {
namespace {

struct CacheEntry {
  std::string name, digest;
};

CacheEntry cache_entry(uint64_t sector_size, const std::string& name) {
  const nlohmann::json data = testdata::json("parent_cache.json");
  for (auto it = data.begin(); it != data.end(); ++it) {
    if (it.key() == name) {
      CHECK(it.value().at("sector_size") == sector_size);
      return {it.key(), it.value().at("digest")};
    }
  }
  return {};
}

void check_cache(uint64_t sector_size, uint64_t registered_id, ApiVersion api) {
  const SdrGraph graph(sector_size / 32, porep_id_of(registered_id), api);
  const std::string name = graph.cache_name();
  INFO("sector " << sector_size << ", porep_id " << registered_id << ", cache " << name);
  const CacheEntry e = cache_entry(sector_size, name);
  REQUIRE(e.name == name);  // parent_cache.json lists this graph's file
  CHECK(to_hex(graph.cache_digest()) == e.digest);
}

TEST_CASE("Filecoin SDR graph: 2KiB parent caches equal parent_cache.json (V1 and V1_1)",
          "[filecoin]") {
  check_cache(2048, 0, ApiVersion::kV1_0_0);  // StackedDrg2KiBV1
  check_cache(2048, 5, ApiVersion::kV1_1_0);  // StackedDrg2KiBV1_1
}

TEST_CASE("Filecoin SDR graph: the 8MiB V1_1 parent cache equals parent_cache.json", "[filecoin]") {
  check_cache(8 << 20, 6, ApiVersion::kV1_1_0);
}

TEST_CASE("Filecoin SDR graph: parents are in range, the predecessor where the version puts it",
          "[filecoin]") {
  const SdrGraph v10(64, porep_id_of(0), ApiVersion::kV1_0_0);
  const SdrGraph v11(64, porep_id_of(5), ApiVersion::kV1_1_0);
  for (uint64_t v = 0; v < 64; ++v) {
    const auto a = v10.parents(v), b = v11.parents(v);
    for (uint32_t p : a) CHECK(p < 64);
    for (uint32_t p : b) CHECK(p < 64);
    if (v >= 2) {
      CHECK(a[5] == v - 1);
      CHECK(b[0] == v - 1);
    }
  }
  CHECK_THROWS_AS(SdrGraph(96, porep_id_of(5), ApiVersion::kV1_1_0), std::invalid_argument);
}

TEST_CASE("Filecoin PoRep: registered proofs and their porep_ids", "[filecoin]") {
  Result<PorepConfig> c = registered_porep("StackedDrg2KiBV1_1");
  REQUIRE(c.ok());
  CHECK(c->sector_size == 2048);
  CHECK(c->partitions == 1);
  CHECK(c->porep_id[0] == 5);
  CHECK(c->api_version == ApiVersion::kV1_1_0);
  Result<PorepConfig> big = registered_porep("StackedDrg32GiBV1_1_Feat_SyntheticPoRep");
  REQUIRE(big.ok());
  CHECK(big->porep_id[0] == 13);
  CHECK(big->partitions == 10);
  CHECK(big->api_version == ApiVersion::kV1_2_0);
  CHECK(big->has(PorepFeature::kSyntheticPoRep));
  CHECK(registered_porep("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep")->porep_id[0] == 19);
  CHECK_THAT(registered_porep("StackedDrg4KiBV1").status().message(),
             Catch::Contains("StackedDrg2KiBV1_1"));
}

PorepDescription polka_description() {
  const nlohmann::json data = testdata::json("polka_porep_2kib.json");
  const nlohmann::json& in = data.at("inputs");
  PorepDescription d;
  d.config.sector_size = 2048;
  d.config.partitions = 1;
  d.config.porep_id = testdata::domain(data.at("porep_config").at("porep_id_hex"));
  d.config.api_version =
      *parse_api_version(data.at("porep_config").at("api_version").get<std::string>());
  d.comm_r = testdata::domain(in.at("comm_r_hex"));
  d.comm_d = testdata::domain(in.at("comm_d_hex"));
  d.prover_id = testdata::domain(in.at("prover_id_hex"));
  d.ticket = testdata::domain(in.at("ticket_hex"));
  d.seed = testdata::domain(in.at("seed_hex"));
  d.sector_id = in.at("sector_number");
  return d;
}

bool verifies(const PorepDescription& d, const std::vector<uint8_t>& proof_bytes) {
  static const groth16::PreparedVerifyingKey pvk(
      *decode_compressed_verifying_key(testdata::bytes("polka_porep_2kib.vk.bin")));
  Result<std::vector<std::vector<Fr>>> inputs = porep_public_inputs(d);
  REQUIRE(inputs.ok());
  REQUIRE(inputs->size() == 1);
  Result<std::vector<groth16::Proof>> proofs = decode_proofs(proof_bytes, 1);
  if (!proofs.ok()) return false;
  Result<bool> ok = groth16::verify(pvk, (*proofs)[0], (*inputs)[0]);
  REQUIRE(ok.ok());
  return *ok;
}

TEST_CASE("Filecoin PoRep: polka-storage's real 2KiB proof verifies with the inputs derived here",
          "[filecoin]") {
  const PorepDescription d = polka_description();
  const std::vector<uint8_t> proof = testdata::bytes("polka_porep_2kib.proof.bin");
  const nlohmann::json data = testdata::json("polka_porep_2kib.json");
  const Domain rid = replica_id(d.prover_id, d.sector_id, d.ticket, d.comm_d, d.config.porep_id);
  CHECK(to_hex(rid) == data.at("derived_here_not_in_source").at("replica_id_hex"));
  Result<std::vector<std::vector<Fr>>> inputs = porep_public_inputs(d);
  REQUIRE(inputs.ok());
  CHECK((*inputs)[0].size() == 39);
  CHECK(verifies(d, proof));

  SECTION("any field changed fails") {
    PorepDescription x = d;
    x.sector_id = 78;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.ticket[0] ^= 1;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.seed[5] ^= 1;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.prover_id[31] ^= 1;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.comm_d[0] ^= 1;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.comm_r[0] ^= 1;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.config.porep_id[0] = 5;
    CHECK_FALSE(verifies(x, proof));
    x = d;
    x.config.api_version = ApiVersion::kV1_0_0;
    CHECK_FALSE(verifies(x, proof));
  }
  SECTION("any proof byte changed fails") {
    for (size_t i = 0; i < proof.size(); ++i) {
      std::vector<uint8_t> bad = proof;
      bad[i] ^= 0x01;
      INFO("byte " << i);
      CHECK_FALSE(verifies(d, bad));
    }
  }
}

TEST_CASE("Filecoin PoRep: bad descriptions are refused by field", "[filecoin]") {
  PorepDescription d = polka_description();
  d.comm_d = Domain{};
  CHECK_THAT(porep_public_inputs(d).status().message(), Catch::Contains("comm_d is all zero"));
  d = polka_description();
  d.comm_r.fill(0xff);
  CHECK_THAT(porep_public_inputs(d).status().message(), Catch::StartsWith("comm_r: "));
  d = polka_description();
  d.config.sector_size = 4096;
  CHECK_THAT(porep_public_inputs(d).status().message(), Catch::Contains("sector size 4096"));
  d = polka_description();
  d.config.features = {PorepFeature::kSyntheticPoRep};
  CHECK_THAT(porep_public_inputs(d).status().message(), Catch::Contains("SyntheticPoRep"));
}

}  // namespace
}  // namespace zkpipe::filecoin
