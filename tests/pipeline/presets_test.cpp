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

// ABI 1.8: the circuit ids of a type's presets without a synthesis (ZKP_PRESET_CIRCUIT_ID_ONLY):
// every preset of filecoin_winning_post, the ids preset_circuit names when it counts; asked for
// the id alone, the plugin counts nothing (zero constraints); none for a type without
// preset_circuit.
// [filecoin], not [pipeline]: the TSan build runs [pipeline] without the Filecoin plugins.
TEST_CASE("Engine: a proof type names its presets' circuits without counting them",
          "[presets][filecoin]") {
  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  Result<ProofTypePlugin> post = ProofTypePlugin::load(registry, "filecoin_winning_post");
  REQUIRE(post.ok());
  Result<std::vector<std::string>> ids = post->preset_circuit_ids();
  REQUIRE(ids.ok());
  const std::vector<ProofTypePreset> presets = post->presets();
  REQUIRE(ids->size() == presets.size());
  CHECK(std::find(ids->begin(), ids->end(), "filecoin-winning-post-64GiB") != ids->end());
  for (size_t i = 0; i < presets.size(); ++i) {
    INFO(presets[i].name);
    Result<PresetCircuitInfo> named = post->preset_circuit(presets[i].name, false);
    REQUIRE(named.ok());
    CHECK(named->info.circuit_id == (*ids)[i]);
    CHECK(named->info.num_constraints == 0);
    CHECK(named->terms[0] == 0);
    if (presets[i].name.find("2KiB") == std::string::npos) continue;  // counting 64GiB takes s
    Result<PresetCircuitInfo> counted = post->preset_circuit(presets[i].name);
    REQUIRE(counted.ok());
    CHECK(counted->info.circuit_id == (*ids)[i]);
    CHECK(counted->info.num_constraints > 0);
    CHECK(named->info.partitions == counted->info.partitions);
  }
  Result<std::vector<std::string>> none = mimc_plugin().preset_circuit_ids();
  REQUIRE(none.ok());
  CHECK(none->empty());
}

}  // namespace
}  // namespace zkpipe::testing
