// The porep proof type without Groth16: shapes, graph, sealing, vanilla proofs (generation,
// native check, every tamper class), the binary and JSON formats, and the circuit against the
// native check (satisfied by honest proofs, unsatisfied by tampered ones, witness mode = record).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "plugins/common/request.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/porep/vanilla.h"

namespace {

using namespace zkpipe;
using namespace zkpipe::porep;
using crypto::Fr;

Shape tiny() {
  return find_shape("tiny").value();
}

// One sealed tiny sector and its vanilla proofs for both partitions, made once.
const SealedSector& tiny_sector() {
  static const SealedSector s = seal(tiny(), seed_from_string("test sector"), 2);
  return s;
}
const VanillaProofs& tiny_vanilla() {
  static const VanillaProofs v = [] {
    const uint32_t parts[] = {0, 1};
    return make_vanilla_proofs(tiny_sector(), seed_from_string("test challenges"), parts, 2);
  }();
  return v;
}

std::string check_message(const VanillaProofs& v) {
  Status s = check_vanilla(v, "v.bin", 1);
  return s.ok() ? "OK" : s.message();
}

}  // namespace

TEST_CASE("Porep shape: presets are valid and custom shapes are checked", "[porep]") {
  for (const Shape& s : shape_presets()) REQUIRE(validate_shape(s, s.name).ok());
  REQUIRE(find_shape("2KiB").value().sector_bytes() == 2048);
  REQUIRE(find_shape("nope").status().message().find("presets: tiny, 2KiB") != std::string::npos);
  Shape s = tiny();
  s.nodes = 16;
  REQUIRE_THAT(validate_shape(s, "x").message(), Catch::Contains("power of 8"));
  s = tiny();
  s.layers = 3;
  REQUIRE_THAT(validate_shape(s, "x").message(), Catch::Contains("layers must be 2, 4, 8 or 11"));
  s = tiny();
  s.challenges = 0;
  REQUIRE_THAT(validate_shape(s, "x").message(), Catch::Contains("challenges"));
}

TEST_CASE("Porep graph: parents are in range, DRG parents come before the node", "[porep]") {
  Shape s = find_shape("2KiB").value();
  Graph g(s);
  std::vector<uint64_t> p(s.parents()), again(s.parents());
  for (uint64_t node = 1; node < s.nodes; ++node) {
    g.parents(node, p);
    REQUIRE(p[0] == node - 1);
    for (uint32_t j = 0; j < s.base_degree; ++j) REQUIRE(p[j] < node);
    for (uint32_t k = 0; k < s.expansion_degree; ++k) REQUIRE(p[s.base_degree + k] < s.nodes);
    Graph(s).parents(node, again);
    REQUIRE(again == p);  // deterministic from the shape
  }
  g.parents(0, p);
  for (uint32_t j = 0; j < s.base_degree; ++j) REQUIRE(p[j] == 0);
}

TEST_CASE("Porep seal: deterministic, comm_r binds comm_c and comm_r_last", "[porep]") {
  const SealedSector& s = tiny_sector();
  SealedSector again = seal(tiny(), seed_from_string("test sector"), 1);
  REQUIRE(again.comms.comm_r == s.comms.comm_r);
  REQUIRE(again.comms.comm_d == s.comms.comm_d);
  SealedSector other = seal(tiny(), seed_from_string("other sector"), 1);
  REQUIRE(other.comms.comm_r != s.comms.comm_r);
  for (uint64_t i = 0; i < s.shape.nodes; ++i) {
    REQUIRE(s.replica[i] == s.labels[s.shape.layers - 1][i] + s.data[i]);
  }
}

TEST_CASE("Porep vanilla: honest proofs pass the native check", "[porep]") {
  REQUIRE(check_message(tiny_vanilla()) == "OK");
  // Different partitions get different challenges (from the seed), all in [1, nodes).
  for (const PartitionProof& p : tiny_vanilla().partitions) {
    for (const ChallengeProof& c : p.challenges) {
      REQUIRE(c.challenge >= 1);
      REQUIRE(c.challenge < tiny().nodes);
    }
  }
}

TEST_CASE("Porep vanilla: every tampered part is rejected, naming where", "[porep]") {
  const Fr one = Fr::one();
  auto tampered = [&](auto&& change) {
    VanillaProofs v = tiny_vanilla();
    change(v.partitions[1].challenges[0]);
    return check_message(v);
  };
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.data += one; }),
               Catch::Contains("partition 1, challenge 0") && Catch::Contains("comm_d"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.data_path[1] += one; }),
               Catch::Contains("does not open to comm_d"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.replica += one; }),
               Catch::Contains("comm_r_last"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.replica_path[3] += one; }),
               Catch::Contains("comm_r_last"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.column.labels[0] += one; }),
               Catch::Contains("does not open to comm_c"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.parents[2].labels[1] += one; }),
               Catch::Contains("parent 2") && Catch::Contains("comm_c"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.parents[1].node ^= 1; }),
               Catch::Contains("parent 1") && Catch::Contains("is not the graph's parent"));
  REQUIRE_THAT(tampered([&](ChallengeProof& p) { p.challenge = p.challenge % 7 + 1; }),
               Catch::Contains("not the one derived"));
  {
    VanillaProofs v = tiny_vanilla();
    v.partitions[0].partition = 1;  // a wrong partition index: its challenges do not derive
    v.partitions[1].partition = 0;
    REQUIRE_THAT(check_message(v), Catch::Contains("not the one derived"));
    v.partitions[1].partition = 1;
    REQUIRE_THAT(check_message(v), Catch::Contains("repeated"));
    v.partitions[0].partition = 5;
    REQUIRE_THAT(check_message(v), Catch::Contains("out of range"));
  }
  {
    VanillaProofs v = tiny_vanilla();
    v.comms.comm_r += one;
    REQUIRE_THAT(check_message(v), Catch::Contains("comm_r is not Poseidon"));
  }
}

TEST_CASE("Porep vanilla: a label that is not computed from its parents is named by layer",
          "[porep]") {
  // Re-seal with one label changed so every tree stays consistent and only the labeling is
  // wrong: the check must find it by recomputing the label.
  SealedSector s = seal(tiny(), seed_from_string("test sector"), 1);
  const uint32_t partition = 0;
  VanillaProofs honest = make_vanilla_proofs(s, seed_from_string("test challenges"),
                                             std::span<const uint32_t>(&partition, 1), 1);
  const uint64_t node = honest.partitions[0].challenges[0].challenge;
  s.labels[1][node] += Fr::one();
  build_trees(s);
  VanillaProofs v = make_vanilla_proofs(s, seed_from_string("test challenges"),
                                        std::span<const uint32_t>(&partition, 1), 1);
  REQUIRE_THAT(check_message(v), Catch::Contains("challenge 0") && Catch::Contains("layer 2") &&
                                     Catch::Contains("label does not match"));
}

TEST_CASE("Porep format: binary and JSON round trip", "[porep]") {
  const VanillaProofs& v = tiny_vanilla();
  std::vector<uint8_t> bytes = encode_vanilla(v);
  auto back = decode_vanilla(bytes, "v.bin");
  REQUIRE(back.ok());
  REQUIRE(encode_vanilla(*back) == bytes);
  REQUIRE(back->shape.name == "tiny");
  auto from_json = vanilla_from_json(nlohmann::json::parse(vanilla_to_json(v).dump()), "v.json");
  REQUIRE(from_json.ok());
  REQUIRE(encode_vanilla(*from_json) == bytes);
}

TEST_CASE("Porep format: malformed files are refused with the byte offset", "[porep]") {
  const std::vector<uint8_t> good = encode_vanilla(tiny_vanilla());
  auto message = [](std::vector<uint8_t> b) {
    auto r = decode_vanilla(b, "v.bin");
    return r.ok() ? std::string("OK") : r.status().message();
  };
  for (size_t cut : {size_t{0}, size_t{7}, size_t{20}, size_t{60}, size_t{300}, good.size() - 1}) {
    std::vector<uint8_t> b(good.begin(), good.begin() + cut);
    REQUIRE_THAT(message(b), Catch::Contains("v.bin: byte offset"));
  }
  std::vector<uint8_t> b = good;
  b[0] = 'X';
  REQUIRE_THAT(message(b), Catch::Contains("not a zkpipe vanilla proof file"));
  b = good;
  b[8] = 2;
  REQUIRE_THAT(message(b), Catch::Contains("byte offset 8: version 2 is not supported"));
  b = good;
  b[16] = 9;  // nodes = 9
  REQUIRE_THAT(message(b), Catch::Contains("power of 8"));
  b = good;
  b.push_back(0);
  REQUIRE_THAT(message(b), Catch::Contains("need exactly"));
  b = good;
  const size_t replica_id = 8 + 4 + 4 + 8 + 5 * 4 + 32;
  std::fill(b.begin() + replica_id, b.begin() + replica_id + 32, 0xff);
  REQUIRE_THAT(message(b), Catch::Contains("byte offset " + std::to_string(replica_id)) &&
                               Catch::Contains("the replica id: not a canonical field element"));
  b = good;
  const size_t partition_index = replica_id + 5 * 32 + 4;
  b[partition_index] = 7;
  REQUIRE_THAT(message(b), Catch::Contains("partition index 7"));
  auto bad_json =
      vanilla_from_json(nlohmann::json::parse(R"({"type":"porep","version":1})"), "v.json");
  REQUIRE_THAT(bad_json.status().message(), Catch::Contains("v.json: .shape: missing"));
}

// Found by tests/fuzz: nlohmann throws out_of_range (not parse_error) for a number beyond a
// double, which escaped decode_request and terminated the tool and the plugin.
TEST_CASE("Porep format: a JSON number beyond a double is refused, not thrown", "[porep]") {
  const std::string text = R"({"type":"porep","version":1e999})";
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  auto v = plugins::decode_request(bytes, "v.json", decode_vanilla, vanilla_from_json);
  REQUIRE_FALSE(v.ok());
  REQUIRE_THAT(v.status().message(),
               Catch::Contains("v.json: not valid JSON") && Catch::Contains("number overflow"));
}

TEST_CASE("Porep circuit: honest partitions satisfy it, tampered ones do not", "[porep][circuit]") {
  const VanillaProofs& v = tiny_vanilla();
  const CircuitSize size = count_circuit(v.shape);
  for (size_t k = 0; k < v.partitions.size(); ++k) {
    auto cs = groth16::ConstraintSystem::recorder();
    synthesize_partition(cs, v, k);
    REQUIRE(cs.finish().ok());
    REQUIRE(cs.num_constraints() == size.constraints);
    REQUIRE(cs.num_inputs() == size.inputs);
    REQUIRE(cs.num_aux() == size.aux);
    groth16::R1cs r1cs = cs.take_r1cs();
    auto [inputs, aux] = cs.take_witness();
    REQUIRE(groth16::check_satisfied(r1cs, {inputs, aux}).ok());
    // The public inputs are exactly what a verifier derives.
    std::vector<Fr> x =
        public_inputs(v.shape, v.replica_id, v.comms, v.challenge_seed, v.partitions[k].partition);
    REQUIRE(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == x);
    // Witness-only mode writes the same assignment into buffers.
    std::vector<Fr> wi(size.inputs), wa(size.aux);
    auto ws = groth16::ConstraintSystem::witness({wi, wa});
    synthesize_partition(ws, v, k);
    REQUIRE(ws.finish().ok());
    REQUIRE(wi == inputs);
    REQUIRE(wa == aux);
    if (k == 0) {
      // Tampered data: the circuit rejects it (named in the data inclusion).
      VanillaProofs bad = v;
      bad.partitions[0].challenges[0].data += Fr::one();
      auto bs = groth16::ConstraintSystem::witness({wi, wa});
      synthesize_partition(bs, bad, 0);
      Status s = groth16::check_satisfied(r1cs, {wi, wa});
      REQUIRE_FALSE(s.ok());
      REQUIRE_THAT(s.message(), Catch::Contains("challenge 0"));
      // A label not computed from its parents.
      bad = v;
      bad.partitions[0].challenges[0].column.labels[1] += Fr::one();
      bs = groth16::ConstraintSystem::witness({wi, wa});
      synthesize_partition(bs, bad, 0);
      REQUIRE_FALSE(groth16::check_satisfied(r1cs, {wi, wa}).ok());
    }
  }
}
