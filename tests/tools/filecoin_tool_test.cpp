// `zkpipe-tool filecoin`: inputs prints one JSON array of decimal strings per partition (alone on
// stdout); verify exits 0 for polka-storage's real 2KiB PoRep proof, 1 with a field changed, 2 for
// a bad description, key or proof (naming the file and field); key convert writes a bellperson
// .vk that verifies the same; params check reports a digest
// mismatch (exit 1), an empty directory (exit 0) and a missing one (exit 2).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(ZKPIPE_SOURCE_DIR) + "/tests/filecoin/data/";

struct Dir {
  fs::path path;
  Dir() {
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("zkpipe_filecoin_tool_" + std::to_string(getpid()) + "_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

nlohmann::json polka_desc() {
  std::ifstream in(kData + "polka_porep_2kib.json");
  const nlohmann::json d = nlohmann::json::parse(in);
  const nlohmann::json& i = d.at("inputs");
  return {{"porep_config",
           {{"sector_size", 2048},
            {"partitions", 1},
            {"porep_id", d.at("porep_config").at("porep_id_hex")},
            {"api_version", "V1_2_0"},
            {"api_features", nlohmann::json::array()}}},
          {"comm_r", i.at("comm_r_hex")},
          {"comm_d", i.at("comm_d_hex")},
          {"prover_id", i.at("prover_id_hex")},
          {"sector_id", i.at("sector_number")},
          {"ticket", i.at("ticket_hex")},
          {"seed", i.at("seed_hex")}};
}

}  // namespace

TEST_CASE("filecoin tool: inputs and verify of polka-storage's real 2KiB PoRep proof",
          "[tool][filecoin]") {
  Dir dir;
  const std::string desc = dir.write("desc.json", polka_desc().dump());
  const std::string vk = kData + "polka_porep_2kib.vk.bin",
                    proof = kData + "polka_porep_2kib.proof.bin";

  auto inputs = run_tool("filecoin inputs --json " + desc + " 2>/dev/null | cat");
  REQUIRE(inputs.exit_code == 0);
  const nlohmann::json parsed = nlohmann::json::parse(inputs.output);  // stdout alone
  REQUIRE(parsed.size() == 1);
  REQUIRE(parsed[0].size() == 39);
  for (const nlohmann::json& x : parsed[0]) CHECK(x.is_string());

  auto ok = run_tool("filecoin verify --vk " + vk + " --proof " + proof + " --json " + desc);
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Contains("OK"));

  nlohmann::json changed = polka_desc();
  changed["sector_id"] = 78;
  auto invalid = run_tool("filecoin verify --vk " + vk + " --proof " + proof + " --json " +
                          dir.write("changed.json", changed.dump()));
  INFO(invalid.output);
  CHECK(invalid.exit_code == 1);
  CHECK_THAT(invalid.output, Contains("INVALID"));

  nlohmann::json bad = polka_desc();
  bad["ticket"] = "0xzz";
  auto refused = run_tool("filecoin verify --vk " + vk + " --proof " + proof + " --json " +
                          dir.write("bad.json", bad.dump()));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("bad.json") && Contains("ticket"));

  bad = polka_desc();
  bad["porep_config"]["api_version"] = "V9";
  auto version = run_tool("filecoin inputs --json " + dir.write("v.json", bad.dump()));
  CHECK(version.exit_code == 2);
  CHECK_THAT(version.output, Contains("api_version"));

  auto short_proof = run_tool("filecoin verify --vk " + vk + " --proof " +
                              dir.write("short.bin", "0123") + " --json " + desc);
  CHECK(short_proof.exit_code == 2);
  CHECK_THAT(short_proof.output, Contains("short.bin") && Contains("4 bytes"));

  // The same key as a bellperson .vk verifies the same proof.
  const std::string vk_file = (dir.path / "porep.vk").string();
  auto convert = run_tool("filecoin key convert " + vk + " " + vk_file);
  INFO(convert.output);
  REQUIRE(convert.exit_code == 0);
  CHECK(fs::file_size(vk_file) == 868 + 96 * 40);
  CHECK(run_tool("filecoin verify --vk " + vk_file + " --proof " + proof + " --json " + desc)
            .exit_code == 0);

  auto bad_key = run_tool("filecoin verify --vk " + dir.write("k.bin", "\x80xyz") + " --proof " +
                          proof + " --json " + desc);
  CHECK(bad_key.exit_code == 2);
  CHECK_THAT(bad_key.output, Contains("k.bin"));
}

TEST_CASE("filecoin tool: params check digests a parameter directory", "[tool][filecoin]") {
  Dir dir;
  const std::string name =
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
      "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk";
  auto empty = run_tool("filecoin params check " + dir.path.string());
  INFO(empty.output);
  CHECK(empty.exit_code == 0);
  CHECK_THAT(empty.output, Contains("0 ok, 0 mismatch, 44 of parameters.json's 44 not present"));

  dir.write(name, "not the key");
  dir.write("v28-something-else.params", "x");
  auto json = run_tool("filecoin params check --json " + dir.path.string() + " 2>/dev/null | cat");
  const nlohmann::json report = nlohmann::json::parse(json.output);
  CHECK(report.at("mismatch") == 1);
  CHECK(report.at("unknown") == 1);
  CHECK(report.at("missing") == 43);
  auto mismatch = run_tool("filecoin params check " + dir.path.string());
  CHECK(mismatch.exit_code == 1);
  CHECK_THAT(mismatch.output,
             Contains("mismatch " + name) &&
                 Contains("parameters.json says dc1ade9929ade1708238f155343044ac"));

  auto env = zkpipe::test::run_program(
      "FIL_PROOFS_PARAMETER_CACHE=" + dir.path.string() + " " + ZKPIPE_TEST_TOOL,
      "filecoin params check");
  CHECK(env.exit_code == 1);
  CHECK_THAT(env.output, Contains(dir.path.string()));

  auto missing = run_tool("filecoin params check " + (dir.path / "nope").string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("not a readable directory"));
}
