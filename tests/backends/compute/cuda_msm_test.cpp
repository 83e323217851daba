// The GPU G1 MSM (backends/compute/cuda/msm.h) against crypto::msm on a GPU: n = 1, 1000, 2^16,
// 2^20, zero scalars, infinity bases, one scratch reused across calls, and a run chunked into
// passes by a plan for little device memory. [cuda]: run on GPU hosts only; fails without a device.
#if defined(ZKPIPE_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "msm.h"
#include "msm_plan.h"
#include "zkpipe/crypto/fixed_base.h"
#include "zkpipe/crypto/msm.h"

using namespace zkpipe::cuda_backend;
using zkpipe::crypto::Fr;
using zkpipe::crypto::G1;
using zkpipe::crypto::G1Affine;

namespace {

// These tests run on GPU hosts only (excluded by tag elsewhere); without a device they fail.
void require_device() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  INFO(cudaGetErrorString(err));
  REQUIRE(err == cudaSuccess);
  REQUIRE(count > 0);
}

[[gnu::noinline]] bool same(const G1& a, const G1& b) {
  return a == b;
}

// A device copy of a host vector (freed on scope exit).
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host) {
    REQUIRE(cudaMalloc(&ptr_, host.size() * sizeof(T) + 1) == cudaSuccess);
    REQUIRE(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) ==
            cudaSuccess);
  }
  ~DeviceArray() { cudaFree(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  const T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
};

std::vector<Fr> random_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> k(n);
  for (auto& x : k) x = Fr::random(rng);
  return k;
}

// n random points k_i G (fixed-base: one table, one batched addition per window and point).
std::vector<G1Affine> random_bases(size_t n, std::mt19937_64& rng) {
  const std::vector<Fr> k = random_scalars(n, rng);
  std::vector<G1Affine> out(n);
  zkpipe::crypto::fixed_base_mul(zkpipe::crypto::g1_generator(), k.data(), n, out.data());
  return out;
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { REQUIRE(cudaStreamCreate(&s) == cudaSuccess); }
  ~Stream() { cudaStreamDestroy(s); }
};

G1 gpu_msm(const std::vector<G1Affine>& bases, const std::vector<Fr>& k, MsmScratch& scratch,
           cudaStream_t stream, const MsmOptions& options = {}) {
  const DeviceArray<G1Affine> db(bases);
  const DeviceArray<Fr> dk(k);
  const auto r = msm_g1(db.get(), dk.get(), bases.size(), scratch, stream, options);
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("CUDA MSM: G1 matches crypto::msm", "[cuda]") {
  require_device();
  std::mt19937_64 rng(21);
  Stream stream;
  MsmScratch scratch;
  for (size_t n : {size_t{1}, size_t{1000}, size_t{1} << 16, size_t{1} << 20}) {
    INFO("n = " << n);
    const auto bases = random_bases(n, rng);
    const auto k = random_scalars(n, rng);
    CHECK(
        same(gpu_msm(bases, k, scratch, stream.s), zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
  CHECK(scratch.bytes() > 0);  // reused and grown across the sizes above
}

TEST_CASE("CUDA MSM: zero scalars, infinity bases, n = 0", "[cuda]") {
  require_device();
  std::mt19937_64 rng(22);
  Stream stream;
  MsmScratch scratch;
  const size_t n = 4096;
  auto bases = random_bases(n, rng);
  auto k = random_scalars(n, rng);
  CHECK(gpu_msm(bases, std::vector<Fr>(n, Fr::zero()), scratch, stream.s).is_identity());
  for (size_t i = 0; i < n; i += 3) k[i] = Fr::zero();
  for (size_t i = 0; i < n; i += 5) bases[i] = G1Affine::identity();
  CHECK(same(gpu_msm(bases, k, scratch, stream.s), zkpipe::crypto::msm(bases.data(), k.data(), n)));
  const std::vector<Fr> equal(n, Fr::random(rng));  // one giant bucket per window
  CHECK(same(gpu_msm(bases, equal, scratch, stream.s),
             zkpipe::crypto::msm(bases.data(), equal.data(), n)));
  const auto r = msm_g1(nullptr, nullptr, 0, scratch, stream.s);
  REQUIRE(r.ok());
  CHECK(r->is_identity());
}

TEST_CASE("CUDA MSM: one scratch reused across calls and window sizes", "[cuda]") {
  require_device();
  std::mt19937_64 rng(23);
  Stream stream;
  MsmScratch scratch;
  const size_t n = 1 << 14;
  const auto bases = random_bases(n, rng);
  for (unsigned c : {16u, 8u, 12u, 0u}) {
    INFO("c = " << c);
    const auto k = random_scalars(n, rng);
    CHECK(same(gpu_msm(bases, k, scratch, stream.s, MsmOptions{c, uint64_t{8} << 30}),
               zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
}

TEST_CASE("CUDA MSM: chunked passes for little device memory", "[cuda]") {
  require_device();
  std::mt19937_64 rng(24);
  Stream stream;
  MsmScratch scratch;
  const size_t n = size_t{1} << 18;
  const auto bases = random_bases(n, rng);
  const auto k = random_scalars(n, rng);
  const MsmGpuPlan full = plan_msm_g1(n, uint64_t{8} << 30);
  const MsmOptions small{0, msm_split_bytes(n).split() + full.scratch.pippenger() / 4};
  REQUIRE(plan_msm_g1(n, full.scratch.pippenger() / 4).passes >= 2);
  CHECK(same(gpu_msm(bases, k, scratch, stream.s, small),
             zkpipe::crypto::msm(bases.data(), k.data(), n)));
}

TEST_CASE("CUDA MSM: PoRep-like scalars, all ones, one bucket of 2^20", "[cuda]") {
  require_device();
  std::mt19937_64 rng(25);
  Stream stream;
  MsmScratch scratch;
  const size_t n = size_t{1} << 20;
  const auto bases = random_bases(n, rng);
  // A real porep 2KiB witness's shares (zkpipe-bench-synthesis --scalars), at random places.
  std::vector<Fr> k = random_scalars(n, rng);
  std::uniform_real_distribution<double> u(0, 1);
  for (Fr& x : k) {
    const double v = u(rng);
    if (v < 0.480) {
      x = Fr::zero();
    } else if (v < 0.961) {
      x = Fr::one();
    }
  }
  CHECK(same(gpu_msm(bases, k, scratch, stream.s), zkpipe::crypto::msm(bases.data(), k.data(), n)));
  const std::vector<Fr> ones(n, Fr::one()), fives(n, Fr::from_u64(5));
  const G1 sum = zkpipe::crypto::msm(bases.data(), ones.data(), n);
  CHECK(same(gpu_msm(bases, ones, scratch, stream.s), sum));
  CHECK(same(gpu_msm(bases, fives, scratch, stream.s), sum * Fr::from_u64(5)));
}
#endif
