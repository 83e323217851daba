// tests/tools/zkpipe_presets_test.cpp: the `zkpipe` binary's sample requests, made by the proof
// type's plugin (no proof type is linked into zkpipe): `bench --preset` with the test-only
// mimc_jobs type (the request cached as <type>-<preset>-<seed>.request), `prove --preset`, and
// the refusals: an unknown preset (listing the presets), a proof type without presets (mimc_bare:
// mimc_jobs built without them), --input with --preset.
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"
#include "tools/run_tool.h"

namespace {

using zkpipe::test::run_program;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;

std::string config_in(const TempDir& dir) {
  const auto path = dir.path / "c.yaml";
  std::ofstream(path) << fmt::format(
      "version: 1\nplugin_dirs: [{}, {}]\nmemory: {{backend: pageable}}\n"
      "params: {{dir: params, missing: setup}}\ncompute: {{threads: 1}}\n",
      ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR);
  return path.string();
}

TEST_CASE("zkpipe bench: --preset proves the plugin's sample request, cached by type, preset, seed",
          "[tool][pipeline][presets]") {
  TempDir dir("zkpipe_presets");
  const std::string config = config_in(dir);
  const std::string args = fmt::format(
      "bench --config {} --proof mimc_jobs --preset small --seed 2 --jobs 2 --out-dir "
      "{}/out --cache-dir {}/cache",
      config, dir.path.string(), dir.path.string());
  const auto r = run_program(ZKPIPE_TEST_ZKPIPE, args);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto cached = dir.path / "cache" / "mimc_jobs-small-2.request";
  REQUIRE(std::filesystem::exists(cached));
  CHECK(read_text(cached.string()) == R"({"partitions":2,"rounds":8,"seed":2})");
  CHECK(std::filesystem::exists(dir.path / "out" / "bench.json"));
  // A second run proves the cached request.
  std::ofstream(cached) << R"({"partitions":1,"rounds":9,"seed":2})";
  const auto again = run_program(ZKPIPE_TEST_ZKPIPE, args);
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK(std::filesystem::exists(dir.path / "params" / "mimc-test-r9.params"));
}

TEST_CASE("zkpipe bench: an unknown preset and a proof type without presets are refused",
          "[tool][presets]") {
  TempDir dir("zkpipe_presets");
  const std::string config = config_in(dir);
  auto bench = [&](const std::string& proof, const std::string& preset) {
    return run_program(ZKPIPE_TEST_ZKPIPE,
                       fmt::format("bench --config {} --proof {} --preset {} --out-dir {}/out",
                                   config, proof, preset, dir.path.string()));
  };
  const auto unknown = bench("mimc_jobs", "huge");
  INFO(unknown.output);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("unknown preset 'huge' (presets: small, medium)") != std::string::npos);
  const auto bare = bench("mimc_bare", "small");
  INFO(bare.output);
  CHECK(bare.exit_code == 2);
  CHECK(bare.output.find("proof type 'mimc_bare'") != std::string::npos);
  CHECK(bare.output.find("has no presets (its plugin declares none)") != std::string::npos);
  const auto bad_name = bench("mimc_jobs", "../x");
  CHECK(bad_name.exit_code == 2);
  CHECK(bad_name.output.find("is not a preset name") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "params"));  // nothing was proved
}

TEST_CASE("zkpipe prove: --preset proves the plugin's sample request, and --input excludes it",
          "[tool][pipeline][presets]") {
  TempDir dir("zkpipe_presets");
  const std::string config = config_in(dir);
  const std::string out = (dir.path / "p.bin").string();
  const auto r = run_program(
      ZKPIPE_TEST_ZKPIPE,
      fmt::format("prove --config {} --proof mimc_jobs --preset small --seed 5 --out {}", config,
                  out));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(out).size() == 2 * 192);
  const auto both = run_program(
      ZKPIPE_TEST_ZKPIPE,
      fmt::format("prove --config {} --proof mimc_jobs --preset small --input {}", config, out));
  CHECK(both.exit_code == 2);
  CHECK(both.output.find("--input FILE or --preset P (one of them)") != std::string::npos);
}

}  // namespace
