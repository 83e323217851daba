// Filecoin's SnapDeals vanilla partition proofs (zkpipe/filecoin_circuit/vanilla_update.h): a
// sample (a CC sector sealed here with Filecoin's SDR, new data encoded with rho) re-encodes
// byte for byte, passes the native check for every partition (8MiB: 4 partitions), and its
// witness satisfies the SnapDeals circuit with part 1's public inputs; damage is refused by the
// native check naming partition, challenge and what is wrong, and bad bytes name the field and
// offset.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "filecoin/circuit_helpers.h"
#include "zkpipe/filecoin_circuit/vanilla_update.h"

namespace zkpipe::filecoin_circuit {
namespace {

const UpdateRequest& sample_2kib() {
  static const UpdateRequest r = *sample_update_request("StackedDrg2KiBV1", 3);
  return r;
}

Status check(const UpdatePartitionProof& p) {
  return update_witness(sample_2kib().description, p, 0, "update").status();
}

TEST_CASE("Filecoin SnapDeals vanilla proofs: samples re-encode and check natively",
          "[filecoin][circuit]") {
  const UpdateRequest& r = sample_2kib();
  REQUIRE(r.proofs.size() == 1);
  const std::vector<uint8_t> bytes = encode_update_proof(r.proofs[0]);
  Result<UpdatePartitionProof> back = decode_update_proof(bytes, "p");
  REQUIRE(back.ok());
  CHECK(encode_update_proof(*back) == bytes);
  CHECK(back->challenges.size() == 10);
  CHECK(back->apex_leafs.size() == 8);
}

TEST_CASE("Filecoin SnapDeals vanilla proofs: an 8MiB sample's 4 partitions check natively",
          "[filecoin][circuit][heavy]") {
  Result<UpdateRequest> r8 = sample_update_request("StackedDrg8MiBV1", 4);
  INFO(r8.status().to_string());
  REQUIRE(r8.ok());
  CHECK(r8->witnesses.size() == 4);
  CHECK(r8->inputs[3][0] == Fr::from_u64(3 | 8 << 2));  // k = 3, h = 10: h_select 1 << 3
}

TEST_CASE("Filecoin SnapDeals vanilla proofs: the witness satisfies the circuit",
          "[filecoin][circuit][heavy]") {
  const UpdateRequest& r = sample_2kib();
  std::vector<Fr> inputs;
  const UpdateShape s = update_shape(64);
  record_satisfied([&](ConstraintSystem& cs) { synthesize_update(cs, s, r.witnesses[0]); },
                   &inputs);
  REQUIRE(inputs.size() == 5);
  CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == r.inputs[0]);
}

TEST_CASE("Filecoin SnapDeals vanilla proofs: damage is refused by name", "[filecoin][circuit]") {
  const UpdatePartitionProof good = sample_2kib().proofs[0];
  REQUIRE(check(good).ok());
  struct Case {
    const char* expect;
    void (*damage)(UpdatePartitionProof&);
  };
  const Case cases[] = {
      {"Poseidon(comm_c, root_r_old) is not comm_r_old",
       [](UpdatePartitionProof& p) { p.comm_c[0] ^= 1; }},
      {"the apex leaves do not hash to the partition's node",
       [](UpdatePartitionProof& p) { p.apex_leafs[0][0] ^= 1; }},
      {"challenge 2 (node", [](UpdatePartitionProof& p) { p.challenges[2].d_new.leaf[0] ^= 1; }},
      {"proof_r_new: the path opens leaf",
       [](UpdatePartitionProof& p) { p.challenges[1].r_new.paths[0][0].position ^= 1; }},
      {"challenge proofs; the sector has",
       [](UpdatePartitionProof& p) { p.challenges.pop_back(); }},
  };
  for (const Case& k : cases) {
    INFO(k.expect);
    UpdatePartitionProof p = good;
    k.damage(p);
    const Status s = check(p);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(k.expect));
  }
  const std::vector<uint8_t> bytes = encode_update_proof(good);
  const Result<UpdatePartitionProof> cut =
      decode_update_proof(std::span<const uint8_t>(bytes).first(bytes.size() - 5), "p.bin");
  REQUIRE_FALSE(cut.ok());
  CHECK_THAT(cut.status().message(), Catch::Contains("p.bin") && Catch::Contains("at byte"));
  std::vector<uint8_t> more = bytes;
  more.push_back(0);
  CHECK_THAT(decode_update_proof(more, "p.bin").status().message(),
             Catch::Contains("1 bytes after the proof"));
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
