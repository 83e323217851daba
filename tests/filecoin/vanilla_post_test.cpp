// Filecoin's vanilla PoSt proofs (zkpipe::filecoin_circuit vanilla_post.h) on real data: curio's
// golden 32GiB WindowPoSt vanilla proof (tests/filecoin/data/curio/post.vproof, with its public
// info postpub.json; SOURCES.md) decodes, re-encodes byte for byte, passes the native check
// against the description (sector 1, zero randomness, comm_r from the SealedCID), and its first
// sector block satisfies our synthesis of Filecoin's PoSt circuit with the inputs part 1
// derives. Damaged bytes and wrong descriptions are refused with the field, offset or challenge.
#include "zkpipe/filecoin_circuit/vanilla_post.h"
#include "filecoin/filecoin_data.h"
#include "zkpipe/filecoin/cid.h"
#include "zkpipe/filecoin/description.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe::filecoin_circuit {
namespace {

Domain comm_r_of_cid(const std::string& cid) {
  Result<Domain> d = filecoin::comm_r_from_cid(cid, "SealedCID");
  INFO(d.status().to_string());
  REQUIRE(d.ok());
  return *d;
}

struct Golden {
  std::vector<uint8_t> bytes = filecoin::testdata::bytes("curio/post.vproof");
  nlohmann::json pub = filecoin::testdata::json("curio/postpub.json");

  filecoin::PostDescription description() const {
    const nlohmann::json& sector = pub.at("ChallengedSectors").at(0);
    const nlohmann::json desc = {
        {"registered_proof", "StackedDrgWindow32GiBV1"},  // PoStProof 8
        {"randomness", std::string(64, '0')},             // "AAAA...=": 32 zero bytes
        {"prover_id", std::string(64, '0')},
        {"sectors",
         {{{"sector_id", sector.at("SectorNumber")},
           {"comm_r", comm_r_of_cid(sector.at("SealedCID").at("/"))}}}}};  // a byte array
    Result<filecoin::PostDescription> d = filecoin::parse_post_description(desc.dump(), "desc");
    INFO(d.status().to_string());
    REQUIRE(d.ok());
    return *d;
  }
};

TEST_CASE("Filecoin vanilla PoSt: curio's 32GiB proof decodes and re-encodes byte for byte",
          "[filecoin][vanilla]") {
  const Golden g;
  REQUIRE(g.pub.at("Proofs").at(0).at("PoStProof") == 8);
  Result<SectorVanillaProof> p = decode_sector_proof(g.bytes, "post.vproof");
  INFO(p.status().to_string());
  REQUIRE(p.ok());
  CHECK(p->sector_id == 1);
  CHECK(p->comm_r == g.description().sectors[0].comm_r);
  REQUIRE(p->inclusion_proofs.size() == 10);
  for (const InclusionProof& ip : p->inclusion_proofs) {
    REQUIRE(ip.paths.size() == 2);  // kind 1: a base path and a sub path (32GiB: 8-8-0)
    CHECK(ip.paths[0].size() == 9);
    CHECK(ip.paths[1].size() == 1);
  }
  CHECK(encode_sector_proof(*p) == g.bytes);
}

TEST_CASE("Filecoin vanilla PoSt: curio's proof passes the native check and satisfies the circuit",
          "[filecoin][vanilla]") {
  const Golden g;
  const filecoin::PostDescription d = g.description();
  const SectorVanillaProof p = *decode_sector_proof(g.bytes, "post.vproof");
  Result<std::vector<PostSectorWitness>> w = post_witness(d, {&p, 1}, 0, "post.vproof");
  INFO(w.status().to_string());
  REQUIRE(w.ok());
  REQUIRE(w->size() == 2349);  // the one sector, repeated to fill the partition

  const std::vector<std::vector<Fr>> inputs = *filecoin::post_public_inputs(d);
  ConstraintSystem cs = ConstraintSystem::recorder();
  synthesize_fallback_post(cs, std::span<const PostSectorWitness>(w->data(), 1));
  REQUIRE(cs.finish().ok());
  CHECK(cs.num_constraints() == 53'333);
  groth16::R1cs r1cs = cs.take_r1cs();
  auto [in, aux] = cs.take_witness();
  const Status sat = groth16::check_satisfied(r1cs, {in, aux}, 1);
  INFO(sat.to_string());
  CHECK(sat.ok());
  REQUIRE(in.size() == 12);
  CHECK(std::vector<Fr>(in.begin() + 1, in.end()) ==
        std::vector<Fr>(inputs[0].begin(), inputs[0].begin() + 11));
}

TEST_CASE("Filecoin CIDs: comm_r of curio's SealedCID; other CIDs are named",
          "[filecoin][vanilla]") {
  const Golden g;
  const std::string cid = g.pub.at("ChallengedSectors").at(0).at("SealedCID").at("/");
  const Result<SectorVanillaProof> p = decode_sector_proof(g.bytes, "post.vproof");
  REQUIRE(p.ok());
  CHECK(comm_r_of_cid(cid) == p->comm_r);  // the proof's own comm_r
  Result<Domain> d = filecoin::comm_d_from_cid(cid, "UnsealedCID");
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.status().message(), Catch::Contains("UnsealedCID: not a piece (comm_d) CID"));
  d = filecoin::comm_r_from_cid("Q" + cid.substr(1), "SealedCID");
  CHECK_THAT(d.status().message(), Catch::Contains("not a base32 CID"));
  d = filecoin::comm_r_from_cid(cid.substr(0, cid.size() - 4), "SealedCID");
  CHECK_THAT(d.status().message(), Catch::Contains("not 32 bytes"));
  d = filecoin::comm_r_from_cid(cid + "!", "SealedCID");
  CHECK_THAT(d.status().message(), Catch::Contains("is not lower-case base32"));
}

TEST_CASE("Filecoin vanilla PoSt: damage and wrong descriptions are named", "[filecoin][vanilla]") {
  const Golden g;
  const filecoin::PostDescription d = g.description();
  auto error_of = [&](const std::vector<uint8_t>& bytes, const filecoin::PostDescription& desc) {
    Result<SectorVanillaProof> p = decode_sector_proof(bytes, "post.vproof");
    if (!p.ok()) return p.status().message();
    Result<std::vector<PostSectorWitness>> w = post_witness(desc, {&*p, 1}, 0, "post.vproof");
    return w.ok() ? std::string("accepted") : w.status().message();
  };
  std::vector<uint8_t> b = g.bytes;
  b.resize(b.size() - 5);
  CHECK_THAT(error_of(b, d), Catch::Contains("comm_r_last at byte 24928: truncated"));
  b = g.bytes;
  b.push_back(0);
  CHECK_THAT(error_of(b, d), Catch::Contains("1 bytes after the proof"));
  b = g.bytes;
  b[56] = 3;  // inclusion_proofs[0].kind
  CHECK_THAT(error_of(b, d), Catch::Contains("inclusion_proofs[0].kind at byte 60: 3 is not"));
  b = g.bytes;
  b[48 + 4 + 8 + 8 + 40] ^= 1;  // a sibling of inclusion_proofs[0]'s first base level
  CHECK_THAT(error_of(b, d),
             Catch::Contains("sector 1 challenge 0: the Merkle path does not lead"));
  b = g.bytes;
  b[0] = 2;  // sector_id
  CHECK_THAT(error_of(b, d), Catch::Contains("sector 1: the vanilla proof is of sector 2"));
  filecoin::PostDescription other = d;
  other.randomness[0] = 1;
  CHECK_THAT(error_of(g.bytes, other), Catch::Contains("challenge 0: the path opens leaf"));
  other = d;
  other.sectors[0].comm_r[0] ^= 1;
  CHECK_THAT(error_of(g.bytes, other), Catch::Contains("comm_r is not the sector's"));
  CHECK(error_of(g.bytes, d) == "accepted");
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
