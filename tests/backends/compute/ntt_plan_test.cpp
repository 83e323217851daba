// tests/backends/compute/ntt_plan_test.cpp: the GPU NTT's host side without a GPU: pass plans
// (every stage once, balanced, geometry), twiddle table sizes, refusals, and the host emulation of
// the kernels (ntt_emulate.h) against the CPU NTT (crypto/ntt.h) and the CPU quotient sequence of
// groth16/prover.cpp. Thread-safety: each test owns its data.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "crypto/random_points.h"
#include "ntt_emulate.h"
#include "ntt_plan.h"
#include "zkpipe/crypto/ntt.h"

using namespace zkpipe;
using namespace zkpipe::cuda_backend;
using crypto::Fr;
using crypto::NttDirection;

namespace {

using zkpipe::test::random_vector;

const HostNttTwiddles& twiddles14() {
  static const HostNttTwiddles t = *HostNttTwiddles::create(14);
  return t;
}

// prover.cpp's quotient() with the public CPU functions.
void cpu_quotient(Fr* a, Fr* b, Fr* c, size_t n) {
  const Fr n_inv = Fr::from_u64(n).inverse();
  const Fr g = crypto::ntt_coset_shift();
  for (Fr* v : {a, b, c}) {
    REQUIRE(crypto::ntt_nr(v, n, NttDirection::kInverse, 1).ok());
    REQUIRE(crypto::ntt_scale_powers(v, n, n_inv, g, true, 1).ok());
    REQUIRE(crypto::ntt_rn(v, n, NttDirection::kForward, 1).ok());
  }
  const Fr z_inv = (g.pow_u64(n) - Fr::one()).inverse();
  for (size_t i = 0; i < n; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
  REQUIRE(crypto::ntt_nr(a, n, NttDirection::kInverse, 1).ok());
  REQUIRE(crypto::ntt_scale_powers(a, n, n_inv, g.inverse(), true, 1).ok());
  REQUIRE(crypto::bit_reverse_permute(a, n, 1).ok());
}

}  // namespace

TEST_CASE("NttPlan: passes cover every stage once, balanced, in butterfly order", "[compute]") {
  for (unsigned max_tile : {1u, 3u, 7u, 10u}) {
    for (unsigned log_n = 1; log_n <= 32; ++log_n) {
      for (NttOrder order : {NttOrder::kNaturalToReversed, NttOrder::kReversedToNatural}) {
        auto plan = make_ntt_plan(log_n, order, max_tile);
        REQUIRE(plan.ok());
        REQUIRE(plan->num_passes == (log_n + max_tile - 1) / max_tile);
        std::vector<int> seen(log_n, 0);
        unsigned lo = 0, hi = 0;
        for (unsigned i = 0; i < plan->num_passes; ++i) {
          // Execution order: bottom up for rn, top down for nr.
          const NttPass& p =
              plan->passes[order == NttOrder::kReversedToNatural ? i : plan->num_passes - 1 - i];
          REQUIRE(p.lo_bit == lo);
          lo += p.tile_log;
          for (unsigned b = p.lo_bit; b < p.lo_bit + p.tile_log; ++b) seen[b]++;
          REQUIRE(p.tile_log >= 1);
          REQUIRE(p.tile_log <= max_tile);
          hi = std::max(hi, p.tile_log);
          REQUIRE(p.threads == (uint32_t{1} << (p.tile_log - 1 + p.block_tiles_log)));
          REQUIRE(p.blocks * (uint64_t{1} << (p.tile_log + p.block_tiles_log)) ==
                  (uint64_t{1} << log_n));
          // The tiles and a twiddle row per tile.
          REQUIRE(p.shared_bytes == 4 * p.threads * sizeof(Fr));
          REQUIRE(p.shared_bytes <= 64 * 1024);
          REQUIRE(p.threads <= 512);
          // Small tiles are grouped until a block has 256 threads (or the vector ends).
          REQUIRE((p.threads >= 256 || p.blocks == 1));
        }
        for (unsigned i = 0; i < plan->num_passes; ++i) {
          REQUIRE(plan->passes[i].tile_log + 1 >= hi);  // balanced
        }
        for (int s : seen) REQUIRE(s == 1);
      }
    }
  }
  auto p24 = make_ntt_plan(24, NttOrder::kNaturalToReversed);
  REQUIRE(p24.ok());
  REQUIRE(p24->num_passes == 3);
  REQUIRE(p24->passes[0].tile_log == 8);
  auto p27 = make_ntt_plan(27, NttOrder::kReversedToNatural);
  REQUIRE(p27.ok());
  REQUIRE(p27->num_passes == 3);
  for (unsigned i = 0; i < 3; ++i) REQUIRE(p27->passes[i].tile_log == 9);
}

TEST_CASE("NttPlan: refuses log_n 0 and 33 and bad tile sizes, naming them", "[compute]") {
  for (unsigned bad : {0u, 33u}) {
    auto plan = make_ntt_plan(bad, NttOrder::kNaturalToReversed);
    REQUIRE_FALSE(plan.ok());
    REQUIRE(plan.status().code() == Code::kInvalidArgument);
    REQUIRE_THAT(plan.status().message(), Catch::Contains("log_n " + std::to_string(bad)));
    auto layout = make_twiddle_layout(bad);
    REQUIRE_FALSE(layout.ok());
    REQUIRE(layout.status().code() == Code::kInvalidArgument);
  }
  for (unsigned bad : {0u, 11u}) {
    auto plan = make_ntt_plan(12, NttOrder::kReversedToNatural, bad);
    REQUIRE_FALSE(plan.ok());
    REQUIRE_THAT(plan.status().message(), Catch::Contains("max_tile_log " + std::to_string(bad)));
  }
  REQUIRE(ntt_log_size(3, "x").status().code() == Code::kInvalidArgument);
  REQUIRE(ntt_log_size(0, "x").status().code() == Code::kInvalidArgument);
  REQUIRE(*ntt_log_size(1, "x") == 0);
}

TEST_CASE("NttPlan: two-level twiddle tables are small and hold the right powers", "[compute]") {
  auto l27 = make_twiddle_layout(27);
  REQUIRE(l27.ok());
  REQUIRE(l27->bytes() == 2 * (8192 + 8192) * 32);  // 1 MiB, against 2 GiB for 2^26 powers
  auto l32 = make_twiddle_layout(32);
  REQUIRE(l32.ok());
  REQUIRE(l32->bytes() <= 6 * 1024 * 1024);
  for (unsigned max_log : {1u, 2u, 5u, 10u}) {
    auto tw = HostNttTwiddles::create(max_log);
    REQUIRE(tw.ok());
    const Fr w = crypto::ntt_root_of_unity(max_log);
    const uint64_t half = uint64_t{1} << (max_log - 1);
    for (NttDirection d : {NttDirection::kForward, NttDirection::kInverse}) {
      const Fr base = d == NttDirection::kForward ? w : w.inverse();
      const NttTwiddleView v = tw->view(d);
      Fr p = Fr::one();
      for (uint64_t i = 0; i < half; ++i, p *= base) REQUIRE(ntt_twiddle(v, i) == p);
    }
  }
}

TEST_CASE("NttEmulate: ntt_nr and ntt_rn equal the CPU NTT, multi-pass, batch 2", "[compute]") {
  const auto& tw = twiddles14();
  for (unsigned max_tile : {1u, 3u, 10u}) {
    for (unsigned log_n = 1; log_n <= 14; ++log_n) {
      const size_t n = size_t{1} << log_n;
      for (NttDirection d : {NttDirection::kForward, NttDirection::kInverse}) {
        CAPTURE(max_tile, log_n, d == NttDirection::kForward);
        const auto x = random_vector(2 * n, log_n * 31 + max_tile);
        auto want = x;
        REQUIRE(crypto::ntt_nr(want.data(), n, d, 1).ok());
        REQUIRE(crypto::ntt_nr(want.data() + n, n, d, 1).ok());
        // In place.
        auto got = x;
        REQUIRE(emulate_ntt_nr(got.data(), nullptr, log_n, d, tw, 2, max_tile).ok());
        REQUIRE(got == want);
        // Out of place: the source stays untouched.
        std::vector<Fr> out(2 * n);
        REQUIRE(emulate_ntt_nr(out.data(), x.data(), log_n, d, tw, 2, max_tile).ok());
        REQUIRE(out == want);

        auto want_rn = x;
        REQUIRE(crypto::ntt_rn(want_rn.data(), n, d, 1).ok());
        REQUIRE(crypto::ntt_rn(want_rn.data() + n, n, d, 1).ok());
        auto got_rn = x;
        REQUIRE(emulate_ntt_rn(got_rn.data(), nullptr, log_n, d, tw, 2, max_tile).ok());
        REQUIRE(got_rn == want_rn);
        std::fill(out.begin(), out.end(), Fr::zero());
        REQUIRE(emulate_ntt_rn(out.data(), x.data(), log_n, d, tw, 2, max_tile).ok());
        REQUIRE(out == want_rn);
      }
    }
  }
}

TEST_CASE("NttEmulate: refuses sizes beyond the twiddle tables", "[compute]") {
  std::vector<Fr> v(size_t{1} << 15);
  auto st = emulate_ntt_nr(v.data(), nullptr, 15, NttDirection::kForward, twiddles14());
  REQUIRE(st.code() == Code::kInvalidArgument);
  REQUIRE_THAT(st.message(), Catch::Contains("log_n 15"));
}

TEST_CASE("NttEmulate: scale_powers and bit_reverse equal the CPU", "[compute]") {
  const Fr c = Fr::from_u64(12345);
  const Fr g = crypto::ntt_coset_shift();
  for (unsigned log_n = 0; log_n <= 14; ++log_n) {
    const size_t n = size_t{1} << log_n;
    for (bool brv : {false, true}) {
      CAPTURE(log_n, brv);
      const auto x = random_vector(2 * n, 77 + log_n);
      auto want = x;
      REQUIRE(crypto::ntt_scale_powers(want.data(), n, c, g, brv, 1).ok());
      REQUIRE(crypto::ntt_scale_powers(want.data() + n, n, c, g, brv, 1).ok());
      auto got = x;
      REQUIRE(emulate_scale_powers(got.data(), n, c, g, brv, 2).ok());
      REQUIRE(got == want);
    }
    auto x = random_vector(n, 5 + log_n);
    auto want = x;
    REQUIRE(crypto::bit_reverse_permute(want.data(), n, 1).ok());
    REQUIRE(emulate_bit_reverse(x.data(), n).ok());
    REQUIRE(x == want);
  }
}

TEST_CASE("NttEmulate: the quotient equals prover.cpp's CPU sequence", "[compute]") {
  const auto& tw = twiddles14();
  for (unsigned max_tile : {1u, 3u, 10u}) {
    for (unsigned log_n = 1; log_n <= 14; ++log_n) {
      CAPTURE(max_tile, log_n);
      const size_t n = size_t{1} << log_n;
      auto a = random_vector(n, 1000 + log_n), b = random_vector(n, 2000 + log_n),
           c = random_vector(n, 3000 + log_n);
      auto ea = a, eb = b, ec = c;
      cpu_quotient(a.data(), b.data(), c.data(), n);
      REQUIRE(emulate_quotient(ea.data(), eb.data(), ec.data(), n, tw, max_tile).ok());
      REQUIRE(ea == a);
    }
  }
}
