// The Fr NTT: roots derived from the generator, every transform against a naive O(n^2) DFT and
// against the @noble/curves vectors (tests/vectors/ntt.json), round trips, the bit-reversed
// variants, the scalar and AVX-512 IFMA kernels against each other, and results that do not
// depend on the thread count.
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/ifma_emulated.h"
#include "crypto/random_points.h"
#include "crypto/vectors.h"
#include "engine/crypto/ntt_kernels.h"
#include "zkpipe/crypto/ntt.h"

using namespace zkpipe::crypto;
using zkpipe::test::field_from_hex;
using zkpipe::test::load_vectors;

namespace {

using zkpipe::test::random_vector;

// y_i = sum_j x_j (c w^i)^j.
std::vector<Fr> naive_dft(const std::vector<Fr>& x, const Fr& w, const Fr& c) {
  std::vector<Fr> y(x.size(), Fr::zero());
  Fr wi = c;
  for (size_t i = 0; i < x.size(); ++i) {
    Fr p = Fr::one();
    for (size_t j = 0; j < x.size(); ++j) {
      y[i] += x[j] * p;
      p *= wi;
    }
    wi *= w;
  }
  return y;
}

unsigned log2_of(size_t n) {
  unsigned k = 0;
  while ((size_t{1} << k) < n) ++k;
  return k;
}

}  // namespace

TEST_CASE("NTT: roots of unity have the exact order", "[crypto]") {
  for (unsigned k = 0; k <= kNttMaxLog; ++k) {
    const Fr w = ntt_root_of_unity(k);
    Fr p = w;
    for (unsigned i = 0; i < k; ++i) p = p.sqr();  // w^(2^k)
    CHECK(p.is_one());
    if (k > 0) {
      Fr half = w;
      for (unsigned i = 0; i + 1 < k; ++i) half = half.sqr();  // w^(2^(k-1))
      CHECK(half == -Fr::one());
    }
  }
  const auto v = load_vectors("ntt.json");
  CHECK(ntt_root_of_unity(32) == field_from_hex<Fr>(v["root_of_unity_2_32"]));
  CHECK(ntt_coset_shift() == Fr::from_u64(std::stoull(v["generator"].get<std::string>())));
}

TEST_CASE("NTT: every transform matches the naive DFT", "[crypto]") {
  for (size_t n : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    const unsigned k = log2_of(n);
    const Fr w = ntt_root_of_unity(k), wi = w.inverse(), g = ntt_coset_shift();
    const Fr n_inv = Fr::from_u64(n).inverse();
    const auto x = random_vector(n, 100 + n);
    auto y = x;
    REQUIRE(ntt_forward(y.data(), n, 2).ok());
    CHECK(y == naive_dft(x, w, Fr::one()));
    y = x;
    REQUIRE(ntt_coset_forward(y.data(), n, 2).ok());
    CHECK(y == naive_dft(x, w, g));
    y = x;
    REQUIRE(ntt_inverse(y.data(), n, 2).ok());
    auto expect = naive_dft(x, wi, Fr::one());
    for (auto& e : expect) e *= n_inv;
    CHECK(y == expect);
    y = x;
    REQUIRE(ntt_radix2(y.data(), n, NttDirection::kForward).ok());
    CHECK(y == naive_dft(x, w, Fr::one()));
  }
}

TEST_CASE("NTT: matches the @noble/curves vectors", "[crypto]") {
  const auto v = load_vectors("ntt.json");
  for (const auto& c : v["cases"]) {
    const unsigned k = c["k"].get<unsigned>();
    INFO("k = " << k);
    CHECK(ntt_root_of_unity(k) == field_from_hex<Fr>(c["omega"]));
    std::vector<Fr> in, fwd, coset;
    for (const auto& e : c["input"]) in.push_back(field_from_hex<Fr>(e));
    for (const auto& e : c["forward"]) fwd.push_back(field_from_hex<Fr>(e));
    for (const auto& e : c["coset_forward"]) coset.push_back(field_from_hex<Fr>(e));
    REQUIRE(in.size() == (size_t{1} << k));
    auto y = in;
    REQUIRE(ntt_forward(y.data(), y.size()).ok());
    CHECK(y == fwd);
    REQUIRE(ntt_inverse(y.data(), y.size()).ok());
    CHECK(y == in);
    y = in;
    REQUIRE(ntt_coset_forward(y.data(), y.size()).ok());
    CHECK(y == coset);
    REQUIRE(ntt_coset_inverse(y.data(), y.size()).ok());
    CHECK(y == in);
  }
}

TEST_CASE("NTT: round trips at large sizes, identical for 1 and 2 threads", "[crypto]") {
  for (unsigned k : {9u, 12u, 13u, 16u, 17u}) {
    const size_t n = size_t{1} << k;
    INFO("n = 2^" << k);
    const auto x = random_vector(n, k);
    auto a = x, b = x;
    REQUIRE(ntt_forward(a.data(), n, 1).ok());
    REQUIRE(ntt_forward(b.data(), n, 2).ok());
    CHECK(a == b);
    auto r = x;
    REQUIRE(ntt_radix2(r.data(), n, NttDirection::kForward).ok());
    CHECK(a == r);
    REQUIRE(ntt_inverse(a.data(), n, 2).ok());
    CHECK(a == x);
    a = x;
    b = x;
    REQUIRE(ntt_coset_forward(a.data(), n, 1).ok());
    REQUIRE(ntt_coset_forward(b.data(), n, 2).ok());
    CHECK(a == b);
    REQUIRE(ntt_coset_inverse(a.data(), n, 2).ok());
    CHECK(a == x);
  }
}

TEST_CASE("NTT: bit-reversed variants compose to the natural transforms", "[crypto]") {
  for (unsigned k : {0u, 1u, 2u, 5u, 10u, 11u, 14u, 15u}) {
    const size_t n = size_t{1} << k;
    INFO("n = 2^" << k);
    const auto x = random_vector(n, 7 + k);
    auto nat = x;
    REQUIRE(ntt_forward(nat.data(), n).ok());
    auto nr = x;
    REQUIRE(ntt_nr(nr.data(), n, NttDirection::kForward).ok());
    auto perm = nr;
    REQUIRE(bit_reverse_permute(perm.data(), n).ok());
    CHECK(perm == nat);
    auto rn = x;
    REQUIRE(bit_reverse_permute(rn.data(), n).ok());
    REQUIRE(ntt_rn(rn.data(), n, NttDirection::kForward).ok());
    CHECK(rn == nat);
    // The Groth16 quotient shape: evaluations -> coset evaluations without a permutation.
    const Fr n_inv = Fr::from_u64(n).inverse(), g = ntt_coset_shift();
    auto h = x;
    REQUIRE(ntt_nr(h.data(), n, NttDirection::kInverse).ok());
    REQUIRE(ntt_scale_powers(h.data(), n, n_inv, g, true).ok());
    REQUIRE(ntt_rn(h.data(), n, NttDirection::kForward).ok());
    auto expect = x;
    REQUIRE(ntt_inverse(expect.data(), n).ok());
    REQUIRE(ntt_coset_forward(expect.data(), n).ok());
    CHECK(h == expect);
    REQUIRE(ntt_nr(h.data(), n, NttDirection::kInverse).ok());
    REQUIRE(ntt_scale_powers(h.data(), n, n_inv, g.inverse(), true).ok());
    REQUIRE(bit_reverse_permute(h.data(), n).ok());
    REQUIRE(ntt_coset_inverse(expect.data(), n).ok());
    CHECK(h == expect);
  }
}

TEST_CASE("NTT: the scalar and vector kernels agree", "[crypto]") {
  for (unsigned k : {1u, 3u, 6u, 8u, 11u, 12u, 15u, 16u}) {
    const size_t n = size_t{1} << k;
    INFO("n = 2^" << k);
    for (auto dir : {NttDirection::kForward, NttDirection::kInverse}) {
      const auto x = random_vector(n, 300 + k);
      auto a = x, b = x, c = x, d = x;
      ntt_kernel_run(a.data(), n, dir, false, NttKernel::kScalar, 2);
      ntt_kernel_run(b.data(), n, dir, false, NttKernel::kAuto, 2);
      CHECK(a == b);
      ntt_kernel_run(c.data(), n, dir, true, NttKernel::kScalar, 1);
      ntt_kernel_run(d.data(), n, dir, true, NttKernel::kAuto, 1);
      CHECK(c == d);
    }
  }
}

// The IFMA kernel's own source over scalar stand-ins for the intrinsics (ifma_emulated.h): its
// arithmetic and data movement, tested on every CPU (the test above compares the native kernel
// only where the CPU has IFMA).
TEST_CASE("NTT: the IFMA kernel's source (emulated intrinsics) agrees with the scalar kernel",
          "[crypto]") {
  for (unsigned k : {6u, 7u, 8u, 11u, 12u, 15u}) {
    const size_t n = size_t{1} << k;
    INFO("n = 2^" << k);
    NttTables tables = *ntt_tables(n / 2, 1);
    ntt_ifma_form(tables.forward, tables.forward16, 0, 1);
    ntt_ifma_form(tables.inverse, tables.inverse16, 0, 1);
    for (auto dir : {NttDirection::kForward, NttDirection::kInverse}) {
      const NttTwiddles tw = ntt_twiddles(tables, n, dir);
      REQUIRE(tw.table16 != nullptr);
      for (bool gs : {false, true}) {
        INFO((gs ? "Gentleman-Sande" : "Cooley-Tukey")
             << (dir == NttDirection::kForward ? ", forward" : ", inverse"));
        const auto x = random_vector(n, 700 + k);
        auto scalar = x, emulated = x;
        ntt_scalar_run(scalar.data(), n, tw, gs, 2);
        emulated::ntt_ifma_run(emulated.data(), n, tw, gs, 2);
        CHECK(scalar == emulated);
        CHECK(scalar != x);
      }
    }
  }
}

TEST_CASE("NTT: bad sizes are refused", "[crypto]") {
  std::vector<Fr> v(12, Fr::one());
  CHECK(ntt_forward(v.data(), 12).code() == zkpipe::Code::kInvalidArgument);
  CHECK(ntt_forward(v.data(), 0).code() == zkpipe::Code::kInvalidArgument);
  CHECK(bit_reverse_permute(v.data(), 3).code() == zkpipe::Code::kInvalidArgument);
  CHECK(v == std::vector<Fr>(12, Fr::one()));
}
