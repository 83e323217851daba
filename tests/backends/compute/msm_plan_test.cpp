// The GPU MSM's host side: plan choices (window size, segments, scratch, chunking, override),
// signed-digit recoding reconstructing the scalar exactly for every c in 2..24, and the host
// emulation of the kernels (msm_emulate.h) against crypto::msm over sizes, window sizes, zero
// scalars, infinity bases, one giant bucket and chunked passes.
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/random_points.h"
#include "msm_digits.h"
#include "msm_emulate.h"
#include "msm_plan.h"
#include "zkpipe/crypto/msm.h"

using namespace zkpipe::cuda_backend;
using zkpipe::crypto::Fr;
using zkpipe::crypto::G1;
using zkpipe::crypto::G1Affine;

namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

using zkpipe::test::plus;
using zkpipe::test::random_scalars;
using zkpipe::test::same;
using zkpipe::test::times;

std::vector<G1Affine> random_bases(size_t n, std::mt19937_64& rng) {
  return zkpipe::test::random_bases<G1>(n, rng);
}

// sum_w d_w 2^(c w) mod 2^320 (exact: |sum| < 2^300), as 5 little-endian limbs.
using L5 = std::array<uint64_t, 5>;
L5 reconstruct(const Fr::L& k, unsigned c, unsigned windows, uint32_t* carry_out,
               int32_t* max_abs) {
  L5 acc{};
  *max_abs = 0;
  *carry_out = for_each_digit(k, c, windows, [&](unsigned w, int32_t d) {
    const uint64_t mag = static_cast<uint64_t>(d < 0 ? -d : d);
    *max_abs = std::max(*max_abs, d < 0 ? -d : d);
    L5 t{};  // mag << (c w)
    const unsigned shift = c * w, limb = shift / 64, off = shift % 64;
    if (limb < 5) t[limb] = mag << off;
    if (off != 0 && limb + 1 < 5) t[limb + 1] = mag >> (64 - off);
    uint64_t carry = 0;
    for (size_t i = 0; i < 5; ++i) {
      if (d >= 0) {
        acc[i] = zkpipe::crypto::adc(acc[i], t[i], carry, carry);
      } else {
        acc[i] = zkpipe::crypto::sbb(acc[i], t[i], carry, carry);
      }
    }
  });
  return acc;
}

G1 emulate(const std::vector<G1Affine>& bases, const std::vector<Fr>& k, unsigned c,
           uint64_t device_bytes = 64 * kGiB) {
  const MsmGpuPlan plan = plan_msm_g1(bases.size(), device_bytes, c);
  return msm_g1_emulate(bases.data(), k.data(), bases.size(), plan);
}

}  // namespace

TEST_CASE("MSM GPU plan: window sizes, windows and segments are sane", "[compute]") {
  for (unsigned log_n = 10; log_n <= 26; ++log_n) {
    const MsmGpuPlan p = plan_msm_g1(size_t{1} << log_n, 140 * kGiB);
    INFO("n = 2^" << log_n << " c = " << p.window_bits);
    CHECK(p.window_bits >= 6);
    CHECK(p.window_bits <= 20);
    if (log_n >= 20 && log_n <= 24) {
      CHECK(p.window_bits >= 12);
      CHECK(p.window_bits <= 17);
    }
    CHECK(p.windows * p.window_bits >= 256);
    CHECK((p.windows - 1) * p.window_bits < 256);
    CHECK(p.window_buckets == (uint32_t{1} << (p.window_bits - 1)));
    CHECK(p.buckets == uint64_t{p.windows} * p.window_buckets);
    CHECK(p.buckets < (uint64_t{1} << p.key_bits));
    CHECK(p.segments * p.segment_len == p.window_buckets);
    CHECK((p.segments & (p.segments - 1)) == 0);
    CHECK(p.chunk == p.n);
    CHECK(p.passes == 1);
    CHECK(p.fits);
  }
}

TEST_CASE("MSM GPU plan: n = 0 is the empty plan", "[compute]") {
  const MsmGpuPlan p = plan_msm_g1(0, kGiB);
  CHECK(p.n == 0);
  CHECK(p.passes == 0);
  CHECK(p.fits);
  CHECK(msm_g1_emulate(nullptr, nullptr, 0, p).is_identity());
}

TEST_CASE("MSM GPU plan: scratch grows with n", "[compute]") {
  for (unsigned c : {8u, 13u, 16u}) {
    uint64_t last = 0;
    for (size_t n = 1; n <= (size_t{1} << 26); n *= 4) {
      const uint64_t b = msm_scratch_bytes(n, c, 16).total();
      CHECK(b >= last);
      last = b;
    }
  }
  uint64_t last = 0;
  for (unsigned log_n = 10; log_n <= 26; ++log_n) {
    const MsmGpuPlan p = plan_msm_g1(size_t{1} << log_n, 1024 * kGiB);
    INFO("n = 2^" << log_n);
    CHECK(p.scratch.total() >= last);
    last = p.scratch.total();
  }
}

TEST_CASE("MSM GPU plan: chunks when device memory is small", "[compute]") {
  const size_t n = size_t{1} << 24;
  const MsmGpuPlan big = plan_msm_g1(n, 140 * kGiB);
  CHECK(big.passes == 1);
  const MsmGpuPlan small = plan_msm_g1(n, big.scratch.total() / 3);
  CHECK(small.fits);
  CHECK(small.chunk < n);
  CHECK(small.passes == (n + small.chunk - 1) / small.chunk);
  CHECK(small.passes >= 2);
  CHECK(small.scratch.total() <= big.scratch.total() / 3);
  const MsmGpuPlan tiny = plan_msm_g1(n, 1 << 20);
  CHECK_FALSE(tiny.fits);
}

TEST_CASE("MSM GPU plan: window override", "[compute]") {
  for (unsigned c = 2; c <= 24; ++c) {
    const MsmGpuPlan p = plan_msm_g1(1000, 64 * kGiB, c);
    CHECK(p.window_bits == c);
    CHECK(p.windows == (256 + c - 1) / c);
  }
  CHECK(plan_msm_g1(1000, 64 * kGiB, 1).window_bits == kMsmMinWindowBits);
  CHECK(plan_msm_g1(1000, 64 * kGiB, 40).window_bits == kMsmMaxWindowBits);
}

TEST_CASE("MSM GPU digits: signed digits reconstruct the scalar", "[compute]") {
  std::mt19937_64 rng(11);
  std::vector<Fr> ks = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(2), -Fr::from_u64(2)};
  for (int i = 0; i < 40; ++i) ks.push_back(Fr::random(rng));
  for (unsigned c = 2; c <= 24; ++c) {
    const unsigned windows = (256 + c - 1) / c;
    for (const Fr& s : ks) {
      const Fr::L k = s.to_canonical();
      uint32_t carry = 0;
      int32_t max_abs = 0;
      const L5 r = reconstruct(k, c, windows, &carry, &max_abs);
      INFO("c = " << c);
      CHECK(carry == 0);
      CHECK(max_abs <= (int32_t{1} << (c - 1)));
      CHECK(r == L5{k[0], k[1], k[2], k[3], 0});
    }
  }
}

TEST_CASE("MSM GPU digits: keys and values", "[compute]") {
  const unsigned c = 4, windows = 64;
  const uint32_t skip = windows << (c - 1);
  CHECK(digit_key(0, 1, c, skip) == 0);
  CHECK(digit_key(0, -8, c, skip) == 7);
  CHECK(digit_key(3, 5, c, skip) == 3 * 8 + 4);
  CHECK(digit_key(3, 0, c, skip) == skip);
  // 15 = 16 - 1: digits -1, 1, 0, ...
  std::vector<uint32_t> keys(2 * windows), values(2 * windows);
  write_digit_entries(Fr::from_u64(15), 1, 2, c, windows, keys.data(), values.data());
  CHECK(keys[1] == 0);
  CHECK(values[1] == (1u | kMsmNegBit));
  CHECK(keys[3] == 8);
  CHECK(values[3] == 1u);
  CHECK(keys[5] == skip);
}

TEST_CASE("MSM GPU emulation: matches crypto::msm", "[compute]") {
  std::mt19937_64 rng(12);
  for (size_t n : {1, 2, 3, 17, 100, 1000}) {
    const auto bases = random_bases(n, rng);
    const auto k = random_scalars(n, rng);
    const G1 expect = zkpipe::crypto::msm(bases.data(), k.data(), n);
    INFO("n = " << n);
    CHECK(same(emulate(bases, k, 0), expect));
    for (unsigned c : {2u, 5u, 9u, 13u}) {
      INFO("c = " << c);
      CHECK(same(emulate(bases, k, c), expect));
    }
  }
}

TEST_CASE("MSM GPU emulation: edge cases", "[compute]") {
  std::mt19937_64 rng(13);
  const size_t n = 100;
  auto bases = random_bases(n, rng);
  auto k = random_scalars(n, rng);
  SECTION("zero scalars") {
    const std::vector<Fr> zeros(n, Fr::zero());
    CHECK(emulate(bases, zeros, 0).is_identity());
    for (size_t i = 0; i < n; i += 3) k[i] = Fr::zero();
    CHECK(same(emulate(bases, k, 7), zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
  SECTION("infinity bases") {
    for (size_t i = 0; i < n; i += 4) bases[i] = G1Affine::identity();
    CHECK(same(emulate(bases, k, 6), zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
  SECTION("all-equal scalars: one giant bucket per window") {
    for (const Fr& s : {Fr::from_u64(5), -Fr::one(), Fr::random(rng)}) {
      const std::vector<Fr> same_k(n, s);
      const G1 expect = zkpipe::crypto::msm(bases.data(), same_k.data(), n);
      CHECK(same(emulate(bases, same_k, 4), expect));
      CHECK(same(emulate(bases, same_k, 11), expect));
    }
  }
  SECTION("repeated and opposite bases") {
    for (size_t i = 1; i < n; i += 2) bases[i] = (i % 4 == 1) ? bases[i - 1] : -bases[i - 1];
    CHECK(same(emulate(bases, k, 5), zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
}

TEST_CASE("MSM GPU emulation: chunked passes accumulate", "[compute]") {
  std::mt19937_64 rng(14);
  const size_t n = 3000;
  const auto bases = random_bases(n, rng);
  const auto k = random_scalars(n, rng);
  const MsmGpuPlan p = plan_msm_g1(n, 1 << 20, 8);
  REQUIRE(p.passes >= 2);
  CHECK(same(msm_g1_emulate(bases.data(), k.data(), n, p),
             zkpipe::crypto::msm(bases.data(), k.data(), n)));
}
