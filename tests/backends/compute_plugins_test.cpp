// tests/backends/compute_plugins_test.cpp: the compute plugins through the C ABI
// (zkpipe/sdk/abi/compute.h) as the engine opens them: the `cpu` plugin's proofs equal the
// reference prover's bit for bit for the same randomness (pinned), keys are registered once and
// again after the engine's key is gone, and every way of naming a backend that cannot run fails
// with its reason. The `cuda` plugin on this machine: UNAVAILABLE with the CUDA error, never a
// crash. Thread-safety: single-threaded Catch2 tests, except the concurrent-calls case.
#include <atomic>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "feature_required.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/pipeline/compute.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/compute.h"
#include "zkpipe/sdk/compute_glue.h"
#include "zkpipe/system.h"

using Catch::Matchers::Contains;
using namespace zkpipe;
using groth16::Fr;

namespace {

struct Circuit {
  groth16::R1cs r1cs;
  std::vector<Fr> inputs, aux;
  std::unique_ptr<groth16::ProvingKey> pk;
};

Circuit make_circuit(uint64_t rounds, uint64_t seed) {
  Circuit c;
  auto cs = groth16::ConstraintSystem::recorder();
  REQUIRE(groth16::synthesize_example({"mimc", rounds, seed}, cs).ok());
  c.r1cs = cs.take_r1cs();
  std::tie(c.inputs, c.aux) = cs.take_witness();
  auto pk = groth16::setup(c.r1cs, groth16::ToxicWaste::from_seed(seed + 100));
  REQUIRE(pk.ok());
  c.pk = std::make_unique<groth16::ProvingKey>(std::move(pk).value());
  return c;
}

std::vector<Fr> abc_of(const Circuit& c) {
  const size_t n = c.pk->domain_size;
  std::vector<Fr> abc(3 * n);
  REQUIRE(groth16::evaluate_abc(c.r1cs, {c.inputs, c.aux}, abc.data(), abc.data() + n,
                                abc.data() + 2 * n, n, 1)
              .ok());
  return abc;
}

Result<groth16::Proof> prove_with(pipeline::ComputeBackend& backend, const Circuit& c,
                                  const groth16::ProverRandomness& rand) {
  std::vector<Fr> abc = abc_of(c);
  const size_t n = c.pk->domain_size;
  pipeline::StartStats stats;
  ZKP_ASSIGN_OR_RETURN(
      groth16::PendingProof p,
      backend.prove_start(
          0, {*c.pk, {{c.inputs, c.aux}, abc.data(), abc.data() + n, abc.data() + 2 * n, n}},
          stats));
  return backend.prove_finish(std::move(p), rand);
}

Result<std::unique_ptr<pipeline::ComputeBackend>> open(const std::string& name,
                                                       std::vector<std::string> devices = {}) {
  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  ComputeConfig config;
  config.backend = name;
  config.devices = std::move(devices);
  config.threads = 2;
  return pipeline::open_compute_backend(config, registry, 0);
}

}  // namespace

TEST_CASE("compute plugins: cpu loads as a compute plugin and passes its self-test", "[compute]") {
  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  auto p = registry.load("cpu", ZKP_KIND_COMPUTE);
  INFO(p.status().to_string());
  REQUIRE(p.ok());
  CHECK((*p)->available());
  CHECK((*p)->manifest.kind == "compute");
  CHECK((*p)->header->abi_minor == ZKP_ABI_MINOR);
  std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
  CHECK((*p)->header->self_test(zkp_error{msg.data(), msg.size()}) == ZKP_OK);
  INFO(msg.data());
}

TEST_CASE("compute plugins: 1.2-sized options and device structs still pair (ABI 1.4)",
          "[compute][abi]") {
  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  auto p = registry.load("cpu", ZKP_KIND_COMPUTE);
  REQUIRE(p.ok());
  const auto* t = (*p)->table<zkp_compute_backend>();
  std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
  zkp_error err{msg.data(), msg.size()};
  // An engine built against 1.2: 32-byte options, no budget field; what lies past it is never read.
  struct Old {
    zkp_compute_options options;
    unsigned char poison[8];
  } old{};
  old.options.struct_size = 32;
  old.options.workers_per_device = 1;
  std::memset(&old.options.device_budget_bytes, 0xff, sizeof old.options.device_budget_bytes);
  zkp_compute* c = nullptr;
  REQUIRE(t->create(&old.options, &c, err) == ZKP_OK);
  // A 1.2 device struct (704 bytes): the plugin writes no further.
  zkp_compute_device info{};
  std::memset(&info, 0xab, sizeof info);
  info.struct_size = 704;
  REQUIRE(t->device_info(c, 0, &info, err) == ZKP_OK);
  CHECK(info.struct_size == 704);
  CHECK(std::string(info.name) == "cpu0");
  CHECK(info.memory_used_bytes == 0xababababababababull);
  CHECK(info.memory_budget_bytes == 0xababababababababull);
  // A 1.4 one gets the memory fields (the host: none).
  zkp_compute_device full{};
  full.struct_size = sizeof full;
  REQUIRE(t->device_info(c, 0, &full, err) == ZKP_OK);
  CHECK(full.struct_size == sizeof full);
  CHECK(full.memory_used_bytes == 0);
  CHECK(full.memory_budget_bytes == 0);
  // Smaller than any layout: refused, naming the field.
  zkp_compute_device tiny{};
  tiny.struct_size = 100;
  CHECK(t->device_info(c, 0, &tiny, err) == ZKP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(msg.data()), Contains("zkp_compute_device.struct_size 100"));
  t->destroy(c);
  zkp_compute_options small{};
  small.struct_size = 16;
  small.workers_per_device = 1;
  CHECK(t->create(&small, &c, err) == ZKP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(msg.data()), Contains("zkp_compute_options.struct_size 16"));
}

TEST_CASE("compute plugins: a set stop flag stops prove_start with ABORTED (ABI 1.6)",
          "[compute][abi]") {
  auto backend = open("cpu");
  REQUIRE(backend.ok());
  const Circuit c = make_circuit(40, 61);
  std::vector<Fr> abc = abc_of(c);
  const size_t n = c.pk->domain_size;
  std::atomic<uint32_t> stop{1};
  groth16::ProverInput in{{c.inputs, c.aux}, abc.data(), abc.data() + n, abc.data() + 2 * n, n};
  in.stop = &stop;
  pipeline::StartStats stats;
  // Through the engine's side of the ABI, the plugin's glue and the prover.
  auto stopped = (*backend)->prove_start(0, {*c.pk, in}, stats);
  CHECK(stopped.status().code() == Code::kAborted);
  CHECK_THAT(stopped.status().message(), Contains("cpu0: prove_start"));
  CHECK_THAT(stopped.status().message(), Contains("stopped before the NTTs"));
  stop.store(0);
  auto proof = (*backend)->prove_start(0, {*c.pk, in}, stats);
  INFO(proof.status().to_string());
  CHECK(proof.ok());
  // An engine before 1.6 passes a 96-byte input: `stop` lies past it and is never read.
  zkp_prove_input old{};
  old.struct_size = compute_plugin::kProveInputSize12;
  old.stop = reinterpret_cast<const uint32_t*>(&stop);
  CHECK(compute_plugin::stop_flag(old) == nullptr);
  old.struct_size = sizeof old;
  CHECK(compute_plugin::stop_flag(old) == &stop);
  old.struct_size = compute_plugin::kProveInputSize12 - 8;
  CHECK_THAT(compute_plugin::check_input(*c.pk, old).message(),
             Contains("zkp_prove_input.struct_size 88 < 96 (the 1.2 layout)"));
}

TEST_CASE("compute plugins: cpu proofs equal the reference prover's bit for bit", "[compute]") {
  auto backend = open("cpu");
  INFO(backend.status().to_string());
  REQUIRE(backend.ok());
  CHECK((*backend)->name() == "cpu");
  REQUIRE((*backend)->device_count() == 1);
  CHECK((*backend)->device_name(0) == "cpu0");
  CHECK((*backend)->device_status(0).ok());

  const Circuit c = make_circuit(300, 21);
  const groth16::ProverRandomness rand{Fr::from_u64(1234567), Fr::from_u64(7654321)};
  std::vector<Fr> abc = abc_of(c);
  const size_t n = c.pk->domain_size;
  auto reference = groth16::prove(
      *c.pk, {{c.inputs, c.aux}, abc.data(), abc.data() + n, abc.data() + 2 * n, n}, rand);
  REQUIRE(reference.ok());
  auto proof = prove_with(**backend, c, rand);
  INFO(proof.status().to_string());
  REQUIRE(proof.ok());
  uint8_t a[groth16::kProofBytes], b[groth16::kProofBytes];
  groth16::encode_proof(*reference, a);
  groth16::encode_proof(*proof, b);
  CHECK(std::equal(a, a + sizeof a, b));
  const groth16::PreparedVerifyingKey pvk(c.pk->vk);
  const std::vector<Fr> x(c.inputs.begin() + 1, c.inputs.end());
  CHECK(*groth16::verify(pvk, *proof, x));
}

TEST_CASE("compute plugins: a key is registered again once the engine's key is gone", "[compute]") {
  auto backend = open("cpu");
  REQUIRE(backend.ok());
  const groth16::ProverRandomness rand{Fr::from_u64(5), Fr::from_u64(6)};
  for (uint64_t seed : {31, 32, 33}) {
    // Each circuit's key lives only in this iteration: a new key may reuse the old address.
    const Circuit c = make_circuit(20 + seed, seed);
    auto proof = prove_with(**backend, c, rand);
    INFO(proof.status().to_string());
    REQUIRE(proof.ok());
    const groth16::PreparedVerifyingKey pvk(c.pk->vk);
    CHECK(*groth16::verify(pvk, *proof, std::vector<Fr>(c.inputs.begin() + 1, c.inputs.end())));
  }
}

TEST_CASE("compute plugins: concurrent prove_start calls on one key", "[compute]") {
  auto backend = open("cpu");
  REQUIRE(backend.ok());
  const Circuit c = make_circuit(100, 41);
  const groth16::PreparedVerifyingKey pvk(c.pk->vk);
  const std::vector<Fr> x(c.inputs.begin() + 1, c.inputs.end());
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto proof = prove_with(**backend, c, groth16::ProverRandomness::secure());
      ok[t] = proof.ok() && *groth16::verify(pvk, *proof, x) ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(ok == std::vector<int>{1, 1, 1, 1});
}

TEST_CASE("compute plugins: a witness that does not satisfy the circuit fails prove_start",
          "[compute]") {
  auto backend = open("cpu");
  REQUIRE(backend.ok());
  Circuit c = make_circuit(30, 51);
  c.aux[3] = c.aux[3] + Fr::one();
  auto proof = prove_with(**backend, c, groth16::ProverRandomness::secure());
  REQUIRE_FALSE(proof.ok());
  CHECK(proof.status().code() == Code::kInvalidArgument);
  CHECK_THAT(proof.status().message(), Contains("cpu0: prove_start"));
  CHECK_THAT(proof.status().message(), Contains("does not satisfy"));
}

TEST_CASE("compute plugins: backends that cannot run name the reason", "[compute]") {
  auto unknown = open("no_such_backend");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == Code::kNotFound);
  CHECK_THAT(unknown.status().message(), Contains("compute.backend no_such_backend"));
  CHECK_THAT(unknown.status().message(), Contains("no_such_backend.plugin.toml"));

  auto memory_kind = open("pageable");
  REQUIRE_FALSE(memory_kind.ok());
  CHECK(memory_kind.status().code() == Code::kInvalidArgument);
  CHECK_THAT(memory_kind.status().message(), Contains("is a memory plugin, expected a compute"));

  auto with_devices = open("cpu", {"0"});
  REQUIRE_FALSE(with_devices.ok());
  CHECK(with_devices.status().code() == Code::kInvalidArgument);
  CHECK_THAT(with_devices.status().message(), Contains("takes no device list"));

  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  ComputeConfig budgeted;
  budgeted.device_budget_bytes = 8ull << 30;
  auto cpu_budget = pipeline::open_compute_backend(budgeted, registry, 0);
  REQUIRE_FALSE(cpu_budget.ok());
  CHECK(cpu_budget.status().code() == Code::kInvalidArgument);
  CHECK_THAT(cpu_budget.status().message(), Contains("compute.device_budget"));
  CHECK_THAT(cpu_budget.status().message(), Contains("no device memory"));

  const CudaInfo cuda = read_cuda_info();
  const bool cuda_built = std::filesystem::exists(std::string(ZKPIPE_TEST_PLUGIN_DIR) + "/cuda.so");
  REQUIRE(cuda_built == zkpipe::testing::kCudaBuilt);
  if (!zkpipe::testing::feature_present(cuda_built, "CUDA", "cuda.so (the CUDA build, nvcc)")) {
    return;
  }
  if (!cuda.status.ok()) {
    auto gpu = open("cuda");
    REQUIRE_FALSE(gpu.ok());
    CHECK(gpu.status().code() == Code::kUnavailable);
    CHECK_THAT(gpu.status().message(), Contains("compute.backend cuda"));
    CHECK_THAT(gpu.status().message(), Contains("cuda.so"));
  }
}
