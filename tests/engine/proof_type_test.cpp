// ProofTypePlugin (zkpipe/proof_type.h): the presets of a loaded plugin and its sample requests;
// the refusals: an unknown preset (listing the known ones), a descriptor of the 1.1 layout (its
// 1.2 fields never read), a 1.2 descriptor with no presets, and a plugin's failure (its code and
// message, naming the plugin), on hand-made descriptors.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"

namespace {

using Catch::Matchers::Contains;
using zkpipe::Code;
using zkpipe::ProofTypePlugin;

constexpr zkp_preset kPresets[] = {{"one", "the only preset", 1, 0}};

// A sample_request writing "abc" in two pieces, or failing for the preset "fail", or making
// nothing for "empty".
zkp_status fake_sample(const char* preset, uint64_t, zkp_write_fn write, void* ctx, zkp_error err) {
  if (std::string(preset) == "fail") {
    std::snprintf(err.message, err.capacity, "the sealer ran out of disk");
    return ZKP_ERR_RESOURCE_EXHAUSTED;
  }
  if (std::string(preset) == "empty") return ZKP_OK;
  const uint8_t bytes[] = {'a', 'b', 'c'};
  if (write(ctx, bytes, 1) != 0 || write(ctx, bytes + 1, 2) != 0) return ZKP_ERR_ABORTED;
  return ZKP_OK;
}

// A descriptor with only the header and the 1.2 fields filled in (nothing else is called here).
zkp_proof_type fake_type(uint32_t struct_size, const zkp_preset* presets, uint32_t count) {
  zkp_proof_type t{};
  t.header.struct_size = struct_size;
  t.header.abi_major = 1;
  t.header.abi_minor = struct_size >= sizeof(zkp_proof_type) ? 2 : 1;
  t.header.kind = ZKP_KIND_PROOF_TYPE;
  t.presets = presets;
  t.preset_count = count;
  t.sample_request = fake_sample;
  return t;
}

TEST_CASE("ProofTypePlugin: a loaded plugin's presets and sample requests", "[plugin]") {
  zkpipe::PluginRegistry registry({ZKPIPE_TEST_PIPELINE_PLUGIN_DIR});
  auto type = ProofTypePlugin::load(registry, "mimc_jobs");
  REQUIRE(type.ok());
  CHECK(type->has_preset_fields());
  const auto presets = type->presets();
  REQUIRE(presets.size() == 2);
  CHECK(presets[0].name == "small");
  CHECK(presets[0].partitions == 2);
  CHECK_THAT(presets[0].description, Contains("8 rounds"));
  auto sample = type->sample_request("small", 3);
  REQUIRE(sample.ok());
  CHECK(std::string(sample->begin(), sample->end()) == R"({"partitions":2,"rounds":8,"seed":3})");

  auto unknown = type->sample_request("huge", 3);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == Code::kNotFound);
  CHECK_THAT(unknown.status().message(),
             Contains("proof type 'mimc_jobs'") && Contains("mimc_jobs.so") &&
                 Contains("unknown preset 'huge' (presets: small, medium)"));
}

TEST_CASE("ProofTypePlugin: a 1.1 descriptor has no presets and its 1.2 fields are not read",
          "[plugin]") {
  // struct_size ends before `presets`: the (valid-looking) table behind it must be ignored.
  const zkp_proof_type t = fake_type(offsetof(zkp_proof_type, presets), kPresets, 1);
  const ProofTypePlugin type(&t, "old_type", "/plugins/old_type.so");
  CHECK_FALSE(type.has_preset_fields());
  CHECK(type.presets().empty());
  auto r = type.sample_request("one", 1);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Contains("proof type 'old_type' (/plugins/old_type.so) has no "
                                            "presets (its plugin is built against ABI 1.1") &&
                                       Contains("cannot make preset 'one'"));
}

TEST_CASE("ProofTypePlugin: a 1.2 descriptor without presets says it declares none", "[plugin]") {
  zkp_proof_type t = fake_type(sizeof(zkp_proof_type), nullptr, 0);
  t.sample_request = nullptr;
  const ProofTypePlugin type(&t, "bare");
  CHECK(type.has_preset_fields());
  CHECK(type.presets().empty());
  auto r = type.sample_request("one", 1);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(),
             Contains("proof type 'bare' has no presets (its plugin declares none)"));
}

TEST_CASE("ProofTypePlugin: pieces are joined, and a plugin failure keeps its code and message",
          "[plugin]") {
  const zkp_preset presets[] = {{"one", "d", 1, 0}, {"fail", "d", 1, 0}, {"empty", "d", 1, 0}};
  const zkp_proof_type t = fake_type(sizeof(zkp_proof_type), presets, 3);
  const ProofTypePlugin type(&t, "fake", "/p/fake.so");
  auto ok = type.sample_request("one", 1);
  REQUIRE(ok.ok());
  CHECK(*ok == std::vector<uint8_t>{'a', 'b', 'c'});

  auto failed = type.sample_request("fail", 1);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == Code::kResourceExhausted);
  CHECK_THAT(failed.status().message(),
             Contains("proof type 'fake' (/p/fake.so): sample_request of preset 'fail': the "
                      "sealer ran out of disk"));

  auto empty = type.sample_request("empty", 1);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().code() == Code::kInternal);
  CHECK_THAT(empty.status().message(), Contains("returned OK with an empty request"));
}

}  // namespace
