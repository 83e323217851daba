// The proof-type plugins through the C ABI, as the engine will drive them: load porep.so and
// snapdeals.so with the PluginRegistry, parse a request the tool made, read its info, record the
// circuit, synthesize every partition into caller buffers and check the recorded R1CS is
// satisfied with the public inputs the plugin derives; and the ABI's refusals (wrong buffer
// sizes, partition out of range, a bad request) come back as codes with messages.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "temp_dir.h"
#include "tools/run_tool.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/abi/proof_type.h"

namespace {

using Catch::Matchers::Contains;
using zkpipe::crypto::Fr;
using zkpipe::test::run_tool;
using zkpipe::testing::TempDir;

const zkp_proof_type* load(const std::string& name) {
  zkpipe::PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  auto p = registry.load(name, ZKP_KIND_PROOF_TYPE);
  REQUIRE(p.ok());
  REQUIRE((*p)->available());
  return (*p)->table<zkp_proof_type>();
}

void exercise(const std::string& type, const std::string& request) {
  const zkp_proof_type* t = load(type);
  const auto bytes = zkpipe::testing::read_bytes(request);
  char msg[ZKP_ERROR_CAPACITY] = "";
  zkp_job* job = nullptr;
  REQUIRE(t->parse(bytes.data(), bytes.size(), "request", &job, {msg, sizeof msg}) == ZKP_OK);
  zkp_job_info info{};
  info.struct_size = sizeof info;
  REQUIRE(t->info(job, &info, {msg, sizeof msg}) == ZKP_OK);
  CHECK(info.partitions == 2);
  CHECK_THAT(std::string(info.circuit_id), Contains(type + "-v1-n8"));

  zkp_r1cs* handle = nullptr;
  zkp_r1cs_view view{};
  view.struct_size = sizeof view;
  REQUIRE(t->record(job, &handle, &view, {msg, sizeof msg}) == ZKP_OK);
  auto recorded = zkpipe::r1cs_from_view(view, type);
  t->destroy_r1cs(handle);
  REQUIRE(recorded.ok());
  const zkpipe::groth16::R1cs& r1cs = *recorded;
  CHECK(r1cs.num_constraints() == info.num_constraints);

  for (uint32_t p = 0; p < info.partitions; ++p) {
    std::vector<Fr> inputs(info.num_inputs), aux(info.num_aux), x(info.num_inputs - 1);
    REQUIRE(t->synthesize(job, p, reinterpret_cast<zkp_fr*>(inputs.data()), inputs.size(),
                          reinterpret_cast<zkp_fr*>(aux.data()), aux.size(),
                          {msg, sizeof msg}) == ZKP_OK);
    REQUIRE(t->public_inputs(job, p, reinterpret_cast<zkp_fr*>(x.data()), x.size(),
                             {msg, sizeof msg}) == ZKP_OK);
    CHECK(std::vector<Fr>(inputs.begin() + 1, inputs.end()) == x);
    CHECK(zkpipe::groth16::check_satisfied(r1cs, {inputs, aux}).ok());
  }
  std::vector<Fr> small(info.num_aux - 1), inputs(info.num_inputs);
  CHECK(t->synthesize(job, 0, reinterpret_cast<zkp_fr*>(inputs.data()), inputs.size(),
                      reinterpret_cast<zkp_fr*>(small.data()), small.size(),
                      {msg, sizeof msg}) == ZKP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(msg), Contains("buffers of"));
  CHECK(t->public_inputs(job, 2, reinterpret_cast<zkp_fr*>(inputs.data()), inputs.size() - 1,
                         {msg, sizeof msg}) == ZKP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(msg), Contains("partition 2 is out of range"));
  t->destroy_job(job);

  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + 50);
  zkp_job* bad = nullptr;
  CHECK(t->parse(cut.data(), cut.size(), "cut.bin", &bad, {msg, sizeof msg}) ==
        ZKP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(msg), Contains("cut.bin: ") && Contains("byte"));  // offset or JSON byte
  CHECK(bad == nullptr);
}

}  // namespace

TEST_CASE("Proof-type plugins: porep through the C ABI", "[plugin][porep]") {
  const TempDir dir("zkpipe_porep_plugin_test");
  REQUIRE(
      run_tool("proof-type porep seal --shape tiny --seed 3 --out " + dir.file("s")).exit_code ==
      0);
  REQUIRE(run_tool("proof-type porep vanilla --sector " + dir.file("s") +
                   " --challenge-seed c --out " + dir.file("v.bin"))
              .exit_code == 0);
  exercise("porep", dir.file("v.bin"));
}

TEST_CASE("Proof-type plugins: snapdeals through the C ABI", "[plugin][snapdeals]") {
  const TempDir dir("zkpipe_snapdeals_plugin_test");
  REQUIRE(run_tool("proof-type porep seal --shape tiny --empty --seed 3 --out " + dir.file("k"))
              .exit_code == 0);
  REQUIRE(run_tool("proof-type snapdeals update --sector " + dir.file("k") +
                   " --data-seed d --json --out " + dir.file("v.json"))
              .exit_code == 0);
  exercise("snapdeals", dir.file("v.json"));
}
