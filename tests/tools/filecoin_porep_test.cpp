// The filecoin_porep proof type end to end through the command line: `info` prints Filecoin's
// 32GiB counts (130,278,541 constraints, 327 public inputs a partition); a sample request (a
// 2KiB sector sealed with Filecoin's SDR, its C1 output with prover_id and sector_id) checks
// natively and constraint by constraint; `zkpipe prove` makes a proof the engine verifies, and
// part 1's `zkpipe-tool filecoin verify` verifies it too under the .vk beside the params (proved
// through params.filecoin_dir: a development file under Filecoin's registered name, in
// bellperson's layout, shared by the build's tests) with the inputs it derives from the sector's
// description alone (prover, sector, ticket, seed, commitments), and refuses it for another seed; a
// C1 output of another sector (a wrong prover_id) and a tampered vanilla proof are refused before
// synthesis, naming what is wrong. [heavy]: counting the 32GiB circuit and the development setup of
// a 2.7M-constraint circuit (about a minute on 2 cores); the sanitizer builds leave them out
// (tests/CMakeLists.txt).
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"
#include "tools/run_tool.h"
#include "zkpipe/filecoin/circuit_params.h"

namespace {

using Catch::Matchers::Contains;
using zkpipe::test::run_program;
using zkpipe::test::run_tool;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST_CASE("filecoin PoRep: info prints Filecoin's 32GiB counts",
          "[tool][filecoin][plugin][heavy]") {
  auto r = run_tool("proof-type filecoin_porep info --preset StackedDrg32GiBV1_1 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j.at("constraints") == 130'278'541);
  CHECK(j.at("public_inputs") == 327);
  CHECK(j.at("partitions") == 10);
  CHECK(j.at("circuit_id") == "filecoin-porep-32GiB");
  CHECK(run_tool("proof-type filecoin_porep info --preset StackedDrg2KiBV1_1_Feat_SyntheticPoRep")
            .exit_code == 2);
  CHECK(run_tool("proof-type filecoin_porep info --preset StackedDrgWindow2KiBV1").exit_code == 2);
}

TEST_CASE("filecoin PoRep: a sample proves, and verifies outside the engine",
          "[tool][filecoin][plugin][heavy]") {
  const TempDir dir("zkpipe_filecoin_porep");
  const std::string request = dir.file("p.json");
  REQUIRE(run_tool("proof-type filecoin_porep sample --preset StackedDrg2KiBV1_1 --seed 5 --out " +
                   request)
              .exit_code == 0);
  auto check = run_tool("proof-type filecoin_porep check --input " + request + " --synthesize");
  INFO(check.output);
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.output, Contains("all 2687921 constraints hold") &&
                               Contains("replica_id is the one prover_id and sector_id derive"));

  write(
      dir.file("c.yaml"),
      fmt::format("version: 1\nplugin_dirs: [{}]\nmemory: {{backend: pageable}}\n"
                  "params: {{dir: {}, filecoin_dir: {}, missing: setup}}\n"
                  "compute: {{threads: 2}}\n",
                  ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_SHARED_PARAMS, ZKPIPE_TEST_FILECOIN_PARAMS));
  const std::string proof = dir.file("p.proof");
  auto prove =
      run_program(ZKPIPE_TEST_ZKPIPE,
                  fmt::format("prove --config {} --proof filecoin_porep --input {} --out {}",
                              dir.file("c.yaml"), request, proof));
  INFO(prove.output);
  REQUIRE(prove.exit_code == 0);
  CHECK_THAT(prove.output, Contains("OK, verified"));

  // The sector's description alone, as a Filecoin node has it.
  const nlohmann::json r = nlohmann::json::parse(read_text(request));
  const nlohmann::json& c1 = r["commit1_output"];
  nlohmann::json desc = {{"registered_proof", c1["registered_proof"]},
                         {"comm_r", c1["comm_r"]},
                         {"comm_d", c1["comm_d"]},
                         {"prover_id", r["prover_id"]},
                         {"sector_id", r["sector_id"]},
                         {"ticket", c1["ticket"]},
                         {"seed", c1["seed"]}};
  write(dir.file("desc.json"), desc.dump());
  // The .vk beside Filecoin's file name in the Filecoin parameter directory, the development
  // label beside the .params.
  const std::string stem = zkpipe::filecoin::param_file_stem(
      *zkpipe::filecoin::circuit_param_file("filecoin-porep-2KiB"));
  const std::string vk = std::string(ZKPIPE_TEST_FILECOIN_PARAMS) + "/" + stem + ".vk";
  CHECK(std::filesystem::exists(std::string(ZKPIPE_TEST_FILECOIN_PARAMS) + "/" + stem +
                                ".params.development"));
  auto ok = run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                                 dir.file("desc.json")));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  desc["seed"][0] = desc["seed"][0].get<int>() ^ 1;
  write(dir.file("other.json"), desc.dump());
  CHECK(run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                             dir.file("other.json")))
            .exit_code == 1);

  // Another sector's C1 output (its replica_id is not this prover's): refused by parse.
  nlohmann::json other = r;
  other["prover_id"] = std::string(64, '7');
  write(dir.file("other_sector.json"), other.dump());
  auto refused = run_program(ZKPIPE_TEST_ZKPIPE,
                             fmt::format("prove --config {} --proof filecoin_porep --input {}",
                                         dir.file("c.yaml"), dir.file("other_sector.json")));
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.output, Contains("replica_id is not the one prover_id"));

  // A tampered label in a parent's column: refused before synthesis, naming the challenge.
  nlohmann::json bad = r;
  nlohmann::json& rows = bad["commit1_output"]["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]
                            ["replica_column_proofs"]["drg_parents"][2]["column"]["rows"];
  rows[1][0] = rows[1][0].get<int>() ^ 1;
  write(dir.file("bad.json"), bad.dump());
  auto tampered = run_tool("proof-type filecoin_porep check --input " + dir.file("bad.json"));
  CHECK(tampered.exit_code == 2);
  CHECK_THAT(tampered.output, Contains("partition 0 challenge 1") && Contains("drg_parents[2]"));
}

}  // namespace
