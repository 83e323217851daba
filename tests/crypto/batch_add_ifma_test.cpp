// The AVX-512 IFMA batched affine G1 addition (engine/crypto/batch_add_ifma.h) against the
// scalar formulas: dst + (neg ? -src : src) by Jacobian mixed addition, and the scalar
// AffineAdder of the MSM, bit for bit, for batch sizes 1..40 (every padding of the last group of
// 8), 1000 and 2100 (run in two parts), random signs, random points and points whose stored
// coordinates lie near 0 and p (so every reduction step sees its edge cases). Each case runs the
// kernel's own source over scalar stand-ins for the intrinsics (ifma_emulated.h) on every CPU,
// and the native kernel where the CPU has IFMA (tests/feature_required.h where it has not).
// Thread-safety: single-threaded test.
#include <algorithm>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/ifma_emulated.h"
#include "crypto/random_points.h"
#include "engine/crypto/batch_add_ifma.h"
#include "engine/crypto/msm_buckets.h"
#include "feature_required.h"
#include "zkpipe/crypto/cpu_kernels.h"
#include "zkpipe/crypto/curves.h"

using namespace zkpipe::crypto;
using zkpipe::crypto::msm_detail::AffineAdder;

namespace {

using Kernel = void (*)(G1Affine* const*, const G1Affine* const*, const uint8_t*, size_t);

// The kernels to test here: the emulated one always, the native one where the CPU has IFMA.
std::vector<std::pair<const char*, Kernel>> kernels() {
  std::vector<std::pair<const char*, Kernel>> out = {
      {"emulated", &zkpipe::crypto::msm_detail::emulated::batch_add_g1_ifma}};
  if (zkpipe::testing::feature_present(cpu_has_ifma(), "IFMA",
                                       "AVX-512 IFMA (batch_add_g1_ifma)")) {
    out.emplace_back("native", &zkpipe::crypto::msm_detail::batch_add_g1_ifma);
  }
  return out;
}

// Out of line, like random_points.h's: the curve code is always_inline.
[[gnu::noinline]] G1 plus_mixed(const G1& a, const G1Affine& b) {
  return a.add_mixed(b);
}

// n distinct points k G + i s G (random k, s), a third of them negated (stored y near p where
// y was small).
std::vector<G1Affine> random_points(size_t n, std::mt19937_64& rng) {
  std::vector<G1Affine> out = zkpipe::test::random_bases<G1>(n, rng);
  for (size_t i = 0; i < n; i += 3) out[i] = -out[i];
  return out;
}

// Points on y^2 = x^3 + 4 whose stored x is p - k or k for small k (distinct x, as the kernel
// needs), y and -y in turn: stored coordinates at both ends of [0, p). (Not in G1 in general; the
// addition formulas do not care.)
std::vector<G1Affine> edge_points(size_t n) {
  std::vector<G1Affine> out;
  const Fp b = Fp::from_u64(4);
  for (uint64_t k = 1; out.size() < n; ++k) {
    for (bool high : {true, false}) {
      Fp x{};
      if (high) {
        uint64_t borrow = 0;
        for (size_t i = 0; i < 6; ++i) {
          const unsigned __int128 d =
              static_cast<unsigned __int128>(Fp::kModulus[i]) - (i == 0 ? k : 0) - borrow;
          x.l[i] = static_cast<uint64_t>(d);
          borrow = static_cast<uint64_t>(d >> 64) & 1;
        }
      } else {
        x.l[0] = k;
      }
      Fp y;
      if (!(x.sqr() * x + b).sqrt(y)) continue;
      out.push_back({x, out.size() % 2 == 0 ? y : -y, false});
    }
  }
  out.resize(n);
  return out;
}

bool same_bits(const G1Affine& a, const G1Affine& b) {
  return a.infinity == b.infinity && std::memcmp(a.x.l, b.x.l, sizeof(a.x.l)) == 0 &&
         std::memcmp(a.y.l, b.y.l, sizeof(a.y.l)) == 0;
}

// Runs m additions dst = pool[i], src = pool[j] (distinct x, all pool entries distinct) with
// random signs through the kernel and both scalar references, and compares every output.
void check_batch(Kernel batch_add_g1_ifma, const std::vector<G1Affine>& pool, size_t m,
                 std::mt19937_64& rng) {
  REQUIRE(pool.size() >= 2 * m);
  std::vector<size_t> pick(pool.size());
  for (size_t i = 0; i < pick.size(); ++i) pick[i] = i;
  std::shuffle(pick.begin(), pick.end(), rng);

  std::vector<G1Affine> dst(m), src(m), by_adder(m);
  std::vector<uint8_t> neg(m);
  for (size_t i = 0; i < m; ++i) {
    dst[i] = pool[pick[i]];
    src[i] = pool[pick[m + i]];
    neg[i] = static_cast<uint8_t>(rng() & 1);
  }

  // Reference 1: Jacobian mixed addition, then one batch conversion to affine.
  std::vector<G1> jac(m);
  for (size_t i = 0; i < m; ++i) {
    jac[i] = plus_mixed(G1::from_affine(dst[i]), neg[i] ? -src[i] : src[i]);
  }
  std::vector<G1Affine> expect(m);
  G1::batch_to_affine(jac.data(), expect.data(), m);

  // Reference 2: the MSM's scalar batched affine adder.
  by_adder = dst;
  AffineAdder<Fp> adder;
  for (size_t i = 0; i < m; ++i) adder.push(&by_adder[i], &src[i], neg[i] != 0);
  adder.flush_scalar();

  std::vector<G1Affine*> dp(m);
  std::vector<const G1Affine*> sp(m);
  for (size_t i = 0; i < m; ++i) {
    dp[i] = &dst[i];
    sp[i] = &src[i];
  }
  batch_add_g1_ifma(dp.data(), sp.data(), neg.data(), m);

  size_t wrong = 0, wrong_adder = 0;
  for (size_t i = 0; i < m; ++i) {
    wrong += !same_bits(dst[i], expect[i]);
    wrong_adder += !same_bits(dst[i], by_adder[i]);
  }
  INFO("m = " << m);
  CHECK(wrong == 0);
  CHECK(wrong_adder == 0);
  for (size_t i = 0; i < m; ++i) CHECK(src[i] == pool[pick[m + i]]);  // sources untouched
}

}  // namespace

TEST_CASE("batch_add_g1_ifma matches scalar affine addition on random points", "[crypto]") {
  for (const auto& [variant, kernel] : kernels()) {
    INFO(variant);
    std::mt19937_64 rng(20261130);
    const std::vector<G1Affine> pool = random_points(4300, rng);
    for (size_t m = 1; m <= 40; ++m) check_batch(kernel, pool, m, rng);
    check_batch(kernel, pool, 1000, rng);
    check_batch(kernel, pool, 2100, rng);  // above the kernel's largest part (2048): two inversions
  }
}

TEST_CASE("batch_add_g1_ifma matches scalar affine addition near 0 and p", "[crypto]") {
  for (const auto& [variant, kernel] : kernels()) {
    INFO(variant);
    std::mt19937_64 rng(7);
    const std::vector<G1Affine> pool = edge_points(96);
    for (size_t m : {1, 7, 8, 9, 17, 48}) check_batch(kernel, pool, m, rng);
    // Edge points mixed with random ones.
    std::vector<G1Affine> mixed = random_points(64, rng);
    mixed.insert(mixed.end(), pool.begin(), pool.end());
    for (size_t m : {33, 80}) check_batch(kernel, mixed, m, rng);
  }
}

TEST_CASE("batch_add_g1_ifma with no additions is a no-op, one touches only its target",
          "[crypto]") {
  for (const auto& [variant, batch_add_g1_ifma] : kernels()) {
    INFO(variant);
    batch_add_g1_ifma(nullptr, nullptr, nullptr, 0);  // m = 0 touches no pointer
    // A batch of one leaves every point outside it as it was.
    std::mt19937_64 rng(3);
    std::vector<G1Affine> points = random_points(3, rng);
    const std::vector<G1Affine> before = points;
    G1Affine* dst = &points[0];
    const G1Affine* src = &points[1];
    const uint8_t neg = 0;
    batch_add_g1_ifma(&dst, &src, &neg, 1);
    CHECK(points[1] == before[1]);
    CHECK(points[2] == before[2]);
    CHECK_FALSE(points[0] == before[0]);  // P + Q with Q != +-P is neither
  }
}
