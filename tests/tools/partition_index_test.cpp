// tests/tools/partition_index_test.cpp: a request may hold any subset of a sector's partitions;
// outputs and logs name a partition by its index in the sector (zkp_proof_type.partition_index,
// ABI 1.1), not by its position in the request: the porep plugin through the C ABI, and
// `zkpipe prove` with mimc_jobs ("first_partition") for files, log lines, trace and status.
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "tools/run_tool.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/abi/proof_type.h"

namespace {

using zkpipe::test::run_program;
using zkpipe::test::run_tool;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;

// The sector index of each partition of `request`, as the engine reads them through the ABI.
std::vector<uint32_t> indices_of(const std::string& type, const std::string& request) {
  zkpipe::PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  auto p = registry.load(type, ZKP_KIND_PROOF_TYPE);
  REQUIRE(p.ok());
  const zkp_proof_type* t = (*p)->table<zkp_proof_type>();
  const auto bytes = zkpipe::testing::read_bytes(request);
  char msg[ZKP_ERROR_CAPACITY] = "";
  zkp_job* job = nullptr;
  REQUIRE(t->parse(bytes.data(), bytes.size(), "request", &job, {msg, sizeof msg}) == ZKP_OK);
  zkp_job_info info{};
  info.struct_size = sizeof info;
  REQUIRE(t->info(job, &info, {msg, sizeof msg}) == ZKP_OK);
  auto indices = zkpipe::partition_indices(t, job, info.partitions, "request");
  uint32_t out = 0;
  CHECK(t->partition_index(job, info.partitions, &out, {msg, sizeof msg}) ==
        ZKP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(msg) == "partition " + std::to_string(info.partitions) +
                                " is out of range: the request has " +
                                std::to_string(info.partitions));
  t->destroy_job(job);
  REQUIRE(indices.ok());
  return *indices;
}

}  // namespace

TEST_CASE("porep plugin: a request's partitions report their index in the sector",
          "[tool][porep][plugin]") {
  const TempDir dir("zkpipe_partition_index_porep");
  REQUIRE(
      run_tool("proof-type porep seal --shape tiny --seed 1 --out " + dir.file("s")).exit_code ==
      0);
  const std::string vanilla =
      "proof-type porep vanilla --sector " + dir.file("s") + " --challenge-seed c ";
  REQUIRE(run_tool(vanilla + "--partition 1 --out " + dir.file("p1.bin")).exit_code == 0);
  REQUIRE(run_tool(vanilla + "--partition 1 --partition 0 --json --out " + dir.file("p10.json"))
              .exit_code == 0);
  CHECK(indices_of("porep", dir.file("p1.bin")) == std::vector<uint32_t>{1});
  CHECK(indices_of("porep", dir.file("p10.json")) == std::vector<uint32_t>{1, 0});
}

TEST_CASE("zkpipe prove: a request holding only partition 1 names it 1 in every output",
          "[tool][pipeline]") {
  TempDir dir("zkpipe_partition_index_cli");
  std::ofstream(dir.path / "c.yaml") << fmt::format(
      "version: 1\nplugin_dirs: [{}, {}]\nmemory: {{backend: pageable}}\n"
      "params: {{dir: params, missing: setup}}\ncompute: {{threads: 1}}\n",
      ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR);
  std::ofstream(dir.path / "r.json") << R"({"rounds": 8, "partitions": 1, "seed": 3,
                                            "first_partition": 1})";
  const std::string out = dir.file("proof.bin"), snarkjs = dir.file("snarkjs");
  const auto r = run_program(
      ZKPIPE_TEST_ZKPIPE,
      fmt::format("prove --config {} --proof mimc_jobs --input {} --out {} --snarkjs {} "
                  "--trace {} --status {}",
                  dir.file("c.yaml"), dir.file("r.json"), out, snarkjs, dir.file("t.json"),
                  dir.file("s.json")));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("GPU_TIMING job=1 partition=1 ") != std::string::npos);
  CHECK(r.output.find("FIN_TIMING job=1 partition=1 ") != std::string::npos);
  CHECK(r.output.find("partition=0") == std::string::npos);
  CHECK(r.output.find("1 partition(s) of mimc-test-r8 (") != std::string::npos);
  CHECK(r.output.find("sector index 1\n") != std::string::npos);
  CHECK(r.output.find("proof: " + out +
                      " (1 partition(s) x 192 bytes, verified; sector partitions 1: " + out +
                      ".json)") != std::string::npos);
  CHECK(r.output.find("proof_K.json, public_K.json for K = 1 (the sector index)") !=
        std::string::npos);
  CHECK(read_text(out).size() == 192);
  CHECK(nlohmann::json::parse(read_text(out + ".json")) ==
        nlohmann::json({{"proof_type", "mimc_jobs"},
                        {"circuit_id", "mimc-test-r8"},
                        {"proof_bytes", 192},
                        {"partitions", {1}}}));
  CHECK(std::filesystem::exists(snarkjs + "/proof_1.json"));
  CHECK(std::filesystem::exists(snarkjs + "/public_1.json"));
  CHECK_FALSE(std::filesystem::exists(snarkjs + "/proof_0.json"));
  CHECK_FALSE(std::filesystem::exists(snarkjs + "/public_0.json"));
  const auto status = nlohmann::json::parse(read_text(dir.file("s.json")));
  CHECK(status["jobs"][0]["partitions"] ==
        nlohmann::json::parse(R"([{"partition": 1, "state": "proved", "attempts": 1}])"));
  const auto trace = nlohmann::json::parse(read_text(dir.file("t.json")));
  size_t named = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (!e.contains("args") || !e["args"].contains("partition")) continue;
    CHECK(e["args"]["partition"] == 1);
    ++named;
  }
  CHECK(named >= 3);  // synthesis, prove_start (worker and device), prove_finish
}
