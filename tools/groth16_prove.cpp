// `zkpipe-tool groth16 prove`: the prover as an engine runs it, from files: map the params file
// (validated, or --trusted), load the R1CS cache beside it, synthesize an example circuit in
// witness mode into buffers, a/b/c by the sparse products over the cached R1CS, prove_start +
// prove_finish, verify; only a proof that verifies is written. Prints where the time went.
// Thread-safety: main thread only (the engine calls spread work over threads themselves).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::tool {
namespace {

using namespace zkpipe::groth16;

struct ProveOptions {
  std::string params, csr, circuit = "synthetic", out;
  uint64_t size = 1024, seed = 1;
  unsigned threads = 0;
  bool trusted = false;
};

int prove_fail(const char* step, const Status& s) {
  fmt::print(stderr, "groth16 prove: {}: {}\n", step, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

int run_prove(const ProveOptions& o) {
  if (!o.out.empty()) {
    if (auto s = check_output_dir(o.out, "--out"); !s.ok()) return prove_fail("write", s);
  }
  int64_t t = now_ns();
  ParamsLoadOptions lo = o.trusted ? ParamsLoadOptions::trusted() : ParamsLoadOptions{};
  lo.threads = o.threads;
  auto pk = load_params(o.params, lo);
  if (!pk.ok()) return prove_fail("params", pk.status());
  const double load_ms = ms_since(t);
  t = now_ns();
  const std::string csr = o.csr.empty() ? o.params + ".csr" : o.csr;
  auto r1cs = load_r1cs_cache(csr);
  if (!r1cs.ok()) return prove_fail("r1cs cache", r1cs.status());
  const double csr_ms = ms_since(t);
  if (r1cs->num_inputs != pk->num_inputs || r1cs->num_aux != pk->num_aux ||
      r1cs->domain_size() != pk->domain_size) {
    return prove_fail("r1cs cache",
                      invalid_argument(fmt::format(
                          "{} ({} inputs, {} aux, domain {}) does not match {} ({}, {}, {})", csr,
                          r1cs->num_inputs, r1cs->num_aux, r1cs->domain_size(), o.params,
                          pk->num_inputs, pk->num_aux, pk->domain_size)));
  }
  // Witness mode into buffers (as a memory backend would hand them out), then a/b/c.
  t = now_ns();
  const size_t n = pk->domain_size;
  std::vector<Fr> inputs(r1cs->num_inputs), aux(r1cs->num_aux), a(n), b(n), c(n);
  auto cs = ConstraintSystem::witness({inputs, aux});
  if (auto s = synthesize_example({o.circuit, o.size, o.seed}, cs); !s.ok()) {
    return prove_fail("synthesis", s);
  }
  if (cs.num_constraints() != r1cs->num_constraints() || cs.num_aux() != r1cs->num_aux ||
      cs.num_inputs() != r1cs->num_inputs) {
    return prove_fail("synthesis",
                      invalid_argument(fmt::format(
                          "circuit {} --size {} has {} constraints, {} inputs, {} aux; "
                          "the cached R1CS {} has {}, {}, {}: another circuit shape",
                          o.circuit, o.size, cs.num_constraints(), cs.num_inputs(), cs.num_aux(),
                          csr, r1cs->num_constraints(), r1cs->num_inputs, r1cs->num_aux)));
  }
  const WitnessView w{inputs, aux};
  if (auto s = evaluate_abc(*r1cs, w, a.data(), b.data(), c.data(), n, o.threads); !s.ok()) {
    return prove_fail("a/b/c", s);
  }
  const double synth_ms = ms_since(t);
  t = now_ns();
  ProverOptions po;
  po.threads = o.threads;
  auto pending = prove_start(*pk, {w, a.data(), b.data(), c.data(), n}, po);
  if (!pending.ok()) return prove_fail("prove_start", pending.status());
  const ProverTimings tm = pending->timings;
  const double start_ms = ms_since(t);
  t = now_ns();
  auto proof = prove_finish(std::move(pending).value(), ProverRandomness::secure(), po);
  if (!proof.ok()) return prove_fail("prove_finish", proof.status());
  const double finish_ms = ms_since(t);
  t = now_ns();
  const std::vector<Fr> x(inputs.begin() + 1, inputs.end());
  auto ok = verify(PreparedVerifyingKey(pk->vk), *proof, x);
  const double verify_ms = ms_since(t);
  if (!ok.ok()) return prove_fail("verify", ok.status());
  if (!*ok)
    return prove_fail("verify", internal_error("the proof does not verify; nothing written"));

  fmt::print("params      {:9.1f} ms ({})\n", load_ms, o.trusted ? "trusted: mapped" : "verified");
  fmt::print("r1cs cache  {:9.1f} ms ({} constraints)\n", csr_ms, r1cs->num_constraints());
  fmt::print("synthesis   {:9.1f} ms (witness mode + a/b/c)\n", synth_ms);
  fmt::print("prove_start {:9.1f} ms (NTT {:.1f}, MSM H {:.1f}, L {:.1f}, A {:.1f}, B1 {:.1f})\n",
             start_ms, tm.ntt_ns * 1e-6, tm.h_msm_ns * 1e-6, tm.l_msm_ns * 1e-6, tm.a_msm_ns * 1e-6,
             tm.b_g1_msm_ns * 1e-6);
  fmt::print("prove_finish{:9.1f} ms (MSM B2 + assembly)\n", finish_ms);
  fmt::print("verify      {:9.1f} ms: OK\n", verify_ms);
  if (!o.out.empty()) {
    std::string bytes(kProofBytes, '\0');
    encode_proof(*proof, reinterpret_cast<uint8_t*>(bytes.data()));
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"proof.bin", bytes},
                                     {"proof.json", export_snarkjs_proof(*proof)},
                                     {"public.json", export_snarkjs_public(x)},
                                     {"verification_key.json", export_snarkjs_vk(pk->vk)}}) {
      if (auto s = write_file(o.out + "/" + name, text); !s.ok()) return prove_fail("write", s);
    }
    fmt::print("wrote       {}/{{proof.bin, proof.json, public.json, verification_key.json}}\n",
               o.out);
  }
  return 0;
}

}  // namespace

void add_groth16_prove(CLI::App& groth16, int* exit_code) {
  auto o = std::make_shared<ProveOptions>();
  CLI::App* cmd = groth16.add_subcommand(
      "prove",
      "Prove an example circuit from a params file and its R1CS cache (witness mode + sparse "
      "products), verify, and write the proof; exit 0 when it verifies, 1 when not, 2 bad input");
  cmd->add_option("--params", o->params, "params file (zkpipe-tool params new)")->required();
  cmd->add_option("--csr", o->csr, "R1CS cache (default: PARAMS.csr)");
  cmd->add_option("--circuit", o->circuit, "cubic, mimc or synthetic (as for params new)")
      ->check(CLI::IsMember({"cubic", "mimc", "synthetic"}));
  cmd->add_option("--size", o->size, "mimc rounds or synthetic constraints");
  cmd->add_option("--seed", o->seed, "seed of the circuit's values");
  cmd->add_flag("--trusted", o->trusted, "map the params without checking points and checksums");
  cmd->add_option("--threads", o->threads, "worker threads (0: all)");
  cmd->add_option("--out", o->out, "write proof.bin and snarkjs JSON files here");
  cmd->callback(
      [o, exit_code] { *exit_code = guarded("groth16 prove", [&] { return run_prove(*o); }); });
}

}  // namespace zkpipe::tool
