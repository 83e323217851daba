// Multi-scalar multiplication on G1 and G2: against the naive sum of k_i P_i (plain
// double-and-add) for n = 1..64 in every bucket form and window size, edge cases (zero
// scalars, r - 1, the identity among the bases, repeated and opposite bases, n = 0, many equal
// digits), identical results for 1 and 2 threads, and the @noble/curves vectors.
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/random_points.h"
#include "crypto/vectors.h"
#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/serialize.h"

using namespace zkpipe::crypto;
using zkpipe::test::field_from_hex;
using zkpipe::test::generator;
using zkpipe::test::load_vectors;
using zkpipe::test::plus;
using zkpipe::test::random_bases;
using zkpipe::test::random_scalars;
using zkpipe::test::same;
using zkpipe::test::times;
using zkpipe::test::unhex;

namespace {

template <typename P>
P naive(const std::vector<typename P::Affine>& bases, const std::vector<Fr>& k) {
  P sum = P::identity();
  for (size_t i = 0; i < bases.size(); ++i) sum = plus(sum, times(P::from_affine(bases[i]), k[i]));
  return sum;
}

template <typename P>
P run(const std::vector<typename P::Affine>& bases, const std::vector<Fr>& k, MsmBuckets mode,
      unsigned c, bool endo, unsigned threads = 2) {
  MsmOptions o;
  o.threads = threads;
  o.buckets = mode;
  o.window_bits = c;
  o.endomorphism = endo;
  return msm(bases.data(), k.data(), bases.size(), o);
}

// Every form and a spread of window sizes (4: many conflicts; 11: segmented reduction).
template <typename P>
void check_all_forms(const std::vector<typename P::Affine>& bases, const std::vector<Fr>& k) {
  const P expect = naive<P>(bases, k);
  for (bool endo : {true, false}) {
    CHECK(same(run<P>(bases, k, MsmBuckets::kAuto, 0, endo), expect));
    for (unsigned c : {1u, 4u, 11u}) {
      INFO("c = " << c << " endomorphism = " << endo);
      CHECK(same(run<P>(bases, k, MsmBuckets::kJacobian, c, endo), expect));
      CHECK(same(run<P>(bases, k, MsmBuckets::kBatchAffine, c, endo), expect));
    }
  }
}

template <typename P>
typename P::Affine decode(const nlohmann::json& j) {
  const std::vector<uint8_t> b = unhex(j.get<std::string>());
  auto r = [&] {
    if constexpr (std::is_same_v<P, G1>) {
      return decode_g1(b.data(), b.size());
    } else {
      return decode_g2(b.data(), b.size());
    }
  }();
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return *r;
}

template <typename P>
void check_vectors(const char* file) {
  const auto v = load_vectors(file);
  for (const auto& c : v["cases"]) {
    const size_t n = c["n"].get<size_t>();
    INFO(file << " n = " << n);
    std::vector<typename P::Affine> bases;
    std::vector<Fr> k;
    for (const auto& p : c["points"]) bases.push_back(decode<P>(p));
    for (const auto& s : c["scalars"]) k.push_back(field_from_hex<Fr>(s));
    REQUIRE(bases.size() == n);
    const P expect = P::from_affine(decode<P>(c["result"]));
    CHECK(same(msm(bases.data(), k.data(), n, 1), expect));
    CHECK(same(run<P>(bases, k, MsmBuckets::kBatchAffine, 8, true), expect));
    CHECK(same(run<P>(bases, k, MsmBuckets::kJacobian, 5, false), expect));
  }
}

}  // namespace

TEST_CASE("MSM: G1 matches the naive sum for n = 1..64", "[crypto]") {
  std::mt19937_64 rng(1);
  for (size_t n = 1; n <= 64; n += (n < 12 ? 1 : 13)) {
    INFO("n = " << n);
    check_all_forms<G1>(random_bases<G1>(n, rng), random_scalars(n, rng));
  }
}

TEST_CASE("MSM: G2 matches the naive sum for n = 1..64", "[crypto]") {
  std::mt19937_64 rng(2);
  for (size_t n : {1, 2, 3, 7, 16, 64}) {
    INFO("n = " << n);
    check_all_forms<G2>(random_bases<G2>(n, rng), random_scalars(n, rng));
  }
}

TEST_CASE("MSM: edge cases", "[crypto]") {
  std::mt19937_64 rng(3);
  auto bases = random_bases<G1>(40, rng);
  auto k = random_scalars(40, rng);
  SECTION("n = 0 and all-zero scalars give the identity") {
    CHECK(msm(bases.data(), k.data(), 0).is_identity());
    const std::vector<Fr> zeros(40, Fr::zero());
    CHECK(msm(bases.data(), zeros.data(), 40).is_identity());
    CHECK(run<G1>(bases, zeros, MsmBuckets::kBatchAffine, 6, true).is_identity());
  }
  SECTION("r - 1 gives the negation") {
    const Fr minus_one = -Fr::one();
    CHECK(same(msm(bases.data(), &minus_one, 1), -G1::from_affine(bases[0])));
    k[5] = minus_one;
    k[6] = Fr::one();
    check_all_forms<G1>(bases, k);
  }
  SECTION("the identity among the bases is skipped") {
    bases[0] = G1Affine::identity();
    bases[17] = G1Affine::identity();
    check_all_forms<G1>(bases, k);
    auto b2 = random_bases<G2>(6, rng);
    b2[2] = G2Affine::identity();
    check_all_forms<G2>(b2, random_scalars(6, rng));
  }
  SECTION("repeated and opposite bases (bucket doubling and cancellation)") {
    for (size_t i = 0; i < 10; ++i) {
      bases[20 + i] = bases[i];
      k[20 + i] = k[i];
    }
    bases[30] = -bases[31];
    k[30] = k[31];
    bases[32] = -bases[33];
    k[32] = -k[33];
    check_all_forms<G1>(bases, k);
  }
  SECTION("many equal scalars (deferred and overflowing bucket additions)") {
    auto many = random_bases<G1>(3000, rng);
    std::vector<Fr> equal_k(many.size(), Fr::from_u64(5));
    for (size_t i = 0; i < equal_k.size(); i += 7) equal_k[i] = Fr::from_u64(3);
    G1 fives = G1::identity(), threes = G1::identity();
    for (size_t i = 0; i < many.size(); ++i) {
      G1& s = i % 7 == 0 ? threes : fives;
      s = plus(s, G1::from_affine(many[i]));
    }
    const G1 direct = plus(times(fives, Fr::from_u64(5)), times(threes, Fr::from_u64(3)));
    for (unsigned c : {0u, 3u, 9u}) {
      INFO("c = " << c);
      CHECK(same(run<G1>(many, equal_k, MsmBuckets::kBatchAffine, c, true), direct));
      CHECK(same(run<G1>(many, equal_k, MsmBuckets::kBatchAffine, c, false), direct));
    }
  }
}

// Storage-proof witnesses: about half 0, half 1, a few random (zkpipe-bench-synthesis --scalars
// on a porep 2KiB partition: 48.0% zeros, 48.1% ones).
static std::vector<Fr> porep_like(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> k = random_scalars(n, rng);
  for (Fr& x : k) {
    const uint64_t u = rng() % 1000;
    if (u < 480)
      x = Fr::zero();
    else if (u < 961)
      x = Fr::one();
  }
  return k;
}

TEST_CASE("MSM: the 0/1 split equals Pippenger over everything", "[crypto]") {
  std::mt19937_64 rng(11);
  auto check = [](const auto& bases, const std::vector<Fr>& k, unsigned threads) {
    using P =
        std::conditional_t<std::is_same_v<std::decay_t<decltype(bases[0])>, G1Affine>, G1, G2>;
    MsmOptions split, whole;
    split.threads = whole.threads = threads;
    whole.split_ones = false;
    const P a = msm(bases.data(), k.data(), bases.size(), split);
    const P b = msm(bases.data(), k.data(), bases.size(), whole);
    CHECK((a.x == b.x && a.y == b.y && a.z == b.z));  // both normalized: bit for bit
    return a;
  };
  SECTION("small: against the naive sum, with the identity, repeated and opposite bases") {
    for (size_t n : {1, 2, 7, 64, 300}) {
      INFO("n = " << n);
      auto bases = random_bases<G1>(n, rng);
      auto k = porep_like(n, rng);
      if (n >= 64) {
        bases[3] = G1Affine::identity();
        k[3] = Fr::one();
        bases[10] = bases[11];  // equal ones: a doubling
        k[10] = k[11] = Fr::one();
        bases[12] = -bases[13];  // opposite ones: they cancel
        k[12] = k[13] = Fr::one();
      }
      CHECK(same(check(bases, k, 2), naive<G1>(bases, k)));
      const auto b2 = random_bases<G2>(n / 4 + 1, rng);
      const auto k2 = porep_like(b2.size(), rng);
      CHECK(same(check(b2, k2, 2), naive<G2>(b2, k2)));
    }
  }
  SECTION("large: the batch-affine ones' buckets, 1 and 2 threads, all ones, no ones") {
    const size_t n = 40000;  // > 8 x 1024 ones: the affine buckets
    auto bases = random_bases<G1>(n, rng);
    for (size_t i = 0; i < 40; ++i) bases[1000 + i] = bases[i];  // equal bases among the ones
    const auto k = porep_like(n, rng);
    const G1 one_thread = check(bases, k, 1);
    const G1 two = check(bases, k, 2);
    CHECK((one_thread.x == two.x && one_thread.y == two.y && one_thread.z == two.z));
    const std::vector<Fr> ones(n, Fr::one());
    G1 sum = G1::identity();
    for (const G1Affine& b : bases) sum = plus(sum, G1::from_affine(b));
    CHECK(same(check(bases, ones, 2), sum));
    std::vector<Fr> sparse(n, Fr::zero());  // zeros and a few random: the rest alone
    for (size_t i = 0; i < n; i += 97) sparse[i] = k[i].is_zero() ? Fr::from_u64(i) : k[i];
    check(bases, sparse, 2);
    const auto b2 = random_bases<G2>(12000, rng);
    check(b2, porep_like(b2.size(), rng), 2);
  }
}

TEST_CASE("MSM: identical results for 1 and 2 threads", "[crypto]") {
  std::mt19937_64 rng(4);
  for (size_t n : {5, 300, 5000}) {
    INFO("n = " << n);
    const auto b1 = random_bases<G1>(n, rng);
    const auto k = random_scalars(n, rng);
    const G1 a = msm(b1.data(), k.data(), n, 1), b = msm(b1.data(), k.data(), n, 2);
    CHECK((a.x == b.x && a.y == b.y && a.z == b.z));
    CHECK(same(a, run<G1>(b1, k, MsmBuckets::kJacobian, 7, false, 2)));
    const auto b2 = random_bases<G2>(n / 4 + 1, rng);
    const G2 c = msm(b2.data(), k.data(), b2.size(), 1);
    const G2 d = msm(b2.data(), k.data(), b2.size(), 2);
    CHECK((c.x == d.x && c.y == d.y && c.z == d.z));
  }
}

TEST_CASE("MSM: the plan grows the window with n", "[crypto]") {
  unsigned last = 0;
  for (size_t n : {size_t{1}, size_t{64}, size_t{4096}, size_t{1} << 16, size_t{1} << 20}) {
    const MsmPlan p = msm_plan_g1(n, 2);
    INFO("n = " << n);
    CHECK(p.window_bits >= last);
    CHECK(p.windows * p.window_bits >= 129);
    last = p.window_bits;
  }
  CHECK(msm_plan_g1(size_t{1} << 16, 1).batch_affine);
}

TEST_CASE("MSM: matches the @noble/curves vectors", "[crypto]") {
  check_vectors<G1>("msm_g1.json");
  check_vectors<G2>("msm_g2.json");
}
