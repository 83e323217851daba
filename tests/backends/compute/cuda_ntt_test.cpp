// tests/backends/compute/cuda_ntt_test.cpp: the device NTT (backends/compute/cuda/ntt.h) against
// the CPU NTT (crypto/ntt.h) and the CPU quotient sequence of groth16/prover.cpp: ntt_nr / ntt_rn
// both directions, batch 2, in place and out of place from mapped host memory, the natural and
// coset transforms, scale_powers and the quotient, for log_n 1..20 and 24. Tagged [cuda]: run on
// GPU hosts only; without a usable device every test fails with the CUDA error (never skips).
// Thread-safety: each test owns its stream and buffers.
#if defined(ZKPIPE_HAVE_CUDA)

#include <cuda_runtime_api.h>

#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "ntt.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/sdk/cuda_check.h"

using namespace zkpipe;
using namespace zkpipe::cuda_backend;
using crypto::Fr;
using crypto::NttDirection;

namespace {

#define REQUIRE_OK(expr)                      \
  do {                                        \
    const ::zkpipe::Status st_ = (expr);      \
    INFO(#expr << " -> " << st_.to_string()); \
    REQUIRE(st_.ok());                        \
  } while (0)

std::vector<unsigned> sizes() {
  std::vector<unsigned> s;
  for (unsigned k = 1; k <= 20; ++k) s.push_back(k);
  s.push_back(24);
  return s;
}

std::vector<Fr> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { REQUIRE_OK(ZKP_CUDA_STATUS(cudaStreamCreate(&s))); }
  ~Stream() {
    if (s) cudaStreamDestroy(s);
  }
  Status sync() const { return ZKP_CUDA_STATUS(cudaStreamSynchronize(s)); }
};

struct DeviceVec {
  Fr* p = nullptr;
  size_t n = 0;
  explicit DeviceVec(size_t count) : n(count) {
    REQUIRE_OK(ZKP_CUDA_STATUS(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(Fr))));
  }
  ~DeviceVec() { cudaFree(p); }
  void upload(const std::vector<Fr>& v, const Stream& s) {
    REQUIRE_OK(ZKP_CUDA_STATUS(
        cudaMemcpyAsync(p, v.data(), v.size() * sizeof(Fr), cudaMemcpyHostToDevice, s.s)));
  }
  std::vector<Fr> download(const Stream& s) const {
    std::vector<Fr> v(n);
    REQUIRE_OK(
        ZKP_CUDA_STATUS(cudaMemcpyAsync(v.data(), p, n * sizeof(Fr), cudaMemcpyDeviceToHost, s.s)));
    REQUIRE_OK(s.sync());
    return v;
  }
};

// cudaHostAllocMapped memory and its device alias.
struct MappedVec {
  Fr* host = nullptr;
  Fr* dev = nullptr;
  explicit MappedVec(const std::vector<Fr>& v) {
    REQUIRE_OK(ZKP_CUDA_STATUS(cudaHostAlloc(reinterpret_cast<void**>(&host), v.size() * sizeof(Fr),
                                             cudaHostAllocMapped)));
    std::copy(v.begin(), v.end(), host);
    REQUIRE_OK(ZKP_CUDA_STATUS(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0)));
  }
  ~MappedVec() { cudaFreeHost(host); }
};

NttTwiddles make_twiddles(const Stream& s) {
  auto tw = NttTwiddles::create(24, s.s);
  INFO(tw.status().to_string());
  REQUIRE(tw.ok());
  return std::move(tw).value();
}

void cpu_quotient(Fr* a, Fr* b, Fr* c, size_t n) {
  const Fr n_inv = Fr::from_u64(n).inverse();
  const Fr g = crypto::ntt_coset_shift();
  for (Fr* v : {a, b, c}) {
    REQUIRE_OK(crypto::ntt_nr(v, n, NttDirection::kInverse));
    REQUIRE_OK(crypto::ntt_scale_powers(v, n, n_inv, g, true));
    REQUIRE_OK(crypto::ntt_rn(v, n, NttDirection::kForward));
  }
  const Fr z_inv = (g.pow_u64(n) - Fr::one()).inverse();
  for (size_t i = 0; i < n; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
  REQUIRE_OK(crypto::ntt_nr(a, n, NttDirection::kInverse));
  REQUIRE_OK(crypto::ntt_scale_powers(a, n, n_inv, g.inverse(), true));
  REQUIRE_OK(crypto::bit_reverse_permute(a, n));
}

}  // namespace

TEST_CASE("CudaNtt: ntt_nr and ntt_rn equal the CPU, batch 2, mapped source", "[cuda]") {
  Stream s;
  const NttTwiddles tw = make_twiddles(s);
  REQUIRE(tw.bytes() == make_twiddle_layout(24)->bytes());
  for (unsigned log_n : sizes()) {
    const size_t n = size_t{1} << log_n;
    for (NttDirection d : {NttDirection::kForward, NttDirection::kInverse}) {
      for (bool rn : {false, true}) {
        CAPTURE(log_n, d == NttDirection::kForward, rn);
        const auto x = random_vector(2 * n, log_n * 7 + rn);
        auto want = x;
        for (size_t k = 0; k < 2; ++k) {
          REQUIRE_OK(rn ? crypto::ntt_rn(want.data() + k * n, n, d)
                        : crypto::ntt_nr(want.data() + k * n, n, d));
        }
        auto run = rn ? ntt_rn : ntt_nr;
        DeviceVec buf(2 * n);
        buf.upload(x, s);
        REQUIRE_OK(run(buf.p, nullptr, log_n, d, tw, s.s, 2));
        REQUIRE(buf.download(s) == want);
        MappedVec src(x);
        DeviceVec out(2 * n);
        REQUIRE_OK(run(out.p, src.dev, log_n, d, tw, s.s, 2));
        REQUIRE(out.download(s) == want);
        REQUIRE(std::equal(x.begin(), x.end(), src.host));  // the source is only read
      }
    }
  }
}

TEST_CASE("CudaNtt: natural and coset transforms and scale_powers equal the CPU", "[cuda]") {
  Stream s;
  const NttTwiddles tw = make_twiddles(s);
  using Gpu = Status (*)(Fr*, size_t, const NttTwiddles&, cudaStream_t);
  using Cpu = Status (*)(Fr*, size_t, unsigned);
  const std::pair<Gpu, Cpu> pairs[] = {{ntt_forward, crypto::ntt_forward},
                                       {ntt_inverse, crypto::ntt_inverse},
                                       {ntt_coset_forward, crypto::ntt_coset_forward},
                                       {ntt_coset_inverse, crypto::ntt_coset_inverse}};
  for (unsigned log_n : sizes()) {
    const size_t n = size_t{1} << log_n;
    for (size_t f = 0; f < 4; ++f) {
      CAPTURE(log_n, f);
      auto x = random_vector(n, 100 * log_n + f);
      DeviceVec buf(n);
      buf.upload(x, s);
      REQUIRE_OK(pairs[f].first(buf.p, n, tw, s.s));
      REQUIRE_OK(pairs[f].second(x.data(), n, 0));
      REQUIRE(buf.download(s) == x);
    }
    for (bool brv : {false, true}) {
      CAPTURE(log_n, brv);
      auto x = random_vector(2 * n, 5 * log_n + brv);
      DeviceVec buf(2 * n);
      buf.upload(x, s);
      const Fr c = Fr::from_u64(99), g = crypto::ntt_coset_shift();
      REQUIRE_OK(scale_powers(buf.p, n, c, g, brv, s.s, 2));
      REQUIRE_OK(crypto::ntt_scale_powers(x.data(), n, c, g, brv));
      REQUIRE_OK(crypto::ntt_scale_powers(x.data() + n, n, c, g, brv));
      REQUIRE(buf.download(s) == x);
    }
  }
}

TEST_CASE("CudaNtt: the quotient equals prover.cpp's CPU sequence", "[cuda]") {
  Stream s;
  const NttTwiddles tw = make_twiddles(s);
  for (unsigned log_n : sizes()) {
    const size_t n = size_t{1} << log_n;
    for (bool contiguous : {true, false}) {  // batched coset transforms or one by one
      CAPTURE(log_n, contiguous);
      auto abc = random_vector(3 * n, 9000 + log_n);
      DeviceVec buf(3 * n + 1);
      buf.upload(abc, s);
      Fr* a = buf.p;
      Fr* b = a + n + (contiguous ? 0 : 1);  // one element of gap breaks the batching
      Fr* c = b + n;
      if (!contiguous) {
        REQUIRE_OK(ZKP_CUDA_STATUS(
            cudaMemcpyAsync(b, abc.data() + n, 2 * n * sizeof(Fr), cudaMemcpyHostToDevice, s.s)));
      }
      REQUIRE_OK(quotient(a, b, c, n, tw, s.s));
      cpu_quotient(abc.data(), abc.data() + n, abc.data() + 2 * n, n);
      const auto got = buf.download(s);
      REQUIRE(std::equal(abc.begin(), abc.begin() + n, got.begin()));
    }
  }
}

TEST_CASE("CudaNtt: sizes beyond the twiddles and bad batches are refused", "[cuda]") {
  Stream s;
  const NttTwiddles tw = make_twiddles(s);
  DeviceVec buf(4);
  auto st = ntt_nr(buf.p, nullptr, 25, NttDirection::kForward, tw, s.s);
  REQUIRE(st.code() == Code::kInvalidArgument);
  REQUIRE_THAT(st.message(), Catch::Contains("log_n 25"));
  st = ntt_rn(buf.p, nullptr, 2, NttDirection::kForward, tw, s.s, 0);
  REQUIRE(st.code() == Code::kInvalidArgument);
  REQUIRE(scale_powers(buf.p, 3, Fr::one(), Fr::one(), false, s.s).code() ==
          Code::kInvalidArgument);
}

#endif  // ZKPIPE_HAVE_CUDA
