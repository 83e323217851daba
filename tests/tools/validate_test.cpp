// `zkpipe-tool validate`: exit codes and the table/JSON it prints for good and broken plugin
// sets and for the shipped configs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;

namespace {
std::string fixture(const std::string& c) {
  return std::string(ZKPIPE_TEST_FIXTURE_DIR) + "/" + c;
}
std::string config(const std::string& c) {
  return std::string(ZKPIPE_SOURCE_DIR) + "/configs/" + c;
}
}  // namespace

TEST_CASE("validate: the built plugin directory passes", "[tool]") {
  auto r =
      run_tool(std::string("validate --allow-unavailable --plugin-dir ") + ZKPIPE_TEST_PLUGIN_DIR);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("pageable"));
  CHECK_THAT(r.output, Contains("PASS"));
  CHECK_THAT(r.output, !Contains("FAIL"));
}

TEST_CASE("validate: every broken fixture fails with its own reason", "[tool]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad_abi", "incompatible plugin ABI major version"},
      {"small_struct", "descriptor struct_size 56 is smaller than"},
      {"no_entry", "missing entry symbol 'zkp_plugin'"},
      {"mismatch", "manifest version '0.1.0' != descriptor version '0.2.0'"},
      {"failing_init", "init failed: fixture init fails on purpose"},
      {"not_a_library", "not a shared library"},
      {"truncated", "truncated or corrupt shared library"},
      {"missing_manifest", "missing manifest"},
  };
  for (const auto& [dir, reason] : cases) {
    auto r = run_tool("validate --plugin-dir " + fixture(dir));
    INFO(dir << ":\n" << r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("FAIL"));
    CHECK_THAT(r.output, Contains(reason));
  }
}

TEST_CASE("validate: --json reports every row with a status", "[tool]") {
  auto r = run_tool("validate --json --plugin-dir " + fixture("good") + " --plugin-dir " +
                    fixture("bad_abi"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["ok"] == false);
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["status"] == "PASS");
  CHECK(j["rows"][0]["plugin"] == "fixture_good");
  CHECK(j["rows"][1]["status"] == "FAIL");
}

TEST_CASE("validate: cpu and pageable configs pass", "[tool]") {
  auto r = run_tool("validate " + config("cpu.yaml") + " " + config("pageable.yaml"));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("validate: all checks passed"));
}

TEST_CASE("validate: a bad config fails with file:line:column", "[tool]") {
  auto r =
      run_tool("validate " + std::string(ZKPIPE_SOURCE_DIR) + "/tests/tools/data/unknown_key.yaml");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("unknown_key.yaml:4:3:"));
}

TEST_CASE("validate: usage errors exit 2", "[tool]") {
  CHECK(run_tool("validate --no-such-flag").exit_code == 2);
  CHECK(run_tool("").exit_code == 2);
}

#include "zkpipe/system.h"

TEST_CASE("validate: GPU configs are unavailable without a CUDA driver, and fallback is logged",
          "[tool]") {
  const zkpipe::CudaInfo cuda = zkpipe::read_cuda_info();
  if (!std::filesystem::exists(std::string(ZKPIPE_TEST_PLUGIN_DIR) + "/pinned_pool.so")) {
    // A build without the CUDA toolchain has no CUDA plugins at all.
    auto r = run_tool("validate " + config("pinned-pool.yaml"));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("plugin 'pinned_pool' not found"));
    return;
  }
  if (cuda.status.ok() && !cuda.devices.empty()) {
    auto r = run_tool("validate " + config("pinned-pool.yaml") + " " + config("zero-copy.yaml"));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    return;
  }
  auto r = run_tool("validate " + config("pinned-pool.yaml") + " " + config("zero-copy.yaml"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("UNAVAILABLE"));
  CHECK_THAT(r.output, Contains("unavailable: "));
  // The memory plugins ask their own CUDA runtime, which names its error code.
  CHECK_THAT(r.output, Contains("(cudaError"));
  auto allowed = run_tool("validate --allow-unavailable " + config("pinned-pool.yaml") + " " +
                          config("zero-copy.yaml"));
  CHECK(allowed.exit_code == 0);
  // The CUDA compute plugin of a cuda-*.yaml config: its plugin row and its (compute) row, both
  // naming the driver's state as read_cuda_info reports it.
  auto gpu = run_tool("validate " + config("cuda-pageable.yaml"));
  INFO(gpu.output);
  CHECK(gpu.exit_code == 1);
  CHECK_THAT(gpu.output, Contains("(compute)"));
  CHECK_THAT(gpu.output, Contains("cuda           compute"));
  CHECK_THAT(gpu.output, Contains("compute.backend cuda: the plugin cannot run here: cannot list "
                                  "CUDA devices: " +
                                  cuda.status.message()));
  auto fb = run_tool("validate " + config("pinned-pool-fallback.yaml"));
  INFO(fb.output);
  CHECK_THAT(fb.output, Contains("using 'pageable' because memory.fallback"));
  CHECK_THAT(fb.output, Contains("memory: pageable (memory.fallback; logged)"));
}
