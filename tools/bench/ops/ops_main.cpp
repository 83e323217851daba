// zkpipe-bench-ops: whole-operation timings of the BLS12-381 core, one `key=value` line per
// measurement, in a protocol shared with the peer harnesses used for the README's ratio table
// (same operations, same splitmix64 input streams and seeds, same `check=` value: the low 64
// bits of a canonical result coordinate, so equal checks mean equal results across libraries).
//   zkpipe-bench-ops fp_mul|fr_mul|pairing|multi_pairing|g1_msm|g2_msm|ntt|smoke
//       [--logn=a,b] [--threads=1,2] [--runs=9] [--warmup=1] [--iters=N] [--pairings=N] [--seed=N]
//       [--scalars=random|porep]
// Each line ends with kernels=ifma|scalar: the MSM and NTT path that ran (AVX-512 IFMA where the
// CPU has it; ZKPIPE_CPU_KERNELS=scalar forces the portable path: zkpipe/crypto/cpu_kernels.h).
// A run is: fp_mul/fr_mul a chain of n dependent x = x * y; pairing n pairings; multi_pairing n
// products of 4 pairings; g1_msm/g2_msm one MSM of n points; ntt one forward NTT of n elements
// (input re-copied before each run, untimed). Medians of --runs timed runs after --warmup.
// --scalars porep: the MSM scalars of a real porep 2KiB witness's shares (zkpipe-bench-synthesis
// --scalars: 48.0% zeros, 48.1% ones, the rest random, at random places), each size timed with
// the 0/1 split (msm.h) and without it, side by side (split=on / split=off in the line).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zkpipe/crypto/cpu_kernels.h"
#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/crypto/pairing.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/percentile.h"

namespace zkpipe::crypto {
namespace {

struct Args {
  std::string op;
  std::vector<int> logn, threads;
  int runs = 9, warmup = 1;
  long iters = 10000000;
  int pairings = 100;
  uint64_t seed = 0x5eed;
  std::string scalars = "random";  // MSM scalars: random | porep
  std::string kernels;             // ifma | scalar: the MSM and NTT path (cpu_kernels.h)
};

// splitmix64: the input stream every harness of the comparison uses.
struct SplitMix {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Uniform 255-bit values below r by rejection, as little-endian limbs.
Fr random_scalar(SplitMix& rng) {
  for (;;) {
    Limbs<4> v;
    for (auto& x : v) x = rng.next();
    v[3] &= 0x7fffffffffffffffull;
    if (limbs_less(v, Fr::kModulus)) return Fr::from_canonical(v);
  }
}
std::vector<Fr> random_scalars(uint64_t seed, size_t n) {
  SplitMix rng{seed};
  std::vector<Fr> v(n);
  for (auto& x : v) x = random_scalar(rng);
  return v;
}

template <typename F>
std::string hex_tail(const F& x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x.to_canonical()[0]));
  return buf;
}

template <typename Run, typename Setup>
std::vector<double> time_runs(const Args& a, Run&& run, Setup&& setup) {
  for (int i = 0; i < a.warmup; ++i) {
    setup();
    run();
  }
  std::vector<double> t;
  for (int i = 0; i < a.runs; ++i) {
    setup();
    const int64_t t0 = now_ns();
    run();
    t.push_back(seconds_since(t0));
  }
  return t;
}
template <typename Run>
std::vector<double> time_runs(const Args& a, Run&& run) {
  return time_runs(a, run, [] {});
}

void print_line(const char* op, size_t n, int threads, const Args& a, std::vector<double> t,
                const std::string& extra) {
  std::sort(t.begin(), t.end());
  std::printf(
      "peer=zkpipe op=%s n=%zu threads=%d median_s=%.6g min_s=%.6g max_s=%.6g runs=%d%s "
      "kernels=%s\n",
      op, n, threads, median(t), t.front(), t.back(), a.runs, extra.c_str(), a.kernels.c_str());
  std::fflush(stdout);
}

template <typename F>
void bench_mul(const Args& a, const char* name, uint64_t seed_xor) {
  SplitMix rng{a.seed ^ seed_xor};
  F y;
  if constexpr (F::kLimbs == 6) {
    Limbs<6> yl;
    for (auto& v : yl) v = rng.next();
    yl[5] &= 0x0fffffffffffffffull;
    y = F::from_canonical(yl);
  } else {
    y = random_scalar(rng);
  }
  const F x0 = F::from_u64(3);
  F x = x0;
  const long iters = a.iters;
  auto t = time_runs(a, [&] {
    x = x0;
    for (long i = 0; i < iters; ++i) x *= y;  // in place, as the peers call theirs
  });
  char extra[96];
  std::snprintf(extra, sizeof extra, " ns_per_op=%.3f check=%s", median(t) / iters * 1e9,
                hex_tail(x).c_str());
  print_line(name, iters, 1, a, t, extra);
}

void bench_pairing(const Args& a, bool multi) {
  const auto k = random_scalars(a.seed ^ 0xe1, 8);
  std::vector<PairingInput> pairs;
  for (int i = 0; i < 4; ++i) {
    const G1Affine p = (G1::from_affine(g1_generator()) * k[2 * i]).to_affine();
    const G2Affine q = (G2::from_affine(g2_generator()) * k[2 * i + 1]).to_affine();
    pairs.emplace_back(p, q);
  }
  Fp12 e;
  const int m = a.pairings;
  auto t = time_runs(a, [&] {
    for (int i = 0; i < m; ++i)
      e = multi ? multi_pairing(pairs) : pairing(pairs[0].first, pairs[0].second);
  });
  char extra[96];
  std::snprintf(extra, sizeof extra, " us_per_op=%.3f check=%s", median(t) / m * 1e6,
                hex_tail(e.c0.c0.c0).c_str());
  print_line(multi ? "multi_pairing4" : "pairing", m, 1, a, t, extra);
}

template <typename G, int kGroup>
void bench_msm(const Args& a) {
  using Affine = typename G::Affine;
  std::vector<int> logn = a.logn;
  if (logn.empty())
    logn =
        kGroup == 1 ? std::vector<int>{10, 12, 14, 16, 18, 20} : std::vector<int>{10, 12, 14, 16};
  const std::vector<int> threads = a.threads.empty() ? std::vector<int>{1, 2} : a.threads;
  G gen;
  if constexpr (kGroup == 1) {
    gen = G::from_affine(g1_generator());
  } else {
    gen = G::from_affine(g2_generator());
  }
  const char* name = kGroup == 1 ? "g1_msm" : "g2_msm";
  for (int lg : logn) {
    const size_t n = size_t{1} << lg;
    // Inputs (untimed): P_0 = k G, P_i = P_{i-1} + G; scalars uniform below r.
    const int64_t t0 = now_ns();
    std::vector<G> jac(n);
    jac[0] = gen * random_scalars(a.seed ^ (0x100 + kGroup), 1)[0];
    for (size_t i = 1; i < n; ++i) jac[i] = jac[i - 1] + gen;
    std::vector<Affine> points(n);
    G::batch_to_affine(jac.data(), points.data(), n);
    std::vector<G>().swap(jac);
    auto scalars = random_scalars(a.seed ^ (0x200 + kGroup) ^ (uint64_t(lg) << 16), n);
    if (a.scalars == "porep") {
      SplitMix pick{a.seed ^ (0x400 + kGroup) ^ (uint64_t(lg) << 16)};
      for (Fr& k : scalars) {
        const uint64_t u = pick.next() % 1000;
        if (u < 480)
          k = Fr::zero();
        else if (u < 961)
          k = Fr::one();
      }
    }
    std::fprintf(stderr, "# zkpipe %s n=2^%d input generation %.2fs\n", name, lg,
                 seconds_since(t0));
    const std::vector<bool> splits =
        a.scalars == "porep" ? std::vector<bool>{true, false} : std::vector<bool>{true};
    for (int th : threads) {
      for (const bool split : splits) {
        MsmOptions options;
        options.threads = static_cast<unsigned>(th);
        options.split_ones = split;
        std::vector<G> results;
        auto t = time_runs(
            a, [&] { results.push_back(msm(points.data(), scalars.data(), n, options)); });
        const Affine first = results.front().to_affine();
        bool consistent = true;
        for (const auto& r : results) consistent = consistent && r.to_affine() == first;
        std::string extra = " check=";
        if constexpr (kGroup == 1) {
          extra += hex_tail(first.x);
        } else {
          extra += hex_tail(first.x.c0);
        }
        const MsmPlan plan = kGroup == 1 ? msm_plan_g1(n, th) : msm_plan_g2(n, th);
        extra += " window=" + std::to_string(plan.window_bits) +
                 (plan.batch_affine ? " buckets=batch_affine" : " buckets=jacobian");
        extra += " scalars=" + a.scalars;
        if (a.scalars == "porep") extra += split ? " split=on" : " split=off";
        if (!consistent) extra += " INCONSISTENT_RESULTS";
        print_line(name, n, th, a, t, extra);
      }
    }
  }
}

void bench_ntt(const Args& a) {
  std::vector<int> logn = a.logn;
  if (logn.empty())
    for (int i = 10; i <= 22; ++i) logn.push_back(i);
  const std::vector<int> threads = a.threads.empty() ? std::vector<int>{1} : a.threads;
  for (int lg : logn) {
    const size_t n = size_t{1} << lg;
    const auto in = random_scalars(a.seed ^ 0x300 ^ (uint64_t(lg) << 16), n);
    std::vector<Fr> xs(n);
    for (int th : threads) {
      Status status;
      auto t = time_runs(
          a, [&] { status = ntt_forward(xs.data(), n, static_cast<unsigned>(th)); },
          [&] { xs = in; });
      std::vector<Fr> back = xs;
      const bool ok = status.ok() && ntt_inverse(back.data(), n, 1).ok() && back == in;
      print_line("ntt", n, th, a, t,
                 " check=" + hex_tail(xs[1]) + (ok ? " roundtrip=ok" : " roundtrip=FAIL"));
    }
  }
}

}  // namespace
}  // namespace zkpipe::crypto

int main(int argc, char** argv) {
  using namespace zkpipe::crypto;
  Args a;
  CLI::App app{"zkpipe-bench-ops: whole-operation timings of the BLS12-381 core (medians)"};
  app.add_option("op", a.op,
                 "fp_mul | fr_mul | pairing | multi_pairing | g1_msm | g2_msm | ntt | smoke")
      ->required()
      ->check(CLI::IsMember(
          {"fp_mul", "fr_mul", "pairing", "multi_pairing", "g1_msm", "g2_msm", "ntt", "smoke"}));
  app.add_option("--logn", a.logn, "log2 sizes (MSM, NTT), comma separated")->delimiter(',');
  app.add_option("--threads", a.threads, "thread counts (MSM, NTT), comma separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  app.add_option("--runs", a.runs, "timed runs (the median is reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup", a.warmup, "untimed runs first")->check(CLI::Range(0, 100));
  app.add_option("--iters", a.iters, "chain length of fp_mul / fr_mul")->check(CLI::PositiveNumber);
  app.add_option("--pairings", a.pairings, "pairings per run")->check(CLI::PositiveNumber);
  app.add_option("--seed", a.seed, "input seed (same seed, same inputs as the peer harnesses)");
  app.add_option("--scalars", a.scalars,
                 "MSM scalars: random, or porep (48% zeros, 48% ones: timed with and without "
                 "the 0/1 split)")
      ->check(CLI::IsMember({"random", "porep"}));
  CLI11_PARSE(app, argc, argv);
  for (int lg : a.logn) {
    if (lg < 0 || lg > 28) {
      std::fprintf(stderr, "--logn: %d is outside 0..28\n", lg);
      return 2;
    }
  }
  if (std::optional<std::string> bad = cpu_kernels_error()) {
    std::fprintf(stderr, "zkpipe-bench-ops: %s\n", bad->c_str());
    return 2;
  }
  a.kernels = cpu_ifma_active() ? "ifma" : "scalar";
  if (a.op == "fp_mul") bench_mul<Fp>(a, "fp_mul", 0xf1);
  if (a.op == "fr_mul") bench_mul<Fr>(a, "fr_mul", 0xf2);
  if (a.op == "pairing") bench_pairing(a, false);
  if (a.op == "multi_pairing") bench_pairing(a, true);
  if (a.op == "g1_msm") bench_msm<G1, 1>(a);
  if (a.op == "g2_msm") bench_msm<G2, 2>(a);
  if (a.op == "ntt") bench_ntt(a);
  if (a.op == "smoke") {
    bench_mul<Fp>(a, "fp_mul", 0xf1);
    bench_mul<Fr>(a, "fr_mul", 0xf2);
    bench_pairing(a, false);
    Args b = a;
    b.logn = {16};
    b.threads = {1, 2};
    bench_msm<G1, 1>(b);
    b.logn = {12};
    bench_msm<G2, 2>(b);
  }
  return 0;
}
