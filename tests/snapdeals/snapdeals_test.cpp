// The snapdeals proof type without Groth16: the encoding, vanilla proofs (native check and every
// tamper class), the binary and JSON formats, and the circuit against the native check.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/snapdeals/circuit.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace {

using namespace zkpipe;
using namespace zkpipe::snapdeals;
using crypto::Fr;

const porep::SealedSector& empty_key() {
  static const porep::SealedSector s =
      porep::seal(porep::find_shape("tiny").value(), porep::seed_from_string("cc sector"), 2, {},
                  porep::SectorData::kEmpty);
  return s;
}
const UpdatedSector& updated() {
  static const UpdatedSector u =
      update(empty_key(), find_shape("tiny").value(), porep::seed_from_string("deal data"), 2)
          .value();
  return u;
}
const VanillaProofs& vanilla() {
  static const VanillaProofs v = [] {
    const uint32_t parts[] = {0, 1};
    return make_vanilla_proofs(updated(), parts, 2);
  }();
  return v;
}
std::string check_message(const VanillaProofs& v) {
  Status s = check_vanilla(v, "s.bin", 1);
  return s.ok() ? "OK" : s.message();
}

}  // namespace

TEST_CASE("Snapdeals update: new replica = sector key + data * rho", "[snapdeals]") {
  const UpdatedSector& u = updated();
  const Fr phi_value = phi(u.comms.comm_d_new, u.comms.comm_r_old);
  for (uint64_t i = 0; i < u.shape.nodes; ++i) {
    REQUIRE(u.replica[i] == u.sector_key[i] + u.data[i] * rho(phi_value, i, u.shape));
  }
  REQUIRE(u.comms.comm_r_old == empty_key().comms.comm_r);
  REQUIRE(u.comms.comm_r_new != u.comms.comm_r_old);
  // A sector with data is not a sector key; a size mismatch is named.
  auto full = porep::seal(porep::find_shape("tiny").value(), porep::seed_from_string("x"), 1);
  REQUIRE_THAT(update(full, find_shape("tiny").value(), {}, 1).status().message(),
               Catch::Contains("not empty"));
  REQUIRE_THAT(update(empty_key(), find_shape("2KiB").value(), {}, 1).status().message(),
               Catch::Contains("needs 64"));
  Shape bad = find_shape("tiny").value();
  bad.h = 4;
  REQUIRE_THAT(validate_shape(bad, "x").message(), Catch::Contains("h must be in [1, log2"));
}

TEST_CASE("Snapdeals vanilla: honest proofs pass, each tampered part is named", "[snapdeals]") {
  REQUIRE(check_message(vanilla()) == "OK");
  const Fr one = Fr::one();
  auto tampered = [&](auto&& change) {
    VanillaProofs v = vanilla();
    change(v.partitions[1].challenges[0]);
    return check_message(v);
  };
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.data += one; }),
               Catch::Contains("partition 1, challenge 0") && Catch::Contains("comm_d_new"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.data_path[0] += one; }),
               Catch::Contains("comm_d_new"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.old_replica += one; }),
               Catch::Contains("comm_r_last_old"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.new_path[6] += one; }),
               Catch::Contains("comm_r_last_new"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.challenge = (p.challenge + 1) % 8; }),
               Catch::Contains("not the one derived"));
  VanillaProofs v = vanilla();
  v.partitions[0].partition = 3;
  REQUIRE_THAT(check_message(v), Catch::Contains("out of range"));
  v = vanilla();
  v.comms.comm_c += one;
  REQUIRE_THAT(check_message(v), Catch::Contains("comm_r_old is not Poseidon"));
}

TEST_CASE("Snapdeals vanilla: an encoding that is not sector key + data * rho is named",
          "[snapdeals]") {
  // Every node encoded with rho + 1 and the new tree rebuilt over that: every path opens,
  // only the encoding is wrong, at whichever node is challenged.
  UpdatedSector u = updated();
  for (uint64_t i = 0; i < u.shape.nodes; ++i) u.replica[i] += u.data[i];
  u.tree_r_new = gadgets::PoseidonTree::build(u.replica, 1);
  u.comms.comm_r_last_new = u.tree_r_new.root();
  Fr pair[2] = {u.comms.comm_c, u.comms.comm_r_last_new};
  u.comms.comm_r_new = gadgets::poseidon_hash(pair);
  const uint32_t partition = 0;
  VanillaProofs v = make_vanilla_proofs(u, std::span<const uint32_t>(&partition, 1), 1);
  REQUIRE_THAT(check_message(v), Catch::Contains("partition 0, challenge 0") &&
                                     Catch::Contains("not sector key + data * rho"));
}

TEST_CASE("Snapdeals format: round trips, malformed files name the byte offset", "[snapdeals]") {
  const std::vector<uint8_t> good = encode_vanilla(vanilla());
  auto back = decode_vanilla(good, "s.bin");
  REQUIRE(back.ok());
  REQUIRE(encode_vanilla(*back) == good);
  auto j = vanilla_from_json(nlohmann::json::parse(vanilla_to_json(vanilla()).dump()), "s.json");
  REQUIRE(j.ok());
  REQUIRE(encode_vanilla(*j) == good);
  auto message = [](const std::vector<uint8_t>& b) {
    auto r = decode_vanilla(b, "s.bin");
    return r.ok() ? std::string("OK") : r.status().message();
  };
  REQUIRE_THAT(message(std::vector<uint8_t>(good.begin(), good.begin() + 100)),
               Catch::Contains("s.bin: byte offset"));
  std::vector<uint8_t> b = good;
  b[12] = 1;  // the porep type
  REQUIRE_THAT(message(b), Catch::Contains("byte offset 12: proof type 1 is not snapdeals"));
  b = good;
  const size_t comm_d_new = 8 + 4 + 4 + 8 + 3 * 4 + 32;
  std::fill(b.begin() + comm_d_new, b.begin() + comm_d_new + 32, 0xff);
  REQUIRE_THAT(message(b),
               Catch::Contains("byte offset " + std::to_string(comm_d_new) + ": comm_d_new"));
  auto bad_json = vanilla_from_json(nlohmann::json::parse(R"({"type":"porep"})"), "s.json");
  REQUIRE_THAT(bad_json.status().message(),
               Catch::Contains("s.json: .type: must be \"snapdeals\""));
}

TEST_CASE(
    "Snapdeals format: a partition count other than the preset's or an unknown key is "
    "refused",
    "[snapdeals]") {
  const nlohmann::json good = vanilla_to_json(vanilla());
  auto message = [](const nlohmann::json& j) {
    auto r = vanilla_from_json(j, "s.json");
    return r.ok() ? std::string("OK") : r.status().message();
  };
  for (uint32_t n : {3u, 64u}) {
    nlohmann::json j = good;
    j["shape"]["partitions"] = n;
    CHECK(message(j) == "s.json: .shape: partitions is " + std::to_string(n) +
                            ", but snapdeals-v1-n8-h2-c1 is the circuit of preset 'tiny', which "
                            "has 2");
    std::vector<uint8_t> b = encode_vanilla(vanilla());
    b[32] = static_cast<uint8_t>(n);  // u32 partitions after the header, nodes, h, challenges
    auto r = decode_vanilla(b, "s.bin");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() ==
          "s.bin: the shape at byte offset 16: partitions is " + std::to_string(n) +
              ", but snapdeals-v1-n8-h2-c1 is the circuit of preset 'tiny', which has 2");
  }
  nlohmann::json j = good;
  j["partitions"][0]["challenges"][0]["old_root"] = "0x00";
  CHECK(message(j) ==
        "s.json: .partitions[0].challenges[0].old_root: unknown key (allowed: challenge, data, "
        "data_path, old_replica, old_path, new_replica, new_path)");
  j = good;
  j["shape"]["depth"] = 3;
  CHECK(message(j) ==
        "s.json: .shape.depth: unknown key (allowed: nodes, h, challenges, partitions)");
  j = good;
  j["comm_r"] = "0x00";
  CHECK(message(j) ==
        "s.json: .comm_r: unknown key (allowed: type, version, shape, comm_r_old, comm_d_new, "
        "comm_r_new, comm_c, comm_r_last_old, comm_r_last_new, partitions)");
}

TEST_CASE("Snapdeals circuit: honest partitions satisfy it, tampered ones do not",
          "[snapdeals][circuit]") {
  const VanillaProofs& v = vanilla();
  const porep::CircuitSize size = count_circuit(v.shape);
  for (size_t k = 0; k < v.partitions.size(); ++k) {
    auto cs = groth16::ConstraintSystem::recorder();
    synthesize_partition(cs, v, k);
    REQUIRE(cs.finish().ok());
    REQUIRE(cs.num_constraints() == size.constraints);
    groth16::R1cs r1cs = cs.take_r1cs();
    auto [inputs, aux] = cs.take_witness();
    REQUIRE(groth16::check_satisfied(r1cs, {inputs, aux}).ok());
    REQUIRE(std::vector<Fr>(inputs.begin() + 1, inputs.end()) ==
            public_inputs(v.shape, v.comms, v.partitions[k].partition));
    std::vector<Fr> wi(size.inputs), wa(size.aux);
    auto ws = groth16::ConstraintSystem::witness({wi, wa});
    synthesize_partition(ws, v, k);
    REQUIRE(ws.finish().ok());
    REQUIRE(wi == inputs);
    REQUIRE(wa == aux);
    VanillaProofs bad = v;
    bad.partitions[k].challenges[0].new_replica += Fr::one();
    auto bs = groth16::ConstraintSystem::witness({wi, wa});
    synthesize_partition(bs, bad, k);
    Status s = groth16::check_satisfied(r1cs, {wi, wa});
    REQUIRE_FALSE(s.ok());
    REQUIRE_THAT(s.message(), Catch::Contains("challenge 0"));
  }
}
