// Micro-benchmarks of field and curve arithmetic: Fp/Fr mul and square (latency: a dependent
// chain), G1 add / mixed add / double. Run: build/bin/zkpipe-bench-crypto --benchmark_filter=Fp
#include <random>

#include <benchmark/benchmark.h>

#include "zkpipe/crypto/curves.h"

namespace zkpipe::crypto {
namespace {

template <typename F>
void field_mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F a = F::random(rng), b = F::random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

template <typename F>
void field_sqr(benchmark::State& state) {
  std::mt19937_64 rng(2);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.sqr();
    benchmark::DoNotOptimize(a);
  }
}

template <typename F>
void field_inverse(benchmark::State& state) {
  std::mt19937_64 rng(3);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.inverse() + F::one();
    benchmark::DoNotOptimize(a);
  }
}

G1 random_g1(std::mt19937_64& rng) {
  return G1::from_affine(g1_generator()) * Fr::random(rng);
}

void g1_add(benchmark::State& state) {
  std::mt19937_64 rng(4);
  G1 p = random_g1(rng), q = random_g1(rng);
  for (auto _ : state) {
    p = p + q;
    benchmark::DoNotOptimize(p);
  }
}

void g1_add_mixed(benchmark::State& state) {
  std::mt19937_64 rng(5);
  G1 p = random_g1(rng);
  G1Affine q = random_g1(rng).to_affine();
  for (auto _ : state) {
    p = p.add_mixed(q);
    benchmark::DoNotOptimize(p);
  }
}

void g1_double(benchmark::State& state) {
  std::mt19937_64 rng(6);
  G1 p = random_g1(rng);
  for (auto _ : state) {
    p = p.dbl();
    benchmark::DoNotOptimize(p);
  }
}

BENCHMARK_TEMPLATE(field_mul, Fp)->Name("Fp/mul");
BENCHMARK_TEMPLATE(field_sqr, Fp)->Name("Fp/sqr");
BENCHMARK_TEMPLATE(field_inverse, Fp)->Name("Fp/inverse");
BENCHMARK_TEMPLATE(field_mul, Fr)->Name("Fr/mul");
BENCHMARK_TEMPLATE(field_sqr, Fr)->Name("Fr/sqr");
BENCHMARK(g1_add)->Name("G1/add");
BENCHMARK(g1_add_mixed)->Name("G1/add_mixed");
BENCHMARK(g1_double)->Name("G1/double");

}  // namespace
}  // namespace zkpipe::crypto
