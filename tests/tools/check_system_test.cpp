// `zkpipe-tool check-system` and `bench-h2d`: exit codes, JSON shape and messages on this
// machine (with or without a GPU).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tools/run_tool.h"
#include "zkpipe/system.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;

namespace {
std::string config(const std::string& c) {
  return std::string(ZKPIPE_SOURCE_DIR).append("/configs/").append(c);
}
std::string data(const std::string& c) {
  return std::string(ZKPIPE_SOURCE_DIR).append("/tests/tools/data/").append(c);
}
}  // namespace

TEST_CASE("check-system: JSON names the machine's memory and CUDA state", "[tool]") {
  auto r = run_tool("check-system --json");
  INFO(r.output);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["system"]["ram_bytes"].get<uint64_t>() > 0);
  CHECK(j["system"]["cpus"].get<unsigned>() > 0);
  CHECK(j["cuda"].contains("status"));
  CHECK(j["warnings"].is_array());
  CHECK(j["warnings"].empty() == (r.exit_code == 0));
}

TEST_CASE("check-system: a cap beyond RAM is a warning and exit 1", "[tool]") {
  auto r = run_tool("check-system --config " + data("huge_cap.yaml"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("WARNING"));
  CHECK_THAT(r.output, Contains("huge_cap.yaml"));
}

TEST_CASE("check-system: a missing or bad config is exit 2 with its error", "[tool]") {
  auto missing = run_tool("check-system --config /nonexistent/zkpipe.yaml");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("/nonexistent/zkpipe.yaml"));
  auto bad = run_tool("check-system --config " + data("unknown_key.yaml"));
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("unknown_key.yaml:4:3:"));
}

TEST_CASE("check-system: the shipped cpu config gives no warning about itself", "[tool]") {
  auto r = run_tool("check-system --json --config " + config("cpu.yaml"));
  INFO(r.output);
  auto j = nlohmann::json::parse(r.output);
  for (const auto& w : j["warnings"]) CHECK_THAT(w.get<std::string>(), !Contains("cpu.yaml"));
}

#if defined(ZKPIPE_TEST_BENCH_H2D)  // zkpipe-bench-h2d is built with the CUDA toolchain only
TEST_CASE("bench-h2d: without a usable GPU it says why and exits 1", "[tool]") {
  const zkpipe::CudaInfo cuda = zkpipe::read_cuda_info();
  if (cuda.status.ok() && !cuda.devices.empty())
    return;  // measured by the [cuda] GPU check instead
  auto r = zkpipe::test::run_program(ZKPIPE_TEST_BENCH_H2D, "--sizes 64MiB --reps 1");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("bench-h2d: no usable GPU: "));
}

TEST_CASE("bench-h2d: bad arguments exit 2 naming the value", "[tool]") {
  auto r = zkpipe::test::run_program(ZKPIPE_TEST_BENCH_H2D, "--sizes 12XB");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("unknown unit 'XB' in '12XB'"));
}
#endif

TEST_CASE("zkpipe-tool links no CUDA and no compute code", "[tool]") {
  // Compute backends are plugins: the program must run where no CUDA runtime exists.
  auto r = zkpipe::test::run_program("ldd", ZKPIPE_TEST_TOOL);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, !Contains("libcuda"));
  CHECK_THAT(r.output, !Contains("libcudart"));
  auto z = zkpipe::test::run_program("ldd", ZKPIPE_TEST_ZKPIPE);
  INFO(z.output);
  REQUIRE(z.exit_code == 0);
  CHECK_THAT(z.output, !Contains("libcuda"));
  CHECK_THAT(z.output, !Contains("libcudart"));
  auto nm = zkpipe::test::run_program(
      "nm -C", std::string(ZKPIPE_TEST_TOOL) + " | grep -c -E 'cudaMalloc|DeviceProver' || true");
  INFO(nm.output);
  CHECK(nm.output.rfind("0", 0) == 0);
}
