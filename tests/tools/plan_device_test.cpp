// tests/tools/plan_device_test.cpp: `zkpipe plan` for the machine you are buying (issue 33 #10):
// a cuda config planned on this machine, which has no GPU (nor CUDA driver), from a device
// described by name or memory; Filecoin presets planned from the preset alone (ABI 1.7
// preset_circuit, no sample request), up to a 32GiB PoRep ([heavy]: counting 130M constraints);
// a device too small said as a warning with the key to change; bad descriptions refused.
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "feature_required.h"
#include "temp_dir.h"
#include "tools/run_tool.h"

namespace {

using Catch::Matchers::Contains;
using zkpipe::test::run_program;
using zkpipe::testing::TempDir;

// A cuda config; `memory`: pageable, or pinned_pool (a plugin of the CUDA build only).
std::string cuda_config(const TempDir& dir, const std::string& memory = "pageable") {
  const std::string path = dir.file("cuda-" + memory + ".yaml");
  std::ofstream(path) << fmt::format(
      "version: 1\nplugin_dirs: [{}]\nmemory: {{backend: {}}}\n"
      "params: {{dir: {}, missing: setup}}\n"
      "compute: {{backend: cuda, workers_per_device: 2}}\n"
      "pipeline: {{budget: 200GiB}}\n",
      ZKPIPE_TEST_PLUGIN_DIR, memory, dir.file("params"));
  return path;
}

nlohmann::json plan_json(const std::string& args) {
  const auto r = run_program(ZKPIPE_TEST_ZKPIPE, args + " --json", /*stderr_too=*/false);
  INFO(args << "\n" << r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.output);
}

TEST_CASE("zkpipe plan: a GPU described by name, planned without it, from the preset",
          "[tools][plan]") {
  const TempDir dir("zkpipe_plan_device");
  const std::string config = cuda_config(dir);
  const nlohmann::json j =
      plan_json(fmt::format("plan --config {} --proof filecoin_snapdeals --preset "
                            "StackedDrg2KiBV1-Poseidon --device h200",
                            config));
  CHECK(j.at("planned_from") == "preset");
  CHECK(j.at("circuit") == "filecoin-snapdeals-poseidon-2KiB");
  const nlohmann::json& d = j.at("device");
  CHECK(d.at("described_as") == "h200");
  CHECK(d.at("memory_bytes") == uint64_t{143771} << 20);
  CHECK(d.at("lanes") == 2);
  CHECK(d.at("fits") == true);
  CHECK(d.at("bases_resident") == true);
  CHECK(j.at("peak_device_bytes") == d.at("peak_bytes"));
  CHECK(d.at("peak_bytes").get<uint64_t>() > d.at("bases_bytes").get<uint64_t>());
  CHECK(j.at("peak_pinned_bytes") == 0);
  CHECK(j.at("breakdown").at("R1CS").get<uint64_t>() > 0);
  CHECK(j.at("exact") == false);  // no params yet: an upper bound

  // A pinned_pool config (where no CUDA driver lets it run, as here): its buffers are still
  // planned as page-locked.
  if (zkpipe::testing::feature_present(zkpipe::testing::kCudaBuilt, "CUDA",
                                       "the CUDA build (the pinned_pool plugin)")) {
    const nlohmann::json pinned =
        plan_json(fmt::format("plan --config {} --proof filecoin_snapdeals --preset "
                              "StackedDrg2KiBV1-Poseidon --device h200",
                              cuda_config(dir, "pinned_pool")));
    CHECK(pinned.at("peak_pinned_bytes").get<uint64_t>() > 0);
    CHECK(pinned.at("device").at("fits") == true);
  }

  // A device too small for even the reserve: planned, with the warning and the key
  const nlohmann::json tiny =
      plan_json(fmt::format("plan --config {} --proof filecoin_snapdeals --preset "
                            "StackedDrg2KiBV1-Poseidon --device-memory 1GiB --gpus 2",
                            config));
  CHECK(tiny.at("device").at("fits") == false);
  bool warned = false;
  for (const auto& w : tiny.at("warnings")) {
    warned = warned || w.get<std::string>().find("does not fit") != std::string::npos;
  }
  CHECK(warned);
}

TEST_CASE("zkpipe plan: bad device descriptions are refused", "[tools][plan]") {
  const TempDir dir("zkpipe_plan_device_bad");
  const std::string config = cuda_config(dir);
  const std::string cpu = dir.file("cpu.yaml");
  std::ofstream(cpu) << fmt::format(
      "version: 1\nplugin_dirs: [{}]\nmemory: {{backend: pageable}}\n"
      "params: {{dir: {}, missing: setup}}\n",
      ZKPIPE_TEST_PLUGIN_DIR, dir.file("params"));
  const std::string preset = " --proof filecoin_snapdeals --preset StackedDrg2KiBV1-Poseidon";
  const std::pair<std::string, std::string> cases[] = {
      {"plan --config " + config + preset + " --device B200X", "known: H200"},
      {"plan --config " + config + preset + " --device-memory lots", "--device-memory lots"},
      {"plan --config " + config + preset + " --device H100 --device-memory 80GiB", "not both"},
      {"plan --config " + cpu + preset + " --device H100", "compute.backend cpu"},
  };
  for (const auto& [args, want] : cases) {
    const auto r = run_program(ZKPIPE_TEST_ZKPIPE, args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains(want));
  }
}

TEST_CASE("zkpipe plan: a 32GiB PoRep on an H200, from the preset alone", "[tools][plan][heavy]") {
  const TempDir dir("zkpipe_plan_32gib");
  const std::string config = cuda_config(dir);
  const nlohmann::json j =
      plan_json(fmt::format("plan --config {} --proof filecoin_porep --preset StackedDrg32GiBV1_1 "
                            "--device H200 --gpus 1",
                            config));
  CHECK(j.at("planned_from") == "preset");
  CHECK(j.at("circuit") == "filecoin-porep-32GiB");
  CHECK(j.at("partitions_per_job") == 10);
  // a/b/c of a 2^27 domain: 12 GiB a partition
  CHECK(j.at("breakdown").size() > 0);
  CHECK(j.at("breakdown").at("R1CS").get<uint64_t>() > (uint64_t{20} << 30));
  const nlohmann::json& d = j.at("device");
  CHECK(d.at("fits") == true);
  CHECK(d.at("working_set_bytes_per_lane").get<uint64_t>() > (uint64_t{12} << 30));
}

}  // namespace
