// zkpipe-bench-groth16: the whole Groth16 prover on synthetic circuits of 2^k constraints (domain
// 2^k: m = 2^k - 3 constraints with 2 public inputs, as snarkjs sizes its domain), broken down
// into synthesis (witness mode + a/b/c products), NTTs and MSMs, next to the same NTTs and MSMs
// run standalone (the prover's overhead), plus verification of one proof and a batch of 16.
// One `key=value` line per size; medians of --runs. --export=DIR writes DIR/k<k>.r1cs and .wtns
// so snarkjs can prove the same circuit (tools/bench/groth16/vs_snarkjs.sh).
//   zkpipe-bench-groth16 [--logn=12,14,16] [--threads=2] [--runs=3] [--export=DIR]
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/percentile.h"

namespace zkpipe::groth16 {
namespace {

void die(const Status& s) {
  std::fprintf(stderr, "zkpipe-bench-groth16: %s\n", s.to_string().c_str());
  std::exit(1);
}

struct Sample {
  double synth = 0, ntt = 0, msm_g1 = 0, msm_g2 = 0, prove = 0, standalone = 0;
};

// The prover's NTTs and MSMs called directly on the same data (no gathering, no checks).
double standalone(const ProvingKey& pk, const WitnessView& w, const std::vector<Fr>& abc_src,
                  unsigned threads) {
  const size_t n = pk.domain_size;
  std::vector<Fr> v(abc_src);
  std::vector<Fr> all(w.inputs.begin(), w.inputs.end());
  all.insert(all.end(), w.aux.begin(), w.aux.end());
  const int64_t t0 = now_ns();
  for (int k = 0; k < 3; ++k) {
    Fr* p = v.data() + k * n;
    (void)crypto::ntt_inverse(p, n, threads);
    (void)crypto::ntt_coset_forward(p, n, threads);
  }
  (void)crypto::ntt_coset_inverse(v.data(), n, threads);
  auto msm = [&](auto bases, const Fr* s) {
    if (!bases.empty()) (void)crypto::msm(bases.data(), s, bases.size(), threads);
  };
  msm(pk.h_query, v.data());
  msm(pk.l_query, w.aux.data());
  msm(pk.a_query, all.data());
  msm(pk.b_g1_query, all.data() + pk.num_inputs);
  msm(pk.b_g2_query, all.data() + pk.num_inputs);
  return seconds_since(t0);
}

void run_size(unsigned logn, unsigned threads, int runs, const std::string& export_dir) {
  const ExampleCircuit circuit{"synthetic", (uint64_t{1} << logn) - 3, 42};
  auto rec = ConstraintSystem::recorder();
  if (auto s = synthesize_example(circuit, rec); !s.ok()) die(s);
  const R1cs r1cs = rec.take_r1cs();
  int64_t t = now_ns();
  SetupOptions so;
  so.threads = threads;
  auto pk_or = setup(r1cs, ToxicWaste::from_seed(1), so);
  if (!pk_or.ok()) die(pk_or.status());
  const ProvingKey pk = std::move(pk_or).value();
  const double setup_s = seconds_since(t);
  const size_t n = pk.domain_size;
  std::vector<Fr> inputs(r1cs.num_inputs), aux(r1cs.num_aux), abc(3 * n);
  const WitnessView w{inputs, aux};
  ProverOptions po;
  po.threads = threads;
  std::vector<Sample> samples;
  Proof proof;
  for (int r = 0; r < runs + 1; ++r) {  // the first run warms caches and twiddles
    Sample s;
    t = now_ns();
    auto cs = ConstraintSystem::witness({inputs, aux});
    if (auto st = synthesize_example(circuit, cs); !st.ok()) die(st);
    if (auto st = evaluate_abc(r1cs, w, abc.data(), abc.data() + n, abc.data() + 2 * n, n, threads);
        !st.ok()) {
      die(st);
    }
    s.synth = seconds_since(t);
    const std::vector<Fr> abc_copy = abc;
    t = now_ns();
    auto pending = prove_start(pk, {w, abc.data(), abc.data() + n, abc.data() + 2 * n, n}, po);
    if (!pending.ok()) die(pending.status());
    const ProverTimings tm = pending->timings;
    auto finished = prove_finish(std::move(pending).value(), ProverRandomness::secure(), po);
    if (!finished.ok()) die(finished.status());
    s.prove = seconds_since(t);
    proof = *finished;
    s.ntt = tm.ntt_ns * 1e-9;
    s.msm_g1 = (tm.h_msm_ns + tm.l_msm_ns + tm.a_msm_ns + tm.b_g1_msm_ns) * 1e-9;
    s.msm_g2 = s.prove - s.ntt - s.msm_g1;  // b_g2 MSM + assembly (prove_finish)
    s.standalone = standalone(pk, w, abc_copy, threads);
    if (r > 0) samples.push_back(s);
  }
  auto med = [&](double Sample::*f) {
    std::vector<double> v;
    for (const auto& s : samples) v.push_back(s.*f);
    return median(v);
  };
  const PreparedVerifyingKey pvk(pk.vk);
  const std::vector<Fr> x(inputs.begin() + 1, inputs.end());
  std::vector<double> v1, v16;
  std::vector<Proof> proofs(16, proof);
  std::vector<std::vector<Fr>> xs(16, x);
  for (int r = 0; r < 9; ++r) {
    t = now_ns();
    auto ok = verify(pvk, proof, x);
    v1.push_back(seconds_since(t));
    if (!ok.ok() || !*ok) die(internal_error("proof does not verify"));
    t = now_ns();
    auto ok16 = verify_batch(pvk, proofs, xs);
    v16.push_back(seconds_since(t));
    if (!ok16.ok() || !*ok16) die(internal_error("batch does not verify"));
  }
  const double prove_s = med(&Sample::prove), stand = med(&Sample::standalone);
  std::printf(
      "op=groth16 logn=%u constraints=%llu threads=%u setup_s=%.3f synth_s=%.4f ntt_s=%.4f "
      "msm_g1_s=%.4f finish_s=%.4f prove_s=%.4f total_s=%.4f standalone_s=%.4f overhead=%.3f "
      "verify_ms=%.3f batch16_ms=%.3f\n",
      logn, static_cast<unsigned long long>(r1cs.num_constraints()), threads, setup_s,
      med(&Sample::synth), med(&Sample::ntt), med(&Sample::msm_g1), med(&Sample::msm_g2), prove_s,
      med(&Sample::synth) + prove_s, stand, prove_s / stand - 1, median(v1) * 1e3,
      median(v16) * 1e3);
  std::fflush(stdout);
  if (!export_dir.empty()) {
    std::filesystem::create_directories(export_dir);
    const std::string base = export_dir + "/k" + std::to_string(logn);
    if (auto s = write_iden3_r1cs(base + ".r1cs", r1cs); !s.ok()) die(s);
    if (auto s = write_iden3_wtns(base + ".wtns", w); !s.ok()) die(s);
  }
}

}  // namespace
}  // namespace zkpipe::groth16

int main(int argc, char** argv) {
  CLI::App app{"zkpipe-bench-groth16: Groth16 prover timings on synthetic circuits"};
  std::vector<unsigned> logn{12, 14, 16};
  unsigned threads = 2;
  int runs = 3;
  std::string export_dir;
  app.add_option("--logn", logn, "log2 of the domain sizes")->delimiter(',');
  app.add_option("--threads", threads, "prover threads (0: all)");
  app.add_option("--runs", runs, "timed runs per size (median)")->check(CLI::Range(1, 100));
  app.add_option("--export", export_dir, "write k<logn>.r1cs/.wtns here for snarkjs");
  CLI11_PARSE(app, argc, argv);
  for (unsigned k : logn) {
    if (k < 2 || k > 26) {
      std::fprintf(stderr, "zkpipe-bench-groth16: --logn %u out of range 2..26\n", k);
      return 2;
    }
    zkpipe::groth16::run_size(k, threads, runs, export_dir);
  }
  return 0;
}
