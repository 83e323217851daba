// `zkpipe-tool proof-type porep`, `proof-type snapdeals` (the plugins' commands) and `prove-once`
// on bad input: every refusal is exit 2 with a message naming the file and what is wrong, and
// prove-once refuses a bad request before any proving work (no params are made). The proving paths
// run in tests/interop/run.sh.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "temp_dir.h"
#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;
using zkpipe::testing::TempDir;

TEST_CASE("porep tool: shapes lists every preset with its constraint count", "[tool][porep]") {
  auto run = run_tool("proof-type porep shapes --json");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  auto j = nlohmann::json::parse(run.output);
  REQUIRE(j.size() == 4);
  for (const auto& row : j) CHECK(row.at("constraints_per_partition").get<uint64_t>() > 100000);
  CHECK(j[0].at("shape") == "tiny");
  auto snap = run_tool("proof-type snapdeals shapes");
  CHECK(snap.exit_code == 0);
  CHECK_THAT(snap.output, Contains("snapdeals-v1-n8-h2-c1"));
}

TEST_CASE("porep tool: seal, vanilla and check, and the refusals", "[tool][porep]") {
  const TempDir dir("zkpipe_porep_tool_test");
  const std::string sector = dir.file("s.sector"), vanilla = dir.file("v.bin");
  REQUIRE(run_tool("proof-type porep seal --shape tiny --seed 1 --out " + sector).exit_code == 0);
  auto made = run_tool("proof-type porep vanilla --sector " + sector +
                       " --challenge-seed c --out " + vanilla);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  CHECK(run_tool("proof-type porep check " + vanilla).exit_code == 0);
  REQUIRE(run_tool("proof-type porep vanilla --json --sector " + sector +
                   " --challenge-seed c --out " + dir.file("v.json"))
              .exit_code == 0);
  CHECK_THAT(run_tool("proof-type porep check " + dir.file("v.json")).output, Contains("OK"));

  auto bad_shape = run_tool("proof-type porep seal --shape huge --seed 1 --out " + sector);
  CHECK(bad_shape.exit_code == 2);
  CHECK_THAT(bad_shape.output, Contains("unknown sector shape 'huge'"));
  auto bad_partition = run_tool("proof-type porep vanilla --sector " + sector +
                                " --challenge-seed c --partition 7 --out " + vanilla + ".x");
  CHECK(bad_partition.exit_code == 2);
  CHECK_THAT(bad_partition.output, Contains("--partition 7"));

  auto bytes = zkpipe::testing::read_bytes(vanilla);
  zkpipe::testing::write_bytes(dir.file("short.bin"),
                               std::vector<uint8_t>(bytes.begin(), bytes.begin() + 100));
  auto truncated = run_tool("proof-type porep check " + dir.file("short.bin"));
  CHECK(truncated.exit_code == 2);
  CHECK_THAT(truncated.output, Contains("short.bin: byte offset"));
  auto sector_bytes = zkpipe::testing::read_bytes(sector);
  sector_bytes[sector_bytes.size() - 5] ^= 1;
  zkpipe::testing::write_bytes(dir.file("bad.sector"), sector_bytes);
  auto bad_cache = run_tool("proof-type porep vanilla --sector " + dir.file("bad.sector") +
                            " --challenge-seed c --out " + vanilla + ".y");
  CHECK(bad_cache.exit_code == 2);
  CHECK_THAT(bad_cache.output, Contains("bad.sector") && Contains("labels"));
}

TEST_CASE("snapdeals tool: update needs an empty sector", "[tool][snapdeals]") {
  const TempDir dir("zkpipe_snapdeals_tool_test");
  REQUIRE(
      run_tool("proof-type porep seal --shape tiny --seed 1 --out " + dir.file("full")).exit_code ==
      0);
  auto full = run_tool("proof-type snapdeals update --sector " + dir.file("full") +
                       " --data-seed d --out " + dir.file("v.bin"));
  CHECK(full.exit_code == 2);
  CHECK_THAT(full.output, Contains("not empty") && Contains("porep seal --empty"));
  REQUIRE(run_tool("proof-type porep seal --shape tiny --empty --seed 1 --out " + dir.file("cc"))
              .exit_code == 0);
  auto ok = run_tool("proof-type snapdeals update --sector " + dir.file("cc") +
                     " --data-seed d --out " + dir.file("v.bin"));
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK(run_tool("proof-type snapdeals check " + dir.file("v.bin")).exit_code == 0);
}

TEST_CASE("prove-once: a bad request is refused before any proving work", "[tool][porep]") {
  const TempDir dir("zkpipe_prove_once_test");
  REQUIRE(
      run_tool("proof-type porep seal --shape tiny --seed 1 --out " + dir.file("s")).exit_code ==
      0);
  REQUIRE(run_tool("proof-type porep vanilla --sector " + dir.file("s") +
                   " --challenge-seed c --out " + dir.file("v.bin"))
              .exit_code == 0);
  auto bytes = zkpipe::testing::read_bytes(dir.file("v.bin"));
  bytes[bytes.size() - 40] ^= 0x5a;  // inside partition 1's last tree C path
  zkpipe::testing::write_bytes(dir.file("tampered.bin"), bytes);
  const std::string plugins = std::string(" --plugin-dir ") + ZKPIPE_TEST_PLUGIN_DIR;
  auto run = run_tool("prove-once --type porep --request " + dir.file("tampered.bin") +
                      " --params-dir " + dir.file("params") + plugins);
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Contains("tampered.bin: partition 1, challenge 0"));
  CHECK_FALSE(std::filesystem::exists(dir.file("params")));
  // A snapdeals request given to the porep plugin, and an unknown proof type.
  auto wrong = run_tool("prove-once --type snapdeals --request " + dir.file("v.bin") +
                        " --params-dir " + dir.file("params") + plugins);
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.output, Contains("proof type 1 is not snapdeals"));
  auto unknown = run_tool("prove-once --type nope --request " + dir.file("v.bin") + plugins);
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Contains("nope"));
}

TEST_CASE("porep tool: a preset's fields can be overridden, and bad overrides are refused",
          "[tool][porep]") {
  const TempDir dir("zkpipe_porep_custom_test");
  auto seal = run_tool(
      "proof-type porep seal --shape tiny --layers 4 --challenges 2 --expansion-degree 0 "
      "--seed 1 --out " +
      dir.file("s"));
  INFO(seal.output);
  REQUIRE(seal.exit_code == 0);
  CHECK_THAT(seal.output, Contains("custom = porep-v1-n8-l4-b2-e0-c2"));
  REQUIRE(run_tool("proof-type porep vanilla --sector " + dir.file("s") +
                   " --challenge-seed c --out " + dir.file("v.bin"))
              .exit_code == 0);
  auto check = run_tool("proof-type porep check " + dir.file("v.bin"));
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.output, Contains("porep-v1-n8-l4-b2-e0-c2"));
  auto bad =
      run_tool("proof-type porep seal --shape tiny --layers 3 --seed 1 --out " + dir.file("x"));
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("layers must be 2, 4, 8 or 11"));
}
