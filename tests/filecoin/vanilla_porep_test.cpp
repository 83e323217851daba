// Filecoin's C1 output (zkpipe/filecoin_circuit/vanilla_porep.h): a sample over a 2KiB sector
// sealed here round-trips through the JSON filecoin-ffi writes, passes the native check, and its
// witness satisfies the PoRep circuit with the public inputs part 1 derives from the sector's
// description (prover_id, sector_id, ticket, seed); damage is refused by the native check,
// naming the partition, challenge and field, and malformed JSON names the path.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "filecoin/circuit_helpers.h"
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
