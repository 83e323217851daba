// The GPU side of the BLS12-381 core (zkpipe/crypto/device_check.h): layout checks at compile
// time in both nvcc passes, and a self-test kernel that runs the shared ZKP_HD arithmetic on the
// device against the host's results. Thread-safety: see the header.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/device_check.h"
#include "zkpipe/crypto/field_edges.h"
#include "zkpipe/sdk/cuda_check.h"

namespace zkpipe::crypto {

// The same numbers in the host pass and the device pass: one layout on both sides, so buffers
// of field elements and points move between them by plain copies.
static_assert(sizeof(Fp) == 48 && alignof(Fp) == 8 && Fp::kLimbs == 6);
static_assert(sizeof(Fr) == 32 && alignof(Fr) == 8 && Fr::kLimbs == 4);
static_assert(sizeof(Fp2) == 96 && offsetof(Fp2, c1) == 48);
static_assert(sizeof(G1) == 3 * sizeof(Fp) && offsetof(G1, y) == 48 && offsetof(G1, z) == 96);
static_assert(sizeof(G2) == 3 * sizeof(Fp2) && offsetof(G2, z) == 192);
static_assert(offsetof(G1Affine, y) == 48 && offsetof(G2Affine, y) == 96);
static_assert(std::is_trivially_copyable_v<Fp> && std::is_trivially_copyable_v<Fr> &&
              std::is_trivially_copyable_v<G1> && std::is_trivially_copyable_v<G2Affine>);
static_assert(Fp::kModulus[0] == 0xb9feffffffffaaabull && Fp::kInv == 0x89f3fffcfffcfffdull);
static_assert(Fr::kModulus[3] == 0x73eda753299d7d48ull && Fr::kInv == 0xfffffffeffffffffull);

namespace {

struct Inputs {
  Fp a, b;
  Fr c, d;
  Fp2 e, f;
  G1 p, q;
  G1Affine qa;
};
struct Outputs {
  Fp ab, aa, a_plus_b, a_minus_b;
  Fr cd, cc, c_plus_d, c_minus_d;
  Fp2 ef;
  G1 pq, pp, pqa;
};

__global__ void self_test_kernel(const Inputs* in, Outputs* out, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const Inputs& x = in[i];
  Outputs& y = out[i];
  y.ab = x.a * x.b;
  y.aa = x.a.sqr();
  y.cd = x.c * x.d;
  y.cc = x.c.sqr();
  y.a_plus_b = x.a + x.b;
  y.a_minus_b = x.a - x.b;
  y.c_plus_d = x.c + x.d;
  y.c_minus_d = x.c - x.d;
  y.ef = x.e * x.f;
  y.pq = x.p + x.q;
  y.pp = x.p.dbl();
  y.pqa = x.p.add_mixed(x.qa);
}

template <typename T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct DeviceBuffers {
  Inputs* in = nullptr;
  Outputs* out = nullptr;
  ~DeviceBuffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

}  // namespace

Status crypto_device_self_test(int device, size_t n) {
  int count = 0;
  ZKP_CUDA_OK(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count) {
    return unavailable("crypto device self-test: no CUDA device " + std::to_string(device) + " (" +
                       std::to_string(count) + " present)");
  }
  ZKP_CUDA_OK(cudaSetDevice(device));
  std::mt19937_64 rng(0x5eed);
  const G1 g1 = G1::from_affine(g1_generator());
  std::vector<Inputs> in(n);
  G1 p = g1 * Fr::random(rng);
  for (size_t i = 0; i < n; ++i) {
    Inputs& x = in[i];
    x.a = Fp::random(rng), x.b = Fp::random(rng);
    x.c = Fr::random(rng), x.d = Fr::random(rng);
    x.e = {Fp::random(rng), Fp::random(rng)}, x.f = {Fp::random(rng), Fp::random(rng)};
    x.p = p, x.q = p.dbl() + g1, x.qa = x.q.to_affine();
    p = p + g1;
  }
  // The first pairs are every pair of the field operations' edge values (those the CPU tests use).
  const std::vector<Fp> fp_edges = field_edge_values<Fp>();
  const std::vector<Fr> fr_edges = field_edge_values<Fr>();
  for (size_t i = 0; i < n && i < fp_edges.size() * fp_edges.size(); ++i) {
    in[i].a = fp_edges[i / fp_edges.size()], in[i].b = fp_edges[i % fp_edges.size()];
  }
  for (size_t i = 0; i < n && i < fr_edges.size() * fr_edges.size(); ++i) {
    in[i].c = fr_edges[i / fr_edges.size()], in[i].d = fr_edges[i % fr_edges.size()];
  }
  DeviceBuffers buf;
  ZKP_CUDA_OK(cudaMalloc(&buf.in, n * sizeof(Inputs)));
  ZKP_CUDA_OK(cudaMalloc(&buf.out, n * sizeof(Outputs)));
  ZKP_CUDA_OK(cudaMemcpy(buf.in, in.data(), n * sizeof(Inputs), cudaMemcpyHostToDevice));
  const unsigned threads = 128;
  self_test_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(buf.in, buf.out,
                                                                                    n);
  ZKP_CUDA_OK(cudaGetLastError());
  std::vector<Outputs> out(n);
  ZKP_CUDA_OK(cudaMemcpy(out.data(), buf.out, n * sizeof(Outputs), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) {
    const Inputs& x = in[i];
    const Outputs& y = out[i];
    const char* bad = nullptr;
    if (!same_bytes(y.ab, x.a * x.b))
      bad = "Fp product";
    else if (!same_bytes(y.aa, x.a * x.a))
      bad = "Fp square";
    else if (!same_bytes(y.cd, x.c * x.d))
      bad = "Fr product";
    else if (!same_bytes(y.cc, x.c * x.c))
      bad = "Fr square";
    else if (!same_bytes(y.a_plus_b, x.a + x.b) || !same_bytes(y.a_minus_b, x.a - x.b))
      bad = "Fp sum or difference";
    else if (!same_bytes(y.c_plus_d, x.c + x.d) || !same_bytes(y.c_minus_d, x.c - x.d))
      bad = "Fr sum or difference";
    else if (!same_bytes(y.ef, x.e * x.f))
      bad = "Fp2 product";
    else if (!same_bytes(y.pq, x.p + x.q))
      bad = "G1 addition";
    else if (!same_bytes(y.pp, x.p.dbl()))
      bad = "G1 doubling";
    else if (!same_bytes(y.pqa, x.p.add_mixed(x.qa)))
      bad = "G1 mixed addition";
    if (bad != nullptr) {
      return internal_error(std::string("crypto device self-test: ") + bad +
                            " differs from the host at index " + std::to_string(i));
    }
  }
  return Status();
}

}  // namespace zkpipe::crypto
