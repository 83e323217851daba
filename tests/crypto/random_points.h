// tests/crypto/random_points.h: random inputs for the NTT and MSM tests (CPU and GPU): scalar
// vectors and distinct affine points, with out-of-line point operations (the curve code is
// always_inline; expanding it at every use would make the test files slow to compile).
#pragma once

#include <random>
#include <type_traits>
#include <vector>

#include "zkpipe/crypto/curves.h"

namespace zkpipe::test {

template <typename P>
[[gnu::noinline]] bool same(const P& a, const P& b) {
  return a == b;
}
template <typename P>
[[gnu::noinline]] P plus(const P& a, const P& b) {
  return a + b;
}
template <typename P>
[[gnu::noinline]] P times(const P& p, const crypto::Fr& k) {
  return p * k;
}

template <typename P>
const typename P::Affine& generator() {
  if constexpr (std::is_same_v<P, crypto::G1>) {
    return crypto::g1_generator();
  } else {
    return crypto::g2_generator();
  }
}

// n distinct points base + i step (random base and step), affine.
template <typename P>
std::vector<typename P::Affine> random_bases(size_t n, std::mt19937_64& rng) {
  const P g = P::from_affine(generator<P>());
  const P step = times(g, crypto::Fr::random(rng));
  P acc = times(g, crypto::Fr::random(rng));
  std::vector<P> jac(n);
  for (auto& p : jac) {
    p = acc;
    acc = plus(acc, step);
  }
  std::vector<typename P::Affine> out(n);
  P::batch_to_affine(jac.data(), out.data(), n);
  return out;
}

inline std::vector<crypto::Fr> random_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<crypto::Fr> k(n);
  for (auto& x : k) x = crypto::Fr::random(rng);
  return k;
}

inline std::vector<crypto::Fr> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return random_scalars(n, rng);
}

}  // namespace zkpipe::test
