// tests/pipeline/filecoin_params_test.cpp: the params cache with params.filecoin_dir. A Filecoin
// circuit id finds its params by Filecoin's registered file name; the development setup writes
// that file in bellperson's layout with its label and .vk; the BLAKE2b verdict is stamped in
// params.dir and trusted only for the same file; the hot key is exactly the setup's key (decoded
// into the backend buffer); a changed byte, a file for another circuit, a missing file and a
// missing R1CS are refused, each naming the file and what is wrong; no development file is made
// in a directory that holds Filecoin's own.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "temp_dir.h"
#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin/params_format.h"
#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/pipeline/params_cache.h"

namespace zkpipe::testing {
namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

groth16::R1cs mimc_r1cs(uint64_t rounds) {
  groth16::ConstraintSystem cs = groth16::ConstraintSystem::recorder();
  REQUIRE(groth16::synthesize_example({"mimc", rounds, 1}, cs).ok());
  return cs.take_r1cs();
}

// A params cache over heap buffers (the test keeps them), with a budget of 1 GiB.
struct Cache {
  explicit Cache(ParamsConfig config)
      : budget(uint64_t{1} << 30),
        cache(
            std::move(config), budget,
            [this](uint64_t bytes) -> Result<Buffer> {
              memory.push_back(std::make_unique<uint8_t[]>(bytes));
              zkp_buffer raw{};
              raw.host_ptr = memory.back().get();
              raw.bytes = bytes;
              return Buffer(nullptr, raw);
            },
            pipeline::PipelineShape{}) {}
  std::vector<std::unique_ptr<uint8_t[]>> memory;
  pipeline::MemoryBudget budget;
  pipeline::ParamsCache cache;
};

const std::string kId = "filecoin-winning-post-2KiB";

}  // namespace

TEST_CASE("Filecoin params: found by registered name, made, stamped, decoded exactly",
          "[pipeline][filecoin]") {
  TempDir dir("zkpipe_filecoin_params");
  ParamsConfig config;
  config.dir = dir.file("params");
  config.filecoin_dir = dir.file("fil");
  config.setup_when_missing = true;
  config.setup_seed = 7;
  const groth16::R1cs r1cs = mimc_r1cs(40);
  const pipeline::RecordFn record = [&]() -> Result<groth16::R1cs> { return r1cs; };
  Result<filecoin::ParamFile> file = filecoin::circuit_param_file(kId);
  REQUIRE(file.ok());
  const std::string params = dir.file("fil/" + file->name);
  const std::string stem = filecoin::param_file_stem(*file);

  {
    Cache c(config);
    CHECK(c.cache.params_path(kId) == params);
    CHECK(c.cache.vk_path(kId) == dir.file("fil/" + stem + ".vk"));
    Result<pipeline::ParamsHandle> hot = c.cache.acquire(kId, record, {});
    REQUIRE(hot.ok());
    CHECK(c.cache.stats().setups == 1);
    // The hot key is the seeded setup's, point for point.
    Result<groth16::ProvingKey> want =
        groth16::setup(r1cs, groth16::ToxicWaste::from_seed(config.setup_seed));
    REQUIRE(want.ok());
    const groth16::ProvingKey& got = (*hot)->pk;
    CHECK(got.vk == want->vk);
    CHECK(got.a_density == want->a_density);
    CHECK(got.b_density == want->b_density);
    CHECK(std::equal(got.h_query.begin(), got.h_query.end(), want->h_query.begin(),
                     want->h_query.end()));
    CHECK(std::equal(got.l_query.begin(), got.l_query.end(), want->l_query.begin(),
                     want->l_query.end()));
    CHECK(std::equal(got.a_query.begin(), got.a_query.end(), want->a_query.begin(),
                     want->a_query.end()));
    CHECK(std::equal(got.b_g2_query.begin(), got.b_g2_query.end(), want->b_g2_query.begin(),
                     want->b_g2_query.end()));
    // The file is bellperson's layout, labeled, with its .vk; the verdict and R1CS in params.dir.
    Result<filecoin::BellpersonParams> read = filecoin::read_params(params);
    REQUIRE(read.ok());
    CHECK(read->vk == want->vk);
    std::ifstream label(params + ".development");
    std::string first;
    std::getline(label, first);
    CHECK_THAT(first, Contains("NOT Filecoin's parameters"));
    CHECK(fs::exists(dir.file("fil/" + stem + ".vk")));
    CHECK(fs::exists(dir.file("params/" + stem + ".checked")));
    CHECK(fs::exists(dir.file("params/" + kId + ".csr")));
    CHECK(c.cache.circuits_on_disk() == std::vector<std::string>{kId});
    Result<pipeline::CircuitMemory> m = c.cache.circuit_memory(kId);
    REQUIRE(m.ok());
    CHECK(m->resident() == (*hot)->resident_bytes);
  }
  SECTION("a second cache trusts the verdict; no setup, the same key") {
    Cache c(config);
    Result<pipeline::ParamsHandle> hot = c.cache.acquire(kId, record, {});
    REQUIRE(hot.ok());
    CHECK(c.cache.stats().setups == 0);
    Result<groth16::VerifyingKey> vk = c.cache.verifying_key(kId);
    REQUIRE(vk.ok());
    CHECK(*vk == (*hot)->pk.vk);
  }
  SECTION("a changed byte fails the digest, naming the file and both digests") {
    {
      std::fstream f(params, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(fs::file_size(params) / 2));
      f.put('\x01');
    }
    Cache c(config);
    Result<pipeline::ParamsHandle> hot = c.cache.acquire(kId, record, {});
    REQUIRE_FALSE(hot.ok());
    CHECK(hot.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(hot.status().message(),
               Contains(params) && Contains("parameters.json says " + file->digest));
  }
  SECTION("the file of another circuit is refused by its counts") {
    Cache c(config);
    const groth16::R1cs other = mimc_r1cs(60);
    Result<pipeline::ParamsHandle> hot =
        c.cache.acquire(kId, [&]() -> Result<groth16::R1cs> { return other; }, {});
    // The R1CS cached in params.dir is this file's circuit: drop it to record the other one.
    REQUIRE(hot.ok());
    fs::remove(dir.file("params/" + kId + ".csr"));
    Cache d(config);
    Result<pipeline::ParamsHandle> refused =
        d.cache.acquire(kId, [&]() -> Result<groth16::R1cs> { return other; }, {});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(refused.status().message(),
               Contains(params) && Contains("not this circuit's parameters"));
  }
  SECTION("missing, without a setup: NOT_FOUND naming Filecoin's file name") {
    fs::remove(params);
    config.setup_when_missing = false;
    Cache c(config);
    Result<pipeline::ParamsHandle> hot = c.cache.acquire(kId, record, {});
    REQUIRE_FALSE(hot.ok());
    CHECK(hot.status().code() == Code::kNotFound);
    CHECK_THAT(hot.status().message(), Contains(file->name) && Contains("params.filecoin_dir"));
    CHECK(c.cache.circuits_on_disk().empty());
  }
  SECTION("no development file is made beside Filecoin's own") {
    fs::remove(params);
    // An unlabeled v28 file: Filecoin's (its contents do not matter here).
    std::ofstream(dir.file("fil/v28-proof-of-spacetime-fallback-other.params")) << "x";
    Cache c(config);
    Result<pipeline::ParamsHandle> hot = c.cache.acquire(kId, record, {});
    REQUIRE_FALSE(hot.ok());
    CHECK(hot.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(hot.status().message(), Contains("holds Filecoin's own files") &&
                                           Contains("v28-proof-of-spacetime-fallback-other"));
    CHECK_FALSE(fs::exists(params));
  }
  SECTION("without a recorded R1CS, preload says the first job records it") {
    fs::remove(dir.file("params/" + kId + ".csr"));
    Cache c(config);
    const Status s = c.cache.preload(kId);
    CHECK(s.code() == Code::kNotFound);
    CHECK_THAT(s.message(), Contains("the first job records it"));
  }
}

TEST_CASE("Filecoin params: other circuits keep zkpipe's own params in params.dir",
          "[pipeline][filecoin]") {
  TempDir dir("zkpipe_filecoin_params_other");
  ParamsConfig config;
  config.dir = dir.file("params");
  config.filecoin_dir = dir.file("fil");
  Cache c(config);
  CHECK(c.cache.params_path("mimc-40") == dir.file("params/mimc-40.params"));
  config.filecoin_dir.clear();
  Cache d(config);
  CHECK(d.cache.params_path(kId) == dir.file("params/" + kId + ".params"));
}

}  // namespace zkpipe::testing
