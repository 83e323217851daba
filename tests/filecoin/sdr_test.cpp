// Filecoin SDR sealing: the last labels of rust-fil-proofs' stacked_vanilla.rs vectors (64 and 128
// nodes, 11 layers, V1_0 / V1_1 / V1_2), the replica as data + last label, tree shapes.
#include "zkpipe/filecoin/sdr.h"
#include "filecoin/filecoin_data.h"
#include "zkpipe/filecoin/commd.h"
#include "zkpipe/filecoin/porep_inputs.h"
#include "zkpipe/filecoin/poseidon.h"

namespace zkpipe::filecoin {
namespace {

TEST_CASE("Filecoin SDR: labels equal stacked_vanilla.rs' last-label vectors", "[filecoin]") {
  const nlohmann::json data = testdata::json("labels_vectors.json");
  int checked = 0;
  for (const nlohmann::json& v : data.at("vectors")) {
    const uint64_t nodes = v.at("nodes");
    const uint32_t layers = v.at("layers");
    const std::string api_name = v.at("api_version");
    INFO(nodes << " nodes, " << api_name);
    const ApiVersion api = *parse_api_version(api_name);
    const SdrGraph graph(nodes, testdata::domain(v.at("porep_id_hex")), api);
    const auto labels = sdr_labels(graph, testdata::domain(v.at("replica_id_hex")), layers);
    REQUIRE(labels.size() == layers);
    CHECK(labels.back().back() == testdata::domain(v.at("expected_last_label").at("le_bytes_hex")));
    ++checked;
  }
  CHECK(checked == 6);
}

TEST_CASE("Filecoin SDR: a sealed 2KiB sector's replica, commitments and inputs", "[filecoin]") {
  const PorepConfig config = *registered_porep("StackedDrg2KiBV1_1");
  const SectorShape shape = *sector_shape(2048);
  std::vector<uint8_t> raw(2032);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 7 + 3);
  const std::vector<uint8_t> data = fr32_pad(raw);
  REQUIRE(data.size() == 2048);
  const Domain comm_d = *comm_d_padded(data);
  const Bytes32 prover{}, ticket{1};
  const Domain rid = replica_id(prover, 42, ticket, comm_d, config.porep_id);
  Result<SealedSector> s = seal_sector(data, shape, config, rid);
  INFO(s.status().to_string());
  REQUIRE(s.ok());
  CHECK(s->comm_d == comm_d);
  const auto labels = sdr_labels(SdrGraph(64, config.porep_id, config.api_version), rid, 2);
  for (uint64_t v = 0; v < 64; ++v) {
    Domain d;
    std::copy_n(data.begin() + 32 * v, 32, d.begin());
    CHECK(*fr_from_domain(s->replica[v]) - *fr_from_domain(labels[1][v]) == *fr_from_domain(d));
  }
  const Fr pair[2] = {*fr_from_domain(s->comm_c), *fr_from_domain(s->comm_r_last)};
  CHECK(domain_from_fr(poseidon_merkle(pair)) == s->comm_r);
  // Its PoRep inputs are derivable (the circuit that proves them is part 2's).
  PorepDescription d;
  d.config = config;
  d.comm_d = comm_d;
  d.comm_r = s->comm_r;
  d.ticket = ticket;
  d.sector_id = 42;
  Result<std::vector<std::vector<Fr>>> in = porep_public_inputs(d);
  REQUIRE(in.ok());
  CHECK((*in)[0][0] == *fr_from_domain(rid));

  std::vector<uint8_t> bad = data;
  bad[32 * 5 + 31] = 0xff;
  CHECK_THAT(seal_sector(bad, shape, config, rid).status().message(),
             Catch::Contains("data node 5 (offset 160)"));
  CHECK_FALSE(seal_sector(std::vector<uint8_t>(1024, 0), shape, config, rid).ok());
}

TEST_CASE("Filecoin SDR: Poseidon tree shapes", "[filecoin]") {
  std::vector<Fr> leaves(128);
  for (size_t i = 0; i < leaves.size(); ++i) leaves[i] = Fr::from_u64(i);
  // 8-2-0: two base trees of 64 leaves joined by one arity-2 node.
  Result<Fr> r = poseidon_tree_root(leaves, 8, 2, 0);
  REQUIRE(r.ok());
  const Fr a = *poseidon_tree_root(std::span<const Fr>(leaves).first(64), 8, 0, 0);
  const Fr b = *poseidon_tree_root(std::span<const Fr>(leaves).last(64), 8, 0, 0);
  const Fr ab[2] = {a, b};
  CHECK(*r == poseidon_merkle(ab));
  CHECK_THAT(poseidon_tree_root(leaves, 8, 0, 0).status().message(),
             Catch::Contains("128 leaves do not fill it"));
}

}  // namespace
}  // namespace zkpipe::filecoin
