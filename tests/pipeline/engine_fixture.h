// tests/pipeline/engine_fixture.h: what the engine tests share: a config over the build's
// plugins (pageable memory, the test-only mimc_jobs proof type) with params made by the seeded
// setup in a per-process scratch directory; requests; an independent check of a job's proof
// against the params file; fault-injecting compute and memory wrappers.
// Thread-safety: FaultyCompute's counters are atomic; the rest is for one test thread.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/pipeline/engine.h"

namespace zkpipe::testing {

inline TempDir& scratch() {
  static TempDir dir("zkpipe_pipeline_test");
  return dir;
}

// `pipeline` and `compute` are the insides of those sections ("retries: 1"); `params_dir`
// replaces the shared scratch params directory.
inline Config test_config(const std::string& pipeline = "",
                          const std::string& compute = "threads: 1",
                          const std::string& params_dir = "") {
  const std::string yaml = fmt::format(
      "version: 1\nplugin_dirs: [{}, {}]\nlog: {{level: warn}}\nmemory: {{backend: pageable}}\n"
      "params: {{dir: {}, missing: setup}}\ncompute: {{{}}}\npipeline: {{{}}}\n",
      ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR,
      params_dir.empty() ? (scratch().path / "params").string() : params_dir, compute, pipeline);
  Result<Config> c = parse_config(yaml, "test.yaml");
  REQUIRE(c.ok());
  return *c;
}

inline pipeline::JobRequest mimc_request(uint64_t rounds, uint32_t partitions, uint64_t seed,
                                         pipeline::Priority priority = pipeline::Priority::kNormal,
                                         const std::string& extra = "") {
  pipeline::JobRequest r;
  r.proof_type = "mimc_jobs";
  const std::string json = fmt::format(R"({{"rounds": {}, "partitions": {}, "seed": {}{}}})",
                                       rounds, partitions, seed, extra);
  r.input.assign(json.begin(), json.end());
  r.priority = priority;
  return r;
}

// Checks every partition's proof of a finished job against the params file, independently of
// the engine's own verification, and that a changed public input is rejected.
inline void require_verified(const pipeline::JobResult& r) {
  INFO(r.status.to_string());
  REQUIRE(r.status.ok());
  REQUIRE(r.state == pipeline::JobState::kDone);
  REQUIRE(r.proof.size() == r.partitions.size() * groth16::kProofBytes);
  REQUIRE(r.public_inputs.size() == r.partitions.size());
  const std::string path = (scratch().path / "params" / (r.circuit_id + ".params")).string();
  Result<groth16::ProvingKey> pk =
      groth16::load_params(path, groth16::ParamsLoadOptions::trusted());
  REQUIRE(pk.ok());
  const groth16::PreparedVerifyingKey pvk(pk->vk);
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    Result<groth16::Proof> proof =
        groth16::decode_proof(r.proof.data() + p * groth16::kProofBytes, groth16::kProofBytes);
    REQUIRE(proof.ok());
    CHECK(*groth16::verify(pvk, *proof, r.public_inputs[p]));
    std::vector<groth16::Fr> wrong = r.public_inputs[p];
    wrong[0] = wrong[0] + groth16::Fr::one();
    CHECK_FALSE(*groth16::verify(pvk, *proof, wrong));
  }
}

// The `cpu` compute plugin of the build (through the compute ABI), one thread per call.
inline std::unique_ptr<pipeline::ComputeBackend> open_cpu_compute() {
  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  ComputeConfig config;
  config.threads = 1;
  auto backend = pipeline::open_compute_backend(config, registry, 0);
  REQUIRE(backend.ok());
  return std::move(*backend);
}

// Wraps a backend: the fail_start-th prove_start fails, the corrupt_finish-th prove_finish
// returns a proof with C replaced by A (a well-formed proof that does not verify); 0 = never.
class FaultyCompute final : public pipeline::ComputeBackend {
 public:
  // The fail_start-th prove_start fails; the corrupt_finish-th proof is corrupted; from the
  // quarantine_start-th prove_start on, the device is quarantined (that call fails too).
  FaultyCompute(int fail_start, int corrupt_finish, int quarantine_start = 0)
      : inner_(open_cpu_compute()),
        fail_start_(fail_start),
        corrupt_finish_(corrupt_finish),
        quarantine_start_(quarantine_start) {}
  std::string name() const override { return "faulty-cpu"; }
  size_t device_count() const override { return 1; }
  std::string device_name(size_t d) const override { return inner_->device_name(d); }
  Result<groth16::PendingProof> prove_start(size_t d, const pipeline::StartInput& input,
                                            pipeline::StartStats& stats) override {
    const int n = ++starts_;
    if (n == fail_start_) return internal_error("injected prove_start failure");
    if (quarantine_start_ > 0 && n >= quarantine_start_) {
      quarantined_ = true;
      return unavailable("injected sticky error");
    }
    return inner_->prove_start(d, input, stats);
  }
  Status device_status(size_t) const override {
    return quarantined_ ? unavailable("cpu0 is quarantined (injected)") : ok_status();
  }
  // What device_memory reports (the cpu backend has none: zeros, so status leaves it out).
  pipeline::DeviceMemoryStatus memory{};
  pipeline::DeviceMemoryStatus device_memory(size_t) const override { return memory; }
  Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                      const groth16::ProverRandomness& r) override {
    Result<groth16::Proof> proof = inner_->prove_finish(std::move(pending), r);
    if (proof.ok() && ++finishes_ == corrupt_finish_) proof->c = proof->a;
    return proof;
  }

 private:
  std::unique_ptr<pipeline::ComputeBackend> inner_;
  int fail_start_, corrupt_finish_, quarantine_start_;
  std::atomic<int> starts_{0}, finishes_{0};
  std::atomic<bool> quarantined_{false};
};

// The memory backend's allocate, failing the n-th call with RESOURCE_EXHAUSTED.
inline auto fail_nth_allocation(int n) {
  auto count = std::make_shared<std::atomic<int>>(0);
  return [count, n](MemoryPool& pool, uint64_t bytes) -> Result<Buffer> {
    if (++*count == n) return resource_exhausted("injected allocation failure");
    return pool.allocate(bytes);
  };
}

inline std::unique_ptr<pipeline::Engine> make_engine(const Config& config,
                                                     pipeline::EngineOptions options = {}) {
  Result<std::unique_ptr<pipeline::Engine>> e =
      pipeline::Engine::create(config, std::move(options));
  if (!e.ok()) FAIL(e.status().to_string());
  return std::move(*e);
}

}  // namespace zkpipe::testing
