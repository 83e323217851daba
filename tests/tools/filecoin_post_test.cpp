// The Filecoin PoSt proof types end to end through the command line: a sample request (2KiB
// sectors sealed with Filecoin's SDR) checks natively and constraint by constraint; `info`
// prints Filecoin's counts (32GiB WindowPoSt 125,279,217 constraints / 25,839 public inputs,
// WinningPoSt 370,590 / 132); `zkpipe prove` makes a proof the engine verifies, and part 1's
// `zkpipe-tool filecoin verify` verifies it too under the .vk written beside the params with the
// inputs it derives from the request's description alone (a .vk removed comes back on the next
// use of the params), and refuses it for another randomness; a tampered vanilla proof is refused
// before any synthesis, naming the challenge; curio's real 32GiB vanilla proof with Lotus's verify
// info satisfies every constraint. [heavy] (the plain build only, tests/CMakeLists.txt): counting
// the 32GiB WindowPoSt circuit and the development setups, about 6 minutes under Debug ASan.
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"
#include "tools/run_tool.h"

namespace {

using Catch::Matchers::Contains;
using zkpipe::test::run_program;
using zkpipe::test::run_tool;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;

const std::string kCurio = std::string(ZKPIPE_SOURCE_DIR) + "/tests/filecoin/data/curio/";

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST_CASE("filecoin PoSt: info prints Filecoin's counts", "[tool][filecoin][plugin][heavy]") {
  auto w =
      run_tool("proof-type filecoin_window_post info --preset StackedDrgWindow32GiBV1_2 --json");
  INFO(w.output);
  REQUIRE(w.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(w.output);
  CHECK(j.at("constraints") == 125'279'217);
  CHECK(j.at("public_inputs") == 25'839);
  CHECK(j.at("circuit_id") == "filecoin-window-post-32GiB");
  auto n =
      run_tool("proof-type filecoin_winning_post info --preset StackedDrgWinning32GiBV1 --json");
  REQUIRE(n.exit_code == 0);
  const nlohmann::json k = nlohmann::json::parse(n.output);
  CHECK(k.at("constraints") == 370'590);
  CHECK(k.at("public_inputs") == 132);
  auto wrong = run_tool("proof-type filecoin_winning_post info --preset StackedDrgWindow2KiBV1");
  CHECK(wrong.exit_code == 2);
}

TEST_CASE("filecoin PoSt: curio's real 32GiB vanilla proof satisfies the circuit",
          "[tool][filecoin][plugin]") {
  auto r = run_tool("proof-type filecoin_window_post check --input " + kCurio +
                    "post.vproof --public " + kCurio + "postpub.json --synthesize");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("all 125279217 constraints hold"));
}

TEST_CASE("filecoin PoSt: a sample proves, and verifies outside the engine",
          "[tool][filecoin][plugin][heavy]") {
  const TempDir dir("zkpipe_filecoin_post");
  for (const std::string kind : {"window", "winning"}) {
    INFO(kind);
    const std::string type = "filecoin_" + kind + "_post";
    const std::string preset =
        kind == "window" ? "StackedDrgWindow2KiBV1_2" : "StackedDrgWinning2KiBV1";
    const std::string request = dir.file(kind + ".json");
    REQUIRE(run_tool(fmt::format("proof-type {} sample --preset {} --seed 3 --out {}", type, preset,
                                 request))
                .exit_code == 0);
    auto check =
        run_tool(fmt::format("proof-type {} check --input {} --synthesize", type, request));
    INFO(check.output);
    CHECK(check.exit_code == 0);
    CHECK_THAT(check.output, Contains("constraints hold"));

    write(dir.file("c.yaml"),
          // The proof types' own deadlines (WinningPoSt: 20 s) would count the development
          // setup, which takes about that long on a loaded 2-core machine: this test is about
          // the proof, not the deadline.
          fmt::format("version: 1\nplugin_dirs: [{}]\nmemory: {{backend: pageable}}\n"
                      "params: {{dir: params, missing: setup}}\ncompute: {{threads: 1}}\n"
                      "scheduling: {{defaults: {{{}: {{deadline: 1h}}}}}}\n",
                      ZKPIPE_TEST_PLUGIN_DIR, type));
    const std::string proof = dir.file(kind + ".proof");
    auto prove = run_program(ZKPIPE_TEST_ZKPIPE,
                             fmt::format("prove --config {} --proof {} --input {} --out {}",
                                         dir.file("c.yaml"), type, request, proof));
    INFO(prove.output);
    REQUIRE(prove.exit_code == 0);
    CHECK_THAT(prove.output, Contains("OK, verified"));

    // The description alone (no vanilla proofs), and the .vk beside the params.
    nlohmann::json desc = nlohmann::json::parse(read_text(request));
    desc.erase("vanilla_proofs");
    write(dir.file("desc.json"), desc.dump());
    const std::string size = "2KiB";
    const std::string vk = dir.file("params/filecoin-" + kind + "-post-" + size + ".vk");
    auto ok = run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                                   dir.file("desc.json")));
    INFO(ok.output);
    CHECK(ok.exit_code == 0);
    // Params without their .vk (made before .vk files were written, or copied) get it back.
    std::filesystem::remove(vk);
    REQUIRE(run_program(ZKPIPE_TEST_ZKPIPE, fmt::format("prove --config {} --proof {} --input {}",
                                                        dir.file("c.yaml"), type, request))
                .exit_code == 0);
    CHECK(std::filesystem::exists(vk));
    desc["randomness"] = std::string(64, '1');
    write(dir.file("other.json"), desc.dump());
    auto other = run_tool(fmt::format("filecoin verify --vk {} --proof {} --json {}", vk, proof,
                                      dir.file("other.json")));
    CHECK(other.exit_code == 1);

    // A tampered vanilla proof: refused by parse, before synthesis, naming the challenge.
    nlohmann::json bad = nlohmann::json::parse(read_text(request));
    std::string p = bad["vanilla_proofs"][0];
    // sector_id, comm_r, 1, proofs, kind, root, leaf, path length, hashes: the first sibling
    const size_t sibling = 2 * (8 + 32 + 8 + 8 + 4 + 32 + 32 + 8 + 8 + 1);
    p[sibling] = p[sibling] == '0' ? '1' : '0';
    bad["vanilla_proofs"][0] = p;
    write(dir.file("bad.json"), bad.dump());
    auto refused = run_program(ZKPIPE_TEST_ZKPIPE,
                               fmt::format("prove --config {} --proof {} --input {}",
                                           dir.file("c.yaml"), type, dir.file("bad.json")));
    INFO(refused.output);
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.output, Contains("challenge 0") && Contains("does not lead to comm_r_last"));
  }
}

// Issue 33 #5: the package's config says `params.missing: fail`, and nothing shipped could put
// params where it reads them. `params new --proof T --preset P --config C` makes them there
// (labeled development), and that config then proves with them.
TEST_CASE("params new --proof: a preset's params where a missing: fail config proves with them",
          "[tool][filecoin][heavy]") {
  const TempDir dir("zkpipe_params_new_proof");
  write(dir.file("c.yaml"),
        fmt::format("version: 1\nplugin_dirs: [{}]\nmemory: {{backend: pageable}}\n"
                    "params: {{dir: params, filecoin_dir: filecoin, missing: fail}}\n"
                    "compute: {{threads: 1}}\n",
                    ZKPIPE_TEST_PLUGIN_DIR));
  const std::string type = "filecoin_winning_post", preset = "StackedDrgWinning2KiBV1";
  const std::string request = dir.file("w.json");
  REQUIRE(run_tool(fmt::format("proof-type {} sample --preset {} --seed 5 --out {}", type, preset,
                               request))
              .exit_code == 0);
  const std::string prove =
      fmt::format("prove --config {} --proof {} --input {}", dir.file("c.yaml"), type, request);
  auto before = run_program(ZKPIPE_TEST_ZKPIPE, prove);
  INFO(before.output);
  CHECK(before.exit_code != 0);
  CHECK_THAT(before.output, Contains("missing: setup"));  // the error says how to get them

  const std::string args = fmt::format("params new --proof {} --preset {} --config {}", type,
                                       preset, dir.file("c.yaml"));
  auto made = run_tool(args);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  CHECK_THAT(made.output, Contains("NOT a trusted-setup ceremony") && Contains("made ") &&
                              Contains("filecoin-winning-post-2KiB"));
  bool labeled = false;
  for (const auto& e : std::filesystem::directory_iterator(dir.file("filecoin"))) {
    labeled = labeled || e.path().extension() == ".development";
  }
  CHECK(labeled);
  auto again = run_tool(args);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.output, Contains("checked "));
  auto proved = run_program(ZKPIPE_TEST_ZKPIPE, prove);
  INFO(proved.output);
  CHECK(proved.exit_code == 0);
  CHECK_THAT(proved.output, Contains("OK, verified"));

  auto bad = run_tool(
      fmt::format("params new --proof {} --preset 2KiB --config {}", type, dir.file("c.yaml")));
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("--preset") && Contains(preset));
  auto mixed = run_tool(fmt::format("params new --proof {} --preset {} --config {} --circuit mimc",
                                    type, preset, dir.file("c.yaml")));
  CHECK(mixed.exit_code != 0);
  CHECK_THAT(mixed.output, Contains("excludes"));
}

}  // namespace
