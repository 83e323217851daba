// The filecoin_snapdeals proof type end to end through the command line: `info` prints
// Filecoin's 32GiB count (81,049,499 constraints, 4 public inputs a partition); a sample request
// (a CC 2KiB sector sealed with Filecoin's SDR, new data encoded into it) checks natively and
// constraint by constraint; `zkpipe prove` makes a proof the engine verifies, and part 1's
// `zkpipe-tool filecoin verify` verifies it under the .vk beside the params (Filecoin's file
// name in params.filecoin_dir, a development file in bellperson's layout) with the
// inputs it derives from the description alone, and refuses it for another comm_d_new; a
// tampered vanilla proof is refused before synthesis, naming the partition. The Poseidon
// variant the same way at 2KiB, with the development file under the name rust-fil-proofs would
// give it (Filecoin publishes its files for 32GiB and 64GiB only).
// [heavy]: counting the 32GiB circuit and the development setup of a 1.7M-constraint circuit;
// the sanitizer builds leave them out.
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

TEST_CASE("filecoin SnapDeals: info prints Filecoin's 32GiB count",
          "[tool][filecoin][plugin][heavy]") {
  auto r = run_tool("proof-type filecoin_snapdeals info --preset StackedDrg32GiBV1 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j.at("constraints") == 81'049'499);
  CHECK(j.at("public_inputs") == 4);
  CHECK(j.at("partitions") == 16);
  CHECK(run_tool("proof-type filecoin_snapdeals info --preset StackedDrg3KiBV1").exit_code == 2);
  // the Poseidon variant: tests/circuit_poseidon.rs' 32GiB count, one partition, and the file
  // Filecoin publishes for it
  auto p =
      run_tool("proof-type filecoin_snapdeals info --preset StackedDrg32GiBV1-Poseidon --json");
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  const nlohmann::json q = nlohmann::json::parse(p.output);
  CHECK(q.at("constraints") == 22'305'906);
  CHECK(q.at("public_inputs") == 4);
  CHECK(q.at("partitions") == 1);
  CHECK(q.at("challenges_per_partition") == 1376);
  CHECK(q.at("circuit_id") == "filecoin-snapdeals-poseidon-32GiB");
  CHECK_THAT(q.at("filecoin_params").get<std::string>(),
             Contains("v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-"));
}

// A 2KiB sample request of the Poseidon variant (seed 3) in `dir`: its path.
std::string poseidon_sample(const TempDir& dir) {
  const std::string request = dir.file("u.json");
  REQUIRE(run_tool("proof-type filecoin_snapdeals sample --preset StackedDrg2KiBV1-Poseidon "
                   "--seed 3 --out " +
                   request)
              .exit_code == 0);
  return request;
}

TEST_CASE(
    "filecoin SnapDeals, Poseidon variant: a sample checks, and a request read as another variant "
    "is refused",
    "[tool][filecoin][plugin]") {
  const TempDir dir("zkpipe_filecoin_snapdeals_poseidon");
  const std::string request = poseidon_sample(dir);
  CHECK(nlohmann::json::parse(read_text(request)).at("variant") == "poseidon");
  auto info =
      run_tool("proof-type filecoin_snapdeals info --preset StackedDrg2KiBV1-Poseidon --json");
  REQUIRE(info.exit_code == 0);
  const uint64_t constraints = nlohmann::json::parse(info.output).at("constraints");
  auto check = run_tool("proof-type filecoin_snapdeals check --input " + request + " --synthesize");
  INFO(check.output);
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.output, Contains("(the Poseidon variant)") &&
                               Contains(fmt::format("all {} constraints hold", constraints)));

  // The request without its variant reads the Poseidon proof in the SHA-256 layout: refused
  nlohmann::json plain = nlohmann::json::parse(read_text(request));
  plain.erase("variant");
  write(dir.file("plain.json"), plain.dump());
  auto refused = run_tool("proof-type filecoin_snapdeals check --input " + dir.file("plain.json"));
  CHECK(refused.exit_code == 2);
  plain["variant"] = "blake2s";
  write(dir.file("bad_variant.json"), plain.dump());
  auto bad =
      run_tool("proof-type filecoin_snapdeals check --input " + dir.file("bad_variant.json"));
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("variant"));
}

// [heavy]: the development setup of the circuit, two minutes in the sanitizer build (its check
// and parse run there in the case above).
TEST_CASE("filecoin SnapDeals, Poseidon variant: a sample proves and verifies outside the engine",
          "[tool][filecoin][plugin][heavy]") {
  const TempDir dir("zkpipe_filecoin_snapdeals_poseidon");
  const std::string request = poseidon_sample(dir);
  // Filecoin publishes no 2KiB file of this circuit: `missing: setup` makes a development file
  // under the name rust-fil-proofs would give it, labeled, with its .vk
  const TempDir fil("zkpipe_filecoin_snapdeals_poseidon_params");
  write(dir.file("c.yaml"),
        fmt::format("version: 1\nplugin_dirs: [{}]\nmemory: {{backend: pageable}}\n"
                    "params: {{dir: {}, filecoin_dir: {}, missing: setup}}\n"
                    "compute: {{threads: 2}}\n",
                    ZKPIPE_TEST_PLUGIN_DIR, dir.file("params"), fil.path.string()));
  const std::string proof = dir.file("u.proof");
  auto prove =
      run_program(ZKPIPE_TEST_ZKPIPE,
                  fmt::format("prove --config {} --proof filecoin_snapdeals --input {} --out {}",
                              dir.file("c.yaml"), request, proof));
  INFO(prove.output);
  REQUIRE(prove.exit_code == 0);
  CHECK_THAT(prove.output, Contains("OK, verified"));
  const std::string stem = zkpipe::filecoin::param_file_stem(
      *zkpipe::filecoin::circuit_param_file("filecoin-snapdeals-poseidon-2KiB"));
  CHECK_THAT(stem, Contains("empty-sector-update-poseidon-merkletree-poseidon_hasher-8-0-0-"));
  CHECK(std::filesystem::exists(fil.file(stem + ".params.development")));

  nlohmann::json desc = nlohmann::json::parse(read_text(request));
  desc.erase("vanilla_proofs");
  write(dir.file("desc.json"), desc.dump());
  const std::string vk = fil.file(stem + ".vk");
  auto ok = run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                                 dir.file("desc.json")));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  std::string r = desc["comm_r_new"];
  r[0] = r[0] == '0' ? '1' : '0';
  desc["comm_r_new"] = r;
  write(dir.file("other.json"), desc.dump());
  CHECK(run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                             dir.file("other.json")))
            .exit_code == 1);
}

TEST_CASE("filecoin SnapDeals: a sample proves, and verifies outside the engine",
          "[tool][filecoin][plugin][heavy]") {
  const TempDir dir("zkpipe_filecoin_snapdeals");
  const std::string request = dir.file("u.json");
  REQUIRE(
      run_tool("proof-type filecoin_snapdeals sample --preset StackedDrg2KiBV1 --seed 2 --out " +
               request)
          .exit_code == 0);
  auto check = run_tool("proof-type filecoin_snapdeals check --input " + request + " --synthesize");
  INFO(check.output);
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.output, Contains("all 1705039 constraints hold"));

  write(
      dir.file("c.yaml"),
      fmt::format("version: 1\nplugin_dirs: [{}]\nmemory: {{backend: pageable}}\n"
                  "params: {{dir: {}, filecoin_dir: {}, missing: setup}}\n"
                  "compute: {{threads: 2}}\n",
                  ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_SHARED_PARAMS, ZKPIPE_TEST_FILECOIN_PARAMS));
  const std::string proof = dir.file("u.proof");
  auto prove =
      run_program(ZKPIPE_TEST_ZKPIPE,
                  fmt::format("prove --config {} --proof filecoin_snapdeals --input {} --out {}",
                              dir.file("c.yaml"), request, proof));
  INFO(prove.output);
  REQUIRE(prove.exit_code == 0);
  CHECK_THAT(prove.output, Contains("OK, verified"));

  nlohmann::json desc = nlohmann::json::parse(read_text(request));
  desc.erase("vanilla_proofs");
  write(dir.file("desc.json"), desc.dump());
  // The .vk beside Filecoin's file name in the Filecoin parameter directory, the development
  // label beside the .params.
  const std::string stem = zkpipe::filecoin::param_file_stem(
      *zkpipe::filecoin::circuit_param_file("filecoin-snapdeals-2KiB"));
  const std::string vk = std::string(ZKPIPE_TEST_FILECOIN_PARAMS) + "/" + stem + ".vk";
  CHECK(std::filesystem::exists(std::string(ZKPIPE_TEST_FILECOIN_PARAMS) + "/" + stem +
                                ".params.development"));
  auto ok = run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                                 dir.file("desc.json")));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  std::string d = desc["comm_d_new"];
  d[0] = d[0] == '0' ? '1' : '0';
  desc["comm_d_new"] = d;
  write(dir.file("other.json"), desc.dump());
  CHECK(run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                             dir.file("other.json")))
            .exit_code == 1);

  // An apex leaf changed (byte 40 of the proof: in apex_leafs[0]): refused before synthesis.
  nlohmann::json bad = nlohmann::json::parse(read_text(request));
  std::string p = bad["vanilla_proofs"][0];
  const size_t at = 2 * (32 + 8 + 1);
  p[at] = p[at] == '0' ? '1' : '0';
  bad["vanilla_proofs"][0] = p;
  write(dir.file("bad.json"), bad.dump());
  auto refused = run_tool("proof-type filecoin_snapdeals check --input " + dir.file("bad.json"));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("partition 0") && Contains("apex leaves"));
}

}  // namespace
