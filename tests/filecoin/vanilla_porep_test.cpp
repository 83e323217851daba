// Filecoin's C1 output (zkpipe/filecoin_circuit/vanilla_porep.h): a sample over a 2KiB sector
// sealed here round-trips through the JSON filecoin-ffi writes, passes the native check, and its
// witness satisfies the PoRep circuit with the public inputs part 1 derives from the sector's
// description (prover_id, sector_id, ticket, seed); damage is refused by the native check,
// naming the partition, challenge and field, and malformed JSON names the path. Curio's binary
// form round-trips, reads as the JSON does (bare or as a hex string beside prover_id and
// sector_id), and malformed binary names the field and byte.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "filecoin/circuit_helpers.h"
#include "zkpipe/filecoin_circuit/porep_request.h"
#include "zkpipe/filecoin_circuit/vanilla_porep.h"

namespace zkpipe::filecoin_circuit {
namespace {

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

const SampleCommit1& sample_2kib() {
  static const SampleCommit1 s = *sample_commit1_output("StackedDrg2KiBV1_1", 7);
  return s;
}

Status check(const Commit1Output& c) {
  return porep_witness(c, 0, "c1").status();
}

TEST_CASE("Filecoin C1 output: a sealed 2KiB sector round-trips and proves",
          "[filecoin][circuit][heavy]") {
  const SampleCommit1& s = sample_2kib();
  const std::string text = encode_commit1_output(s.c1);
  const nlohmann::json j = nlohmann::json::parse(text);
  CHECK(j["registered_proof"] == "StackedDrg2KiBV1_1");
  REQUIRE(j["vanilla_proofs"].contains("StackedDrg2KiBV1"));
  CHECK(j["vanilla_proofs"]["StackedDrg2KiBV1"].size() == 1);
  CHECK(j["vanilla_proofs"]["StackedDrg2KiBV1"][0].size() == 2);
  CHECK(j["replica_id"].size() == 32);

  Result<Commit1Output> parsed = parse_commit1_output(bytes_of(text), "c1");
  REQUIRE(parsed.ok());
  CHECK(encode_commit1_output(*parsed) == text);

  Result<PorepWitness> w = porep_witness(*parsed, 0, "c1");
  INFO(w.status().to_string());
  REQUIRE(w.ok());
  std::vector<Fr> inputs;
  record_satisfied([&](ConstraintSystem& cs) { synthesize_porep(cs, *w); }, &inputs);

  filecoin::PorepDescription d;
  d.config = parsed->config;
  d.comm_r = parsed->comm_r;
  d.comm_d = parsed->comm_d;
  d.prover_id = s.prover_id;
  d.sector_id = s.sector_id;
  d.ticket = parsed->ticket;
  d.seed = parsed->seed;
  const Result<std::vector<std::vector<Fr>>> derived = filecoin::porep_public_inputs(d);
  REQUIRE(derived.ok());
  REQUIRE(inputs.size() == 1 + (*derived)[0].size());
  CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == (*derived)[0]);
}

TEST_CASE("Filecoin C1 output: damaged vanilla proofs are refused by name", "[filecoin][circuit]") {
  const Commit1Output good = sample_2kib().c1;
  REQUIRE(check(good).ok());
  struct Case {
    const char* expect;
    void (*damage)(Commit1Output&);
  };
  const Case cases[] = {
      {"labeling_proofs[1]: its parents",
       [](Commit1Output& c) { c.vanilla_proofs[0][1].labeling[1].parents[5][0] ^= 1; }},
      {"challenge 0 (node", [](Commit1Output& c) { c.vanilla_proofs[0][0].c_x.rows[0][3] ^= 1; }},
      {"drg_parents[2]: the column of node",
       [](Commit1Output& c) { c.vanilla_proofs[0][1].drg_parents[2].index += 1; }},
      {"comm_d_proofs: the Merkle path does not lead to the root",
       [](Commit1Output& c) {
         c.vanilla_proofs[0][0].comm_d.paths[0][2].siblings[0] += Fr::one();
       }},
      {"challenge proofs; the partition has 2",
       [](Commit1Output& c) { c.vanilla_proofs[0].pop_back(); }},
      {"Poseidon(comm_c, comm_r_last) of the proofs is not comm_r",
       [](Commit1Output& c) { c.comm_r[0] ^= 1; }},
      {"encoding_proof: not the last layer's labeling",
       [](Commit1Output& c) { c.vanilla_proofs[0][1].encoding.layer_index = 1; }},
      {"comm_r_last_proof: the path opens leaf",
       [](Commit1Output& c) { c.vanilla_proofs[0][0].comm_r_last.paths[0][0].position ^= 1; }},
  };
  for (const Case& k : cases) {
    INFO(k.expect);
    Commit1Output c = good;
    k.damage(c);
    const Status s = check(c);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains(k.expect));
  }
}

TEST_CASE("Filecoin C1 output: malformed JSON is refused naming the path", "[filecoin][circuit]") {
  const std::string text = encode_commit1_output(sample_2kib().c1);
  struct Case {
    const char* expect;
    void (*edit)(nlohmann::json&);
  };
  const Case cases[] = {
      {"$.comm_r: not an array of 32 bytes", [](nlohmann::json& j) { j["comm_r"] = "00"; }},
      {"$.seed[4]: not a byte", [](nlohmann::json& j) { j["seed"][4] = 256; }},
      {"$.registered_proof", [](nlohmann::json& j) { j["registered_proof"] = "StackedDrg3KiBV1"; }},
      {"holds \"StackedDrg8MiBV1\" proofs",
       [](nlohmann::json& j) {
         j["vanilla_proofs"]["StackedDrg8MiBV1"] = j["vanilla_proofs"]["StackedDrg2KiBV1"];
         j["vanilla_proofs"].erase("StackedDrg2KiBV1");
       }},
      {"$.vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.exp_parents[3].column.rows: "
       "missing",
       [](nlohmann::json& j) {
         j["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["replica_column_proofs"]["exp_parents"][3]
          ["column"]
              .erase("rows");
       }},
      {"comm_d_proofs.data: unknown proof kind \"Double\"",
       [](nlohmann::json& j) {
         nlohmann::json& data =
             j["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["data"];
         data["Double"] = data["Single"];
         data.erase("Single");
       }},
      {"path[0].index: not a number in 0..1",
       [](nlohmann::json& j) {
         j["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["data"]["Single"]["path"]
          ["path"][0]["index"] = 2;
       }},
      {"labeling_proofs[0].parents[0]: not a canonical field element",
       [](nlohmann::json& j) {
         j["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["labeling_proofs"][0]["parents"][0] =
             std::vector<int>(32, 255);
       }},
  };
  for (const Case& k : cases) {
    INFO(k.expect);
    nlohmann::json j = nlohmann::json::parse(text);
    k.edit(j);
    const Result<Commit1Output> r = parse_commit1_output(bytes_of(j.dump()), "c1.json");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("c1.json") && Catch::Contains(k.expect));
  }
  CHECK_FALSE(parse_commit1_output(bytes_of("[1,2]"), "c1.json").ok());
  CHECK_FALSE(parse_commit1_output(bytes_of(text.substr(0, text.size() / 2)), "c1.json").ok());
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit

namespace zkpipe::filecoin_circuit {
namespace {

std::string hex(std::span<const uint8_t> b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) s += {kDigits[x >> 4], kDigits[x & 15]};
  return s;
}

// Byte offsets of the 2KiB sample's binary form: comm_d 0, comm_r 32, registered_proof's length
// 64 ("StackedDrg2KiBV1_1": 18 bytes), replica_id 83, seed 115, ticket 147, the kinds' count 179,
// the key's length 180 ("StackedDrg2KiBV1": 16 bytes), the partitions' count 197, the first
// partition's challenges 198, the first proof's comm_d_proofs kind 199.
TEST_CASE("Filecoin C1 output: curio's binary form round-trips and reads as the JSON does",
          "[filecoin][circuit]") {
  const Commit1Output& c1 = sample_2kib().c1;
  const std::vector<uint8_t> bin = encode_commit1_binary(c1);
  CHECK(std::equal(c1.comm_d.begin(), c1.comm_d.end(), bin.begin()));
  CHECK(bin[64] == 18);
  CHECK(std::string(bin.begin() + 65, bin.begin() + 83) == "StackedDrg2KiBV1_1");
  CHECK(std::equal(c1.replica_id.begin(), c1.replica_id.end(), bin.begin() + 83));
  CHECK(bin[179] == 1);
  CHECK(std::string(bin.begin() + 181, bin.begin() + 197) == "StackedDrg2KiBV1");
  CHECK(bin[197] == 1);
  CHECK(bin[198] == 2);
  CHECK(bin[199] == 0);  // Single
  Result<Commit1Output> back = parse_commit1_binary(bin, "c1.bin");
  INFO(back.status().to_string());
  REQUIRE(back.ok());
  CHECK(encode_commit1_output(*back) == encode_commit1_output(c1));
  CHECK(encode_commit1_binary(*back) == bin);

  // As a request: bare (replica_id as given), or beside prover_id and sector_id as hex.
  Result<PorepRequest> bare = parse_porep_request(bin, "c1.bin");
  INFO(bare.status().to_string());
  REQUIRE(bare.ok());
  CHECK_FALSE(bare->has_prover);
  CHECK(bare->witnesses.size() == 1);
  const nlohmann::json wrapped = {{"commit1_output", "0x" + hex(bin)},
                                  {"prover_id", hex(sample_2kib().prover_id)},
                                  {"sector_id", sample_2kib().sector_id}};
  Result<PorepRequest> with_prover = parse_porep_request(bytes_of(wrapped.dump()), "r.json");
  INFO(with_prover.status().to_string());
  REQUIRE(with_prover.ok());
  CHECK(with_prover->has_prover);
  CHECK(with_prover->inputs == bare->inputs);
}

TEST_CASE("Filecoin C1 output: malformed binary is refused naming the field and byte",
          "[filecoin][circuit]") {
  const std::vector<uint8_t> good = encode_commit1_binary(sample_2kib().c1);
  auto with = [&](size_t at, std::vector<uint8_t> bytes, size_t replace) {
    std::vector<uint8_t> b = good;
    b.erase(b.begin() + at, b.begin() + at + replace);
    b.insert(b.begin() + at, bytes.begin(), bytes.end());
    return b;
  };
  struct Case {
    std::string expect;
    std::vector<uint8_t> bytes;
  };
  std::vector<uint8_t> key8 = good;
  key8[191] = '8';  // "StackedDrg2KiBV1" -> "StackedDrg8KiBV1"
  const Case cases[] = {
      {"replica_id at byte 83: truncated", std::vector<uint8_t>(good.begin(), good.begin() + 100)},
      {"comm_r at byte 32: not a canonical field element",
       with(32, std::vector<uint8_t>(32, 0xff), 32)},
      {"registered_proof at byte 64", with(65 + 10, {'3'}, 1)},
      {"vanilla_proofs at byte 179: holds 2 proof kinds", with(179, {2}, 1)},
      {"vanilla_proofs at byte 180: holds \"StackedDrg8KiBV1\" proofs", key8},
      {"vanilla_proofs.StackedDrg2KiBV1.len at byte 197: a count of 268435455",
       with(197, {0xff, 0xff, 0xff, 0x7f}, 1)},
      {"vanilla_proofs.len at byte 179: a varint beyond 64 bits",
       with(179, std::vector<uint8_t>(11, 0xff), 1)},
      {"vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data at byte 199: unknown proof kind 3",
       with(199, {3}, 1)},
      {"end at byte " + std::to_string(good.size()) + ": 1 bytes after the C1 output",
       with(good.size(), {0}, 0)},
  };
  for (const Case& k : cases) {
    INFO(k.expect);
    const Result<Commit1Output> r = parse_commit1_binary(k.bytes, "c1.bin");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("c1.bin: ") && Catch::Contains(k.expect));
  }
  // A request that is JSON-like but neither form says so; one that is not is read as binary.
  CHECK_THAT(parse_porep_request(bytes_of("{\"comm_r\": "), "r").status().message(),
             Catch::Contains("not a JSON object (nor curio's binary C1 output)"));
  CHECK_THAT(parse_porep_request(std::vector<uint8_t>(good.begin(), good.begin() + 40), "r")
                 .status()
                 .message(),
             Catch::Contains("comm_r at byte 32: truncated"));
}

}  // namespace
}  // namespace zkpipe::filecoin_circuit
