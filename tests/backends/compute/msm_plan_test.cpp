// The GPU MSM's host side: plan choices (window size, segments, scratch, chunking, override),
// signed-digit recoding reconstructing the scalar exactly for every c in 2..24, the XYZZ bucket
// arithmetic against the Jacobian code, and the host emulation of the kernels (msm_emulate.h)
// against crypto::msm over sizes, window sizes, zero scalars, infinity bases, giant buckets,
// chunked passes and the split of the scalars (PoRep-like shares, all ones, all zeros).
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
#include "zkpipe/crypto/xyzz.h"

using namespace zkpipe::cuda_backend;
using zkpipe::crypto::Fr;
using zkpipe::crypto::G1;
using zkpipe::crypto::G1Affine;
using zkpipe::crypto::G1Xyzz;

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

G1 emulate(const std::vector<G1Affine>& bases, const std::vector<Fr>& k, unsigned c) {
  return msm_g1_emulate(bases.data(), k.data(), bases.size(), MsmOptions{c, 64 * kGiB}).sum;
}

}  // namespace

TEST_CASE("MSM GPU plan: window sizes, windows and segments are sane", "[compute]") {
  for (unsigned log_n = 10; log_n <= 26; ++log_n) {
    const MsmGpuPlan p = plan_msm_g1(size_t{1} << log_n, 140 * kGiB);
    INFO("n = 2^" << log_n << " c = " << p.window_bits);
    // Small MSMs take small windows (the device is underfilled whatever c; the fixed latencies
    // of the reduction grow with c); large ones trade windows for buckets.
    CHECK(p.window_bits >= kMsmMinWindowBits);
    CHECK(p.window_bits <= 21);
    if (log_n >= 20 && log_n <= 24) {
      CHECK(p.window_bits >= 14);
      CHECK(p.window_bits <= 21);
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
  CHECK(msm_g1_emulate(nullptr, nullptr, 0).sum.is_identity());
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
  const MsmGpuPlan small = plan_msm_g1(n, big.scratch.pippenger() / 3);
  CHECK(small.fits);
  CHECK(small.chunk < n);
  CHECK(small.passes == (n + small.chunk - 1) / small.chunk);
  CHECK(small.passes >= 2);
  CHECK(small.scratch.pippenger() <= big.scratch.pippenger() / 3);
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
  write_digit_entries(Fr::from_u64(15), 7, 1, 2, c, windows, keys.data(), values.data());
  CHECK(keys[1] == 0);
  CHECK(values[1] == (7u | kMsmNegBit));
  CHECK(keys[3] == 8);
  CHECK(values[3] == 7u);
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
  const MsmEmulation r = msm_g1_emulate(bases.data(), k.data(), n,
                                        MsmOptions{8, msm_split_bytes(n).split() + (1 << 20)});
  REQUIRE(r.plan.passes >= 2);
  CHECK(same(r.sum, zkpipe::crypto::msm(bases.data(), k.data(), n)));
}

namespace {

// The XYZZ operations out of line (the curve code is forced inline), compared as Jacobian points.
[[gnu::noinline]] G1 xyzz_madd(const G1& acc_jac, const G1Affine& q) {
  const G1Affine a = acc_jac.to_affine();
  return G1Xyzz::from_affine(a).add_affine(q).to_jacobian();
}
[[gnu::noinline]] G1 xyzz_add(const G1Affine& p, const G1Affine& q) {
  return (G1Xyzz::from_affine(p) + G1Xyzz::from_affine(q)).to_jacobian();
}
// p + q + p (so the operands have ZZ != 1) through the XYZZ addition.
[[gnu::noinline]] G1 xyzz_add_projective(const G1Affine& p, const G1Affine& q) {
  const G1Xyzz a = G1Xyzz::from_affine(p).add_affine(q);  // ZZ != 1 in general
  return (a + G1Xyzz::from_affine(p).dbl()).to_jacobian();
}
[[gnu::noinline]] G1 xyzz_dbl(const G1Affine& p) {
  return G1Xyzz::from_affine(p).add_affine(p).dbl().to_jacobian();
}

// The bases i * g for i = 1..n (cheap: one addition each), and their sum n (n + 1) / 2 * g.
std::vector<G1Affine> multiples(size_t n, G1* sum) {
  const G1 g = G1::from_affine(zkpipe::crypto::g1_generator());
  std::vector<G1> jac(n);
  G1 acc = g;
  for (auto& p : jac) {
    p = acc;
    acc = plus(acc, g);
  }
  std::vector<G1Affine> out(n);
  G1::batch_to_affine(jac.data(), out.data(), n);
  *sum = times(g, Fr::from_u64(uint64_t{n} * (n + 1) / 2));
  return out;
}

}  // namespace

TEST_CASE("MSM GPU xyzz: the bucket arithmetic matches the Jacobian code", "[compute]") {
  std::mt19937_64 rng(21);
  const auto pts = random_bases(8, rng);
  const G1 p = G1::from_affine(pts[0]), q = G1::from_affine(pts[1]);
  CHECK(same(xyzz_madd(p, pts[1]), plus(p, q)));
  CHECK(same(xyzz_madd(p, pts[0]), p.dbl()));  // equal points: the cold doubling
  CHECK(xyzz_madd(p, -pts[0]).is_identity());  // opposite points
  CHECK(same(xyzz_madd(G1::identity(), pts[2]), G1::from_affine(pts[2])));
  CHECK(same(xyzz_add(pts[0], pts[1]), plus(p, q)));
  CHECK(same(xyzz_add(pts[0], pts[0]), p.dbl()));
  CHECK(xyzz_add(pts[0], -pts[0]).is_identity());
  CHECK(same(xyzz_add(G1Affine::identity(), pts[1]), q));
  CHECK(same(xyzz_add(pts[0], G1Affine::identity()), p));
  CHECK(same(xyzz_add_projective(pts[0], pts[1]), plus(plus(p, q), p.dbl())));
  CHECK(same(xyzz_dbl(pts[3]), G1::from_affine(pts[3]).dbl().dbl()));
  CHECK(G1Xyzz::identity().dbl().is_identity());
  const zkpipe::crypto::Fp y = pts[4].y;
  CHECK(zkpipe::crypto::negate_if(y, true) == -y);
  CHECK(zkpipe::crypto::negate_if(y, false) == y);
  CHECK(zkpipe::crypto::negate_if(zkpipe::crypto::Fp::zero(), true).is_zero());
}

TEST_CASE("MSM GPU split: PoRep-like scalars (48.0% zeros, 48.1% ones)", "[compute]") {
  // The shares of a real porep 2KiB partition's witness (zkpipe-bench-synthesis --scalars), and
  // snapdeals 2KiB's (49.4%, 49.3%), placed at random.
  std::mt19937_64 rng(22);
  const size_t n = 5000;
  const auto bases = random_bases(n, rng);
  for (const auto& [zeros, ones] : {std::pair{0.480, 0.481}, std::pair{0.494, 0.493}}) {
    std::vector<Fr> k(n);
    std::uniform_real_distribution<double> u(0, 1);
    size_t want_ones = 0, want_others = 0;
    for (auto& s : k) {
      const double x = u(rng);
      s = x < zeros ? Fr::zero() : x < zeros + ones ? Fr::one() : Fr::random(rng);
      want_ones += s == Fr::one();
      want_others += !s.is_zero() && s != Fr::one();
    }
    const MsmEmulation r = msm_g1_emulate(bases.data(), k.data(), n);
    INFO("zeros " << zeros << " ones " << ones);
    CHECK(r.ones == want_ones);
    CHECK(r.others == want_others);
    CHECK(r.plan.n == want_others);
    CHECK(same(r.sum, zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
}

TEST_CASE("MSM GPU split: all ones, all zeros, one other", "[compute]") {
  G1 sum;
  const size_t n = 3000;
  const auto bases = multiples(n, &sum);
  SECTION("all ones: the bases' sum, nothing sorted") {
    const std::vector<Fr> k(n, Fr::one());
    const MsmEmulation r = msm_g1_emulate(bases.data(), k.data(), n);
    CHECK(r.ones == n);
    CHECK(r.others == 0);
    CHECK(r.plan.passes == 0);
    CHECK(r.levels == 0);
    CHECK(same(r.sum, sum));
  }
  SECTION("all zeros: the identity") {
    const std::vector<Fr> k(n, Fr::zero());
    const MsmEmulation r = msm_g1_emulate(bases.data(), k.data(), n);
    CHECK(r.ones + r.others == 0);
    CHECK(r.sum.is_identity());
  }
  SECTION("ones and zeros with one other scalar") {
    std::vector<Fr> k(n, Fr::one());
    for (size_t i = 0; i < n; i += 2) k[i] = Fr::zero();
    k[7] = -Fr::one();
    const MsmEmulation r = msm_g1_emulate(bases.data(), k.data(), n);
    CHECK(r.others == 1);
    CHECK(same(r.sum, zkpipe::crypto::msm(bases.data(), k.data(), n)));
  }
}

TEST_CASE("MSM GPU accumulation: a bucket of 2^20 points is split across threads", "[compute]") {
  // Every scalar 5: one non-zero digit, all 2^20 entries in one bucket of window 0. Under
  // AddressSanitizer 2^16 (the same levels and spans, a sixteenth of the additions: the plain
  // build runs the full size).
  G1 sum;
#if defined(ZKPIPE_ASAN_BUILD)
  const size_t n = size_t{1} << 16;
#else
  const size_t n = size_t{1} << 20;
#endif
  const auto bases = multiples(n, &sum);
  const std::vector<Fr> k(n, Fr::from_u64(5));
  const MsmEmulation r = msm_g1_emulate(bases.data(), k.data(), n, MsmOptions{16, 64 * kGiB});
  CHECK(r.others == n);
  CHECK(r.levels >= 2);                         // the giant run was cut and its pieces summed
  CHECK(r.max_thread_elements <= kMsmMaxSpan);  // no thread added more than a span
  CHECK(same(r.sum, times(sum, Fr::from_u64(5))));
}
