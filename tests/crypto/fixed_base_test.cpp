// Fixed-base batch multiplication on G1 and G2 against the plain double-and-add, with zero,
// one, r - 1, repeated scalars and the identity as base, identical for 1 and 2 threads.
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "zkpipe/crypto/fixed_base.h"

using namespace zkpipe::crypto;

namespace {

// Out-of-line: the curve code is always_inline (keeps this file quick to compile).
template <typename P>
[[gnu::noinline]] typename P::Affine plain(const typename P::Affine& b, const Fr& k) {
  return (P::from_affine(b) * k).to_affine();
}

template <typename P>
void check(const typename P::Affine& base, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> k(n);
  for (auto& x : k) x = Fr::random(rng);
  if (n > 4) {
    k[0] = Fr::zero();
    k[1] = Fr::one();
    k[2] = -Fr::one();
    k[3] = k[4];
  }
  std::vector<typename P::Affine> a(n), b(n);
  fixed_base_mul(base, k.data(), n, a.data(), 1);
  fixed_base_mul(base, k.data(), n, b.data(), 2);
  for (size_t i = 0; i < n; ++i) {
    INFO("i = " << i);
    CHECK(a[i] == plain<P>(base, k[i]));
    CHECK((a[i].infinity == b[i].infinity && a[i].x == b[i].x && a[i].y == b[i].y));
  }
}

}  // namespace

TEST_CASE("FixedBase: G1 matches plain multiplication", "[crypto]") {
  const G1Affine base = (G1::from_affine(g1_generator()) * Fr::from_u64(12345)).to_affine();
  for (size_t n : {1, 5, 100, 1500}) check<G1>(base, n, n);
}

TEST_CASE("FixedBase: G2 matches plain multiplication", "[crypto]") {
  for (size_t n : {1, 9, 300}) check<G2>(g2_generator(), n, 7 * n);
}

TEST_CASE("FixedBase: the identity as base and n = 0", "[crypto]") {
  const std::vector<Fr> k = {Fr::one(), Fr::from_u64(9)};
  std::vector<G1Affine> out(2, g1_generator());
  fixed_base_mul(G1Affine::identity(), k.data(), 2, out.data());
  CHECK((out[0].infinity && out[1].infinity));
  fixed_base_mul(g1_generator(), k.data(), 0, out.data());
  CHECK(out[0].infinity);
}

TEST_CASE("FixedBase: the window grows with n", "[crypto]") {
  unsigned last = 0;
  for (size_t n = 1; n <= (size_t{1} << 24); n *= 16) {
    const unsigned w = fixed_base_window_bits(n);
    CHECK(w >= last);
    last = w;
  }
  CHECK(last >= 10);
}
