// `zkpipe-tool groth16`: demo writes snarkjs JSON, iden3 and binary files that agree with each
// other; verify exits 0 for a valid proof, 1 for a changed public input, 2 for bad input (naming
// the file and key).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tools/run_tool.h"
#include "zkpipe/groth16/snarkjs.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;
using namespace zkpipe::groth16;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spit(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

TEST_CASE("groth16 tool: demo writes agreeing files and verify accepts, rejects and refuses",
          "[tool][groth16]") {
  std::random_device rd;
  const fs::path dir =
      fs::temp_directory_path() /
      ("zkpipe_groth16_tool_" + std::to_string(getpid()) + "_" + std::to_string(rd()));
  auto demo =
      run_tool("groth16 demo --circuit mimc --size 5 --seed 3 --threads 2 --out " + dir.string());
  INFO(demo.output);
  REQUIRE(demo.exit_code == 0);
  CHECK_THAT(demo.output, Contains("NOT a trusted-setup ceremony"));
  CHECK_THAT(demo.output, Contains("verify") && Contains("OK"));

  // The binary proof and key agree with the JSON ones.
  const std::string proof_bin = slurp(dir / "proof.bin");
  REQUIRE(proof_bin.size() == kProofBytes);
  auto proof = decode_proof(reinterpret_cast<const uint8_t*>(proof_bin.data()), proof_bin.size());
  REQUIRE(proof.ok());
  CHECK(*proof == *import_snarkjs_proof(slurp(dir / "proof.json"), "proof.json"));
  const std::string vk_bin = slurp(dir / "vk.bin");
  auto vk = decode_verifying_key(reinterpret_cast<const uint8_t*>(vk_bin.data()), vk_bin.size());
  REQUIRE(vk.ok());
  auto vk_json = import_snarkjs_vk(slurp(dir / "verification_key.json"), "vk.json");
  REQUIRE(vk_json.ok());
  CHECK(vk_json->alpha_g1 == vk->alpha_g1);
  CHECK(vk_json->delta_g2 == vk->delta_g2);
  CHECK(vk_json->ic == vk->ic);
  // The witness file holds the public inputs of public.json after the one.
  auto wtns = read_iden3_wtns((dir / "circuit.wtns").string());
  auto pub = import_snarkjs_public(slurp(dir / "public.json"), "public.json");
  REQUIRE(wtns.ok());
  REQUIRE(pub.ok());
  REQUIRE(pub->size() == 3);
  CHECK(std::vector<Fr>(wtns->begin() + 1, wtns->begin() + 4) == *pub);
  CHECK(read_iden3_r1cs((dir / "circuit.r1cs").string()).ok());

  const std::string files = " --vk " + (dir / "verification_key.json").string() + " --proof " +
                            (dir / "proof.json").string() + " --public ";
  auto ok = run_tool("groth16 verify" + files + (dir / "public.json").string());
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Contains("OK"));

  std::vector<Fr> changed = *pub;
  changed[1] += Fr::one();
  spit(dir / "changed.json", export_snarkjs_public(changed));
  auto invalid = run_tool("groth16 verify" + files + (dir / "changed.json").string());
  CHECK(invalid.exit_code == 1);
  CHECK_THAT(invalid.output, Contains("INVALID"));

  spit(dir / "junk.json", "[\"1\", \"2\", \"3x\"]");
  auto junk = run_tool("groth16 verify" + files + (dir / "junk.json").string());
  CHECK(junk.exit_code == 2);
  CHECK_THAT(junk.output, Contains("junk.json: [2]: not a decimal < r"));

  spit(dir / "short.json", "[\"1\"]");
  auto short_input = run_tool("groth16 verify" + files + (dir / "short.json").string());
  CHECK(short_input.exit_code == 2);
  CHECK_THAT(short_input.output, Contains("short.json: 1 public inputs, the key"));

  auto missing = run_tool("groth16 verify" + files + (dir / "missing.json").string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("missing.json: cannot open"));

  auto bad_circuit = run_tool("groth16 demo --circuit nope --out " + dir.string());
  CHECK(bad_circuit.exit_code == 2);

  std::error_code ec;
  fs::remove_all(dir, ec);
}
