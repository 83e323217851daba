// `zkpipe-tool groth16`: the Groth16 engine end to end on the CPU and its snarkjs interop.
//   demo    records an example circuit, runs a seeded (NOT ceremony) setup, proves, verifies, and
//           writes the snarkjs JSON files, the iden3 .r1cs/.wtns and our binary proof/key.
//   verify  checks snarkjs JSON files (verification_key.json, proof.json, public.json) with our
//           verifier: exit 0 "OK" when valid, 1 when invalid, 2 for bad input.
//   prove-zkey  proves with a snarkjs .zkey and .wtns, verifies the proof with our verifier (never
//           writes an invalid proof) and writes snarkjs's proof.json and public.json.
// Thread-safety: main thread only (the engine calls spread work over threads themselves).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/groth16/zkey.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/file_io.h"

namespace zkpipe::tool {
namespace {

using namespace zkpipe::groth16;

struct DemoOptions {
  std::string circuit = "cubic";
  uint64_t size = 100;
  uint64_t seed = 1;
  std::string out;
  unsigned threads = 0;
};

struct VerifyOptions {
  std::string vk, proof, public_inputs;
};

struct ProveZkeyOptions {
  std::string zkey, wtns, proof, public_inputs;
  unsigned threads = 0;
};

// Exit code 2 for bad input (an unknown circuit, a size out of range), 1 for anything else.
int demo_fail(const char* step, const Status& s) {
  fmt::print(stderr, "groth16 demo: {}: {}\n", step, s.to_string());
  return s.code() == Code::kInvalidArgument ? 2 : 1;
}

int run_demo(const DemoOptions& opts) {
  const ExampleCircuit circuit{opts.circuit, opts.size, opts.seed};
  const int64_t synthesis_start = now_ns();
  ConstraintSystem cs = ConstraintSystem::recorder();
  if (Status s = synthesize_example(circuit, cs); !s.ok()) return demo_fail("synthesis", s);
  R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  const WitnessView witness{inputs, aux};
  if (Status s = check_satisfied(r1cs, witness, opts.threads); !s.ok()) {
    return demo_fail("check_satisfied", s);
  }
  const double synthesis_ms = ms_since(synthesis_start);
  const std::string size_text =
      opts.circuit == "cubic" ? std::string() : fmt::format("size {}, ", opts.size);
  fmt::print("circuit    {} ({}seed {}): {} constraints, {} public inputs, {} aux\n", opts.circuit,
             size_text, opts.seed, r1cs.num_constraints(), r1cs.num_inputs - 1, r1cs.num_aux);

  fmt::print("warning: {}\n", kNotACeremony);
  const int64_t setup_start = now_ns();
  SetupOptions setup_options;
  setup_options.threads = opts.threads;
  auto pk = setup(r1cs, ToxicWaste::from_seed(opts.seed), setup_options);
  if (!pk.ok()) return demo_fail("setup", pk.status());
  const double setup_ms = ms_since(setup_start);

  const int64_t prove_start = now_ns();
  const size_t n = pk->domain_size;
  std::vector<Fr> a(n), b(n), c(n);
  if (Status s = evaluate_abc(r1cs, witness, a.data(), b.data(), c.data(), n, opts.threads);
      !s.ok()) {
    return demo_fail("evaluate_abc", s);
  }
  ProverOptions prover_options;
  prover_options.threads = opts.threads;
  auto proof = prove(*pk, ProverInput{witness, a.data(), b.data(), c.data(), n},
                     ProverRandomness::secure(), prover_options);
  if (!proof.ok()) return demo_fail("prove", proof.status());
  const double prove_ms = ms_since(prove_start);

  const int64_t verify_start = now_ns();
  const std::span<const Fr> public_inputs = std::span<const Fr>(inputs).subspan(1);
  const PreparedVerifyingKey pvk(pk->vk);
  auto valid = verify(pvk, *proof, public_inputs);
  if (!valid.ok()) return demo_fail("verify", valid.status());
  const double verify_ms = ms_since(verify_start);

  fmt::print("synthesis  {:10.1f} ms\n", synthesis_ms);
  fmt::print("setup      {:10.1f} ms (domain {})\n", setup_ms, n);
  fmt::print("prove      {:10.1f} ms\n", prove_ms);
  fmt::print("verify     {:10.1f} ms: {}\n", verify_ms, *valid ? "OK" : "INVALID");
  if (!*valid) return 1;

  std::error_code ec;
  std::filesystem::create_directories(opts.out, ec);
  if (ec) return demo_fail("output", invalid_argument(opts.out + ": " + ec.message()));
  const std::filesystem::path dir(opts.out);
  auto file = [&](const char* name) { return (dir / name).string(); };
  std::vector<uint8_t> proof_bytes(kProofBytes);
  encode_proof(*proof, proof_bytes.data());
  const Status writes[] = {
      write_file(file("verification_key.json"), export_snarkjs_vk(pk->vk)),
      write_file(file("proof.json"), export_snarkjs_proof(*proof)),
      write_file(file("public.json"), export_snarkjs_public(public_inputs)),
      write_iden3_r1cs(file("circuit.r1cs"), r1cs),
      write_iden3_wtns(file("circuit.wtns"), witness),
      write_file(file("proof.bin"), proof_bytes),
      write_file(file("vk.bin"), encode_verifying_key(pk->vk)),
  };
  for (const Status& s : writes) {
    if (!s.ok()) return demo_fail("output", s);
  }
  fmt::print(
      "wrote      {}/{{verification_key.json, proof.json, public.json, circuit.r1cs, "
      "circuit.wtns, proof.bin, vk.bin}}\n",
      opts.out);
  return 0;
}

int run_verify(const VerifyOptions& opts) {
  auto bad_input = [](const Status& s) {
    fmt::print(stderr, "groth16 verify: {}\n", s.message());
    return 2;
  };
  auto vk_text = read_file(opts.vk);
  if (!vk_text.ok()) return bad_input(vk_text.status());
  auto proof_text = read_file(opts.proof);
  if (!proof_text.ok()) return bad_input(proof_text.status());
  auto public_text = read_file(opts.public_inputs);
  if (!public_text.ok()) return bad_input(public_text.status());
  auto vk = import_snarkjs_vk(*vk_text, opts.vk);
  if (!vk.ok()) return bad_input(vk.status());
  auto proof = import_snarkjs_proof(*proof_text, opts.proof);
  if (!proof.ok()) return bad_input(proof.status());
  auto public_inputs = import_snarkjs_public(*public_text, opts.public_inputs);
  if (!public_inputs.ok()) return bad_input(public_inputs.status());
  if (public_inputs->size() + 1 != vk->ic.size()) {
    return bad_input(invalid_argument(
        opts.public_inputs + ": " + std::to_string(public_inputs->size()) +
        " public inputs, the key (" + opts.vk + ") expects " + std::to_string(vk->ic.size() - 1)));
  }
  const PreparedVerifyingKey pvk(*vk);
  auto valid = verify(pvk, *proof, *public_inputs);
  if (!valid.ok()) return bad_input(valid.status());
  if (!*valid) {
    fmt::print("INVALID: the proof does not verify\n");
    return 1;
  }
  fmt::print("OK\n");
  return 0;
}

int run_prove_zkey(const ProveZkeyOptions& opts) {
  auto failed = [](const char* step, const Status& s) {
    fmt::print(stderr, "groth16 prove-zkey: {}: {}\n", step, s.to_string());
    return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
  };
  const int64_t read_start = now_ns();
  ZkeyReadOptions read_options;
  read_options.threads = opts.threads;
  auto key = read_snarkjs_zkey(opts.zkey, read_options);
  if (!key.ok()) return failed("zkey", key.status());
  auto witness = read_iden3_wtns(opts.wtns);
  if (!witness.ok()) return failed("wtns", witness.status());
  if (witness->size() != key->n_vars) {
    return failed("wtns", invalid_argument(opts.wtns + ": " + std::to_string(witness->size()) +
                                           " values, the key (" + opts.zkey +
                                           ") has nVars = " + std::to_string(key->n_vars)));
  }
  const double read_ms = ms_since(read_start);
  fmt::print("zkey       {}: {} signals, {} public, domain {}\n", opts.zkey, key->n_vars,
             key->n_public, key->domain_size);

  const int64_t prove_start = now_ns();
  auto proof = prove_with_zkey(*key, *witness, ProverRandomness::secure(), opts.threads);
  if (!proof.ok()) return failed("prove", proof.status());
  const double prove_ms = ms_since(prove_start);

  const int64_t verify_start = now_ns();
  const std::span<const Fr> public_inputs = std::span<const Fr>(*witness).subspan(1, key->n_public);
  const PreparedVerifyingKey pvk(key->vk);
  auto valid = verify(pvk, *proof, public_inputs);
  if (!valid.ok()) return failed("verify", valid.status());
  const double verify_ms = ms_since(verify_start);

  fmt::print("read       {:10.1f} ms (validated)\n", read_ms);
  fmt::print("prove      {:10.1f} ms\n", prove_ms);
  fmt::print("verify     {:10.1f} ms: {}\n", verify_ms, *valid ? "OK" : "INVALID");
  if (!*valid) {
    fmt::print(stderr,
               "groth16 prove-zkey: the proof does not verify (does the witness satisfy the "
               "circuit of {}?); nothing written\n",
               opts.zkey);
    return 1;
  }
  const Status writes[] = {write_file(opts.proof, export_snarkjs_proof(*proof)),
                           write_file(opts.public_inputs, export_snarkjs_public(public_inputs))};
  for (const Status& s : writes) {
    if (!s.ok()) return failed("output", s);
  }
  fmt::print("wrote      {} and {}\n", opts.proof, opts.public_inputs);
  return 0;
}

}  // namespace

void add_groth16(CLI::App& app, int* exit_code) {
  CLI::App* sub = app.add_subcommand(
      "groth16", "Groth16 on the CPU: an end-to-end demo and a verifier for snarkjs JSON files");
  sub->require_subcommand(1);

  auto demo = std::make_shared<DemoOptions>();
  CLI::App* d = sub->add_subcommand(
      "demo",
      "Record an example circuit, seeded setup (NOT a ceremony), prove, verify, and write "
      "snarkjs JSON, iden3 .r1cs/.wtns and binary proof/key files; exit 0 when it verifies");
  d->add_option("--circuit", demo->circuit, "cubic, mimc or synthetic")
      ->check(CLI::IsMember({"cubic", "mimc", "synthetic"}));
  d->add_option("--size", demo->size, "mimc rounds or synthetic constraints (default 100)");
  d->add_option("--seed", demo->seed, "seed of the circuit's values and of the setup");
  d->add_option("--out", demo->out, "output directory (created)")->required();
  d->add_option("--threads", demo->threads, "worker threads (0: all)");
  d->callback(
      [demo, exit_code] { *exit_code = guarded("groth16 demo", [&] { return run_demo(*demo); }); });

  auto ver = std::make_shared<VerifyOptions>();
  CLI::App* v = sub->add_subcommand(
      "verify",
      "Verify a snarkjs Groth16 proof (curve bls12381) with zkpipe's verifier; exit 0 valid "
      "(prints OK), 1 invalid, 2 bad input");
  v->add_option("--vk", ver->vk, "verification_key.json")->required();
  v->add_option("--proof", ver->proof, "proof.json")->required();
  v->add_option("--public", ver->public_inputs, "public.json")->required();
  v->callback([ver, exit_code] {
    *exit_code = guarded("groth16 verify", [&] { return run_verify(*ver); });
  });

  auto pz = std::make_shared<ProveZkeyOptions>();
  CLI::App* z = sub->add_subcommand(
      "prove-zkey",
      "Prove with a snarkjs Groth16 .zkey (bls12381) and .wtns, verify, and write snarkjs "
      "proof.json and public.json; exit 0 when it verifies, 1 when not (nothing written), 2 for "
      "bad input");
  z->add_option("--zkey", pz->zkey, "snarkjs .zkey (validated on reading)")->required();
  z->add_option("--wtns", pz->wtns, "iden3 .wtns: the full witness")->required();
  z->add_option("--proof", pz->proof, "output proof.json")->required();
  z->add_option("--public", pz->public_inputs, "output public.json")->required();
  z->add_option("--threads", pz->threads, "worker threads (0: all)");
  z->callback([pz, exit_code] {
    *exit_code = guarded("groth16 prove-zkey", [&] { return run_prove_zkey(*pz); });
  });

  add_groth16_prove(*sub, exit_code);
}

}  // namespace zkpipe::tool
