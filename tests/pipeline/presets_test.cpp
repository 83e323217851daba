// The presets of a proof type through the pipeline: the sample requests the mimc_jobs plugin makes
// (zkp_proof_type.sample_request, through ProofTypePlugin) are proved and verified like any
// request, and a sample is the same bytes for the same preset and seed.
#include "engine_fixture.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"

namespace zkpipe::testing {
namespace {

ProofTypePlugin mimc_plugin() {
  PluginRegistry registry({ZKPIPE_TEST_PIPELINE_PLUGIN_DIR});
  Result<ProofTypePlugin> t = ProofTypePlugin::load(registry, "mimc_jobs");
  REQUIRE(t.ok());
  return *t;
}

TEST_CASE("Engine: a preset's sample request is proved and verified", "[pipeline][presets]") {
  const ProofTypePlugin type = mimc_plugin();
  const std::vector<ProofTypePreset> presets = type.presets();
  REQUIRE(presets.size() == 2);
  CHECK(presets[0].name == "small");
  Result<std::vector<uint8_t>> sample = type.sample_request("small", 9);
  REQUIRE(sample.ok());
  auto engine = make_engine(test_config());
  pipeline::JobRequest request;
  request.proof_type = "mimc_jobs";
  request.input = *sample;
  request.input_name = "mimc_jobs preset small";
  Result<uint64_t> id = engine->submit(std::move(request));
  REQUIRE(id.ok());
  Result<pipeline::JobResult> r = engine->wait(*id);
  REQUIRE(r.ok());
  require_verified(*r);
  CHECK(r->partitions.size() == presets[0].partitions);
  CHECK(r->circuit_id == "mimc-test-r8");
}

TEST_CASE("Engine: a sample request depends only on its preset and seed", "[pipeline][presets]") {
  const ProofTypePlugin type = mimc_plugin();
  Result<std::vector<uint8_t>> a = type.sample_request("small", 4);
  Result<std::vector<uint8_t>> b = type.sample_request("small", 4);
  Result<std::vector<uint8_t>> c = type.sample_request("small", 5);
  Result<std::vector<uint8_t>> d = type.sample_request("medium", 4);
  REQUIRE((a.ok() && b.ok() && c.ok() && d.ok()));
  CHECK(*a == *b);
  CHECK(*a != *c);
  CHECK(*a != *d);
}

}  // namespace
}  // namespace zkpipe::testing
