// The porep proof type without Groth16: shapes, graph, sealing, vanilla proofs (generation,
// native check, every tamper class), the binary and JSON formats, and the circuit against the
// native check (satisfied by honest proofs, unsatisfied by tampered ones, witness mode = record).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/request.h"

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

namespace {
std::string json_message(const nlohmann::json& j) {
  auto r = vanilla_from_json(j, "v.json");
  return r.ok() ? std::string("OK") : r.status().message();
}
}  // namespace

// Partitions do not change the circuit and nothing in a request derives from their count, so an
// edited count was proved as given: a preset's circuit must have the preset's partitions.
TEST_CASE("Porep format: a partition count other than the preset's is refused, naming both",
          "[porep]") {
  const nlohmann::json good = vanilla_to_json(tiny_vanilla());
  for (uint32_t n : {3u, 64u}) {
    nlohmann::json j = good;
    j["shape"]["partitions"] = n;
    CHECK(json_message(j) == "v.json: .shape: partitions is " + std::to_string(n) +
                                 ", but porep-v1-n8-l2-b2-e2-c1 is the circuit of preset 'tiny', "
                                 "which has 2");
    std::vector<uint8_t> b = encode_vanilla(tiny_vanilla());
    b[40] = static_cast<uint8_t>(n);  // u32 partitions after magic, version, type, nodes, 4 u32s
    auto r = decode_vanilla(b, "v.bin");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() ==
          "v.bin: the shape at byte offset 16: partitions is " + std::to_string(n) +
              ", but porep-v1-n8-l2-b2-e2-c1 is the circuit of preset 'tiny', which has 2");
  }
  // A custom circuit keeps its own count; the request may still hold a subset of it.
  VanillaProofs custom = tiny_vanilla();
  custom.shape.challenges = 2;
  custom.shape.partitions = 3;
  CHECK(validate_shape(custom.shape, "s").ok());
  // More entries than the shape has partitions names both.
  nlohmann::json j = good;
  j["partitions"].push_back(j["partitions"][0]);
  CHECK(json_message(j) == "v.json: .partitions: holds 3 partitions; shape.partitions is 2");
}

// decode_request holds JSON to request_shape() while it streams (zkpipe/sdk/json_shape.h): the
// same messages for unknown keys, and arrays past the largest shape refused before any tree.
TEST_CASE("Porep format: a JSON request is held to the largest shape while it streams", "[porep]") {
  auto streamed = [](const nlohmann::json& j) {
    const std::string text = j.dump();
    auto v = plugins::decode_request(
        std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "v.json",
        &request_shape(), decode_vanilla, vanilla_from_json);
    return v.ok() ? std::string("OK") : v.status().message();
  };
  const nlohmann::json good = vanilla_to_json(tiny_vanilla());
  CHECK(streamed(good) == "OK");
  nlohmann::json j = good;
  j["comment"] = "hi";
  CHECK(streamed(j) == json_message(j));
  j = good;
  j["partitions"][1]["note"] = 1;
  CHECK(streamed(j) == json_message(j));
  j = good;
  for (int i = 0; i < 63; ++i) j["partitions"].push_back(good["partitions"][0]);  // 2 + 63
  CHECK(streamed(j) == "v.json: .partitions: more than 64 entries");
  j = good;
  j["partitions"][0]["challenges"][0]["column"]["labels"] = std::string(67, '0');
  CHECK(streamed(j) ==
        "v.json: .partitions[0].challenges[0].column.labels: must be an array, not a string");
}

TEST_CASE("Porep format: an unknown JSON key is refused, naming its path", "[porep]") {
  const nlohmann::json good = vanilla_to_json(tiny_vanilla());
  nlohmann::json j = good;
  j["comment"] = "hi";
  CHECK(json_message(j) ==
        "v.json: .comment: unknown key (allowed: type, version, shape, challenge_seed, replica_id, "
        "comm_d, comm_c, comm_r_last, comm_r, partitions)");
  j = good;
  j["shape"]["sector_size"] = 256;
  CHECK(json_message(j) ==
        "v.json: .shape.sector_size: unknown key (allowed: nodes, layers, base_degree, "
        "expansion_degree, challenges, partitions)");
  j = good;
  j["partitions"][1]["note"] = 1;
  CHECK(json_message(j) ==
        "v.json: .partitions[1].note: unknown key (allowed: partition, challenges)");
  j = good;
  j["partitions"][1]["challenges"][0]["parents"][3]["extra"] = true;
  CHECK(json_message(j) ==
        "v.json: .partitions[1].challenges[0].parents[3].extra: unknown key (allowed: node, "
        "labels, path)");
  j = good;
  j["partitions"][0]["challenges"][0]["column"]["x"] = 0;
  CHECK(json_message(j) ==
        "v.json: .partitions[0].challenges[0].column.x: unknown key (allowed: node, labels, path)");
  // A 3 MB key is quoted as its first 100 bytes and its length.
  j = good;
  j[std::string(3'000'000, 'k')] = 1;
  CHECK(json_message(j) == "v.json: ." + std::string(100, 'k') +
                               "... (3000000 bytes): unknown key (allowed: type, version, shape, "
                               "challenge_seed, replica_id, comm_d, comm_c, comm_r_last, comm_r, "
                               "partitions)");
}

TEST_CASE("Porep format: JSON nested 10,000 deep is refused before parsing, naming the byte",
          "[porep]") {
  const std::string head = R"({"type":"porep","version":)";
  const std::string text = head + std::string(10000, '[') + std::string(10000, ']') + "}";
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  auto v = plugins::decode_request(bytes, "v.json", decode_vanilla, vanilla_from_json);
  REQUIRE_FALSE(v.ok());
  // The top-level object is level 1, so the 32nd '[' opens level 33.
  CHECK(v.status().message() ==
        "v.json: not valid JSON: byte " + std::to_string(head.size() + 31) +
            ": nesting too deep (more than 32 levels of objects and arrays)");
  // Brackets inside strings do not count; a syntax error quotes at most 100 bytes of its token.
  const std::string bad = R"({"type":")" + std::string(3'000'000, '[') + "\n\"}";
  auto b = plugins::decode_request(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()), "v.json",
      decode_vanilla, vanilla_from_json);
  REQUIRE_FALSE(b.ok());
  CHECK_THAT(b.status().message(),
             Catch::StartsWith("v.json: not valid JSON: byte ") &&
                 Catch::Contains(
                     "parse error at line 2, column 0: syntax error while parsing value -... (") &&
                 Catch::EndsWith(" bytes)"));
  CHECK(b.status().message().size() < 300);
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
