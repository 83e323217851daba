// tests/backends/compute/cuda_prover_test.cpp: the CUDA backend's prove_start against the CPU
// prover: with the same randomness the proofs are bit for bit the same, for a/b/c in pageable,
// pinned and mapped memory, with resident and with streamed bases, and several concurrent
// lanes; an unsatisfied witness is refused; the backend names devices and opens by UUID.
// [cuda]: run on GPU hosts only (scripts/gpu-check); excluded from CTest elsewhere.
#if defined(ZKPIPE_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

#include "prover.h"
#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/pipeline/compute.h"
#include "zkpipe/plugin.h"
#include "zkpipe/system.h"

namespace zkpipe::cuda_backend {
namespace {

using crypto::Fr;
using groth16::ProverRandomness;

struct Built {
  groth16::R1cs r1cs;
  std::vector<Fr> inputs, aux;
  groth16::ProvingKey pk;
};

Built build(uint64_t constraints) {
  Built b;
  auto cs = groth16::ConstraintSystem::recorder();
  REQUIRE(groth16::synthesize_example({"synthetic", constraints, 3}, cs).ok());
  b.r1cs = cs.take_r1cs();
  std::tie(b.inputs, b.aux) = cs.take_witness();
  auto pk = groth16::setup(b.r1cs, groth16::ToxicWaste::from_seed(11));
  REQUIRE(pk.ok());
  b.pk = std::move(pk).value();
  return b;
}

// a/b/c as one buffer of 3n elements, in memory of the kind asked.
enum class Kind { kPageable, kPinned, kMapped };
struct HostAbc {
  Fr* p = nullptr;
  Kind kind;
  std::vector<Fr> pageable;
  HostAbc(size_t n, Kind k) : kind(k) {
    if (k == Kind::kPageable) {
      pageable.resize(3 * n);
      p = pageable.data();
    } else {
      const unsigned flags = k == Kind::kMapped ? cudaHostAllocMapped : cudaHostAllocPortable;
      REQUIRE(cudaHostAlloc(reinterpret_cast<void**>(&p), 3 * n * sizeof(Fr), flags) ==
              cudaSuccess);
    }
  }
  ~HostAbc() {
    if (kind != Kind::kPageable) cudaFreeHost(p);
  }
};

groth16::Proof gpu_proof(DeviceProver& d, const Built& b, Kind kind, const ProverRandomness& rand,
                         GpuStartStats& stats) {
  const size_t n = b.pk.domain_size;
  HostAbc abc(n, kind);
  const groth16::WitnessView w{b.inputs, b.aux};
  REQUIRE(groth16::evaluate_abc(b.r1cs, w, abc.p, abc.p + n, abc.p + 2 * n, n).ok());
  auto pending = d.prove_start(b.pk, {w, abc.p, abc.p + n, abc.p + 2 * n, n}, stats);
  INFO(pending.status().to_string());
  REQUIRE(pending.ok());
  auto proof = groth16::prove_finish(std::move(*pending), rand);
  REQUIRE(proof.ok());
  return *proof;
}

groth16::Proof cpu_proof(const Built& b, const ProverRandomness& rand) {
  const size_t n = b.pk.domain_size;
  std::vector<Fr> abc(3 * n);
  const groth16::WitnessView w{b.inputs, b.aux};
  REQUIRE(groth16::evaluate_abc(b.r1cs, w, abc.data(), abc.data() + n, abc.data() + 2 * n, n).ok());
  auto proof = groth16::prove(b.pk, {w, abc.data(), abc.data() + n, abc.data() + 2 * n, n}, rand);
  REQUIRE(proof.ok());
  return *proof;
}

CudaDevice first_device() {
  const CudaInfo cuda = read_cuda_info();
  INFO(cuda.status.to_string());
  REQUIRE(cuda.status.ok());
  REQUIRE_FALSE(cuda.devices.empty());
  return cuda.devices.front();
}

TEST_CASE("CUDA prover: proofs equal the CPU's bit for bit for every buffer kind", "[cuda]") {
  const ProverRandomness rand{Fr::from_u64(12345), Fr::from_u64(67890)};
  for (uint64_t constraints : {uint64_t{5}, uint64_t{1000}, uint64_t{1} << 16}) {
    const Built b = build(constraints);
    const groth16::Proof want = cpu_proof(b, rand);
    for (bool mapped : {false, true}) {
      DeviceOptions o;
      o.mapped = mapped;
      auto d = DeviceProver::open(first_device(), o);
      REQUIRE(d.ok());
      for (Kind kind : {Kind::kPageable, Kind::kPinned, Kind::kMapped}) {
        INFO("constraints " << constraints << " mapped backend " << mapped << " kind "
                            << static_cast<int>(kind));
        GpuStartStats stats;
        CHECK(gpu_proof(**d, b, kind, rand, stats) == want);
        const TransferPath path = kind == Kind::kPageable ? TransferPath::kPageable
                                  : mapped                ? TransferPath::kMapped
                                                          : TransferPath::kPinned;
        CHECK(stats.path == path);
        CHECK(stats.h2d_bytes >= 3 * b.pk.domain_size * sizeof(Fr));
      }
    }
    const auto pvk = groth16::PreparedVerifyingKey(b.pk.vk);
    CHECK(*groth16::verify(pvk, want, {b.inputs.begin() + 1, b.inputs.end()}));
  }
}

TEST_CASE("CUDA prover: streamed bases give the same proof as resident ones", "[cuda]") {
  const ProverRandomness rand{Fr::from_u64(5), Fr::from_u64(6)};
  const Built b = build(20000);
  DeviceOptions o;
  o.stream_chunk_points = 4096;  // several chunks per MSM
  auto d = DeviceProver::open(first_device(), o);
  REQUIRE(d.ok());
  GpuStartStats stats;
  CHECK(gpu_proof(**d, b, Kind::kPinned, rand, stats) == cpu_proof(b, rand));
  CHECK_FALSE(stats.bases_resident);
  CHECK(stats.bases_bytes > 0);
}

TEST_CASE("CUDA prover: concurrent lanes on one device all prove correctly", "[cuda]") {
  const ProverRandomness rand{Fr::from_u64(1), Fr::from_u64(2)};
  const Built b = build(1 << 14);
  const groth16::Proof want = cpu_proof(b, rand);
  DeviceOptions o;
  o.lanes = 3;
  auto d = DeviceProver::open(first_device(), o);
  REQUIRE(d.ok());
  std::vector<groth16::Proof> got(6);
  std::vector<std::string> errors(6);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int k = t; k < 6; k += 3) {
        const size_t n = b.pk.domain_size;
        std::vector<Fr> abc(3 * n);
        const groth16::WitnessView w{b.inputs, b.aux};
        (void)groth16::evaluate_abc(b.r1cs, w, abc.data(), abc.data() + n, abc.data() + 2 * n, n);
        GpuStartStats stats;
        auto p =
            (*d)->prove_start(b.pk, {w, abc.data(), abc.data() + n, abc.data() + 2 * n, n}, stats);
        if (!p.ok()) {
          errors[k] = p.status().to_string();
          continue;
        }
        auto proof = groth16::prove_finish(std::move(*p), rand);
        if (proof.ok()) got[k] = *proof;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int k = 0; k < 6; ++k) {
    INFO(errors[k]);
    CHECK(got[k] == want);
  }
}

TEST_CASE("CUDA prover: an unsatisfied witness is refused", "[cuda]") {
  Built b = build(100);
  b.aux[3] += Fr::one();
  auto d = DeviceProver::open(first_device(), {});
  REQUIRE(d.ok());
  const size_t n = b.pk.domain_size;
  std::vector<Fr> abc(3 * n);
  const groth16::WitnessView w{b.inputs, b.aux};
  REQUIRE(groth16::evaluate_abc(b.r1cs, w, abc.data(), abc.data() + n, abc.data() + 2 * n, n).ok());
  GpuStartStats stats;
  auto p = (*d)->prove_start(b.pk, {w, abc.data(), abc.data() + n, abc.data() + 2 * n, n}, stats);
  REQUIRE_FALSE(p.ok());
  CHECK(p.status().message().find("does not satisfy") != std::string::npos);
}

TEST_CASE("CUDA backend: the cuda plugin opens by UUID, names its devices, proves through the ABI",
          "[cuda]") {
  const CudaDevice dev = first_device();
  PluginRegistry registry({ZKPIPE_TEST_PLUGIN_DIR});
  ComputeConfig config;
  config.backend = "cuda";
  config.devices = {dev.uuid};
  auto backend = pipeline::open_compute_backend(config, registry, 0);
  INFO(backend.status().to_string());
  REQUIRE(backend.ok());
  CHECK((*backend)->name() == "cuda");
  REQUIRE((*backend)->device_count() == 1);
  CHECK((*backend)->device_name(0) == "cuda" + std::to_string(dev.index));
  CHECK((*backend)->device_status(0).ok());
  const ProverRandomness rand{Fr::from_u64(3), Fr::from_u64(4)};
  const Built b = build(3000);
  const size_t n = b.pk.domain_size;
  std::vector<Fr> abc(3 * n);
  const groth16::WitnessView w{b.inputs, b.aux};
  REQUIRE(groth16::evaluate_abc(b.r1cs, w, abc.data(), abc.data() + n, abc.data() + 2 * n, n).ok());
  pipeline::StartStats stats;
  auto p = (*backend)->prove_start(
      0, {b.pk, {w, abc.data(), abc.data() + n, abc.data() + 2 * n, n}}, stats);
  REQUIRE(p.ok());
  CHECK(stats.h2d_path == "pageable");
  auto proof = (*backend)->prove_finish(std::move(*p), rand);
  REQUIRE(proof.ok());
  CHECK(*proof == cpu_proof(b, rand));
  config.devices = {"GPU-00000000-0000"};
  CHECK(pipeline::open_compute_backend(config, registry, 0).status().code() ==
        Code::kInvalidArgument);
}

// Host-side (no device needed): which CUDA errors lose the context, and what a failed device
// allocation says.
TEST_CASE("CUDA errors: sticky ones are told apart; allocations name what and how much",
          "[compute]") {
  for (cudaError_t e : {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorECCUncorrectable,
                        cudaErrorMisalignedAddress, cudaErrorAssert}) {
    CHECK(is_sticky(e));
  }
  for (cudaError_t e : {cudaSuccess, cudaErrorMemoryAllocation, cudaErrorInvalidValue,
                        cudaErrorInsufficientDriver, cudaErrorNoDevice}) {
    CHECK_FALSE(is_sticky(e));
  }
  int count = 0;
  const bool have_device = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  // 1 PiB: more than any device has.
  auto m = DeviceMemory::allocate(1ull << 50, "a/b/c", "cuda0");
  REQUIRE_FALSE(m.ok());
  INFO(m.status().to_string());
  CHECK(m.status().message().find("cuda0") != std::string::npos);
  if (have_device) {
    CHECK(m.status().code() == Code::kResourceExhausted);
    CHECK(m.status().message().find("a/b/c needs 1024 TiB") != std::string::npos);
  } else {
    CHECK(m.status().code() == Code::kUnavailable);
    CHECK(m.status().message().find("cudaMalloc") != std::string::npos);
  }
  auto none = DeviceMemory::allocate(0, "nothing", "cuda0");
  REQUIRE(none.ok());
  CHECK(none->bytes() == 0);
}

}  // namespace
}  // namespace zkpipe::cuda_backend
#endif  // ZKPIPE_HAVE_CUDA
