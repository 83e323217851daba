// `zkpipe-tool params new` then `groth16 prove`: the prover from a params file and its R1CS cache
// (validated and trusted loads), a proof that verifies and agrees with its snarkjs JSON; another
// circuit shape or a missing file is bad input (exit 2) with a message that says which.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "temp_dir.h"
#include "tools/run_tool.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/snarkjs.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;
using zkpipe::testing::TempDir;

TEST_CASE("groth16 tool: prove from a params file and its R1CS cache", "[tool][groth16]") {
  const TempDir dir("zkpipe_groth16_prove_test");
  const std::string params = dir.file("mimc.params");
  auto made = run_tool("params new --circuit mimc --size 30 --seed 4 --out " + params);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  CHECK_THAT(made.output, Contains("NOT a trusted-setup ceremony"));

  for (const char* mode : {"", " --trusted"}) {
    auto run = run_tool("groth16 prove --params " + params + " --circuit mimc --size 30 --seed 4" +
                        mode + " --out " + dir.file("out"));
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("verify") && Contains("OK"));
  }
  const auto bin = zkpipe::testing::read_bytes(dir.file("out/proof.bin"));
  REQUIRE(bin.size() == zkpipe::groth16::kProofBytes);
  auto from_bin = zkpipe::groth16::decode_proof(bin.data(), bin.size());
  auto from_json = zkpipe::groth16::import_snarkjs_proof(
      zkpipe::testing::read_text(dir.file("out/proof.json")), "proof.json");
  REQUIRE(from_bin.ok());
  REQUIRE(from_json.ok());
  CHECK(*from_bin == *from_json);
  auto verified =
      run_tool("groth16 verify --vk " + dir.file("out/verification_key.json") + " --proof " +
               dir.file("out/proof.json") + " --public " + dir.file("out/public.json"));
  CHECK(verified.exit_code == 0);

  auto other = run_tool("groth16 prove --params " + params + " --circuit mimc --size 31");
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Contains("circuit shape"));  // a buffer overflows, or the counts differ
  auto missing = run_tool("groth16 prove --params " + dir.file("none.params"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("none.params"));
}
