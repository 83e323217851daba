// engine/sdk/compute_glue.cpp: key rebuilding, input checks and the shared
// self-test of the in-tree compute plugins (compute_glue.h).
// Thread-safety: pure functions; the self-test builds its own circuit and key.
#include "zkpipe/sdk/compute_glue.h"

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/verifier.h"

namespace zkpipe::compute_plugin {
namespace {

uint64_t popcount_words(const uint64_t* words, uint64_t count, uint64_t wires) {
  uint64_t n = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t w = words[i];
    if (i == count - 1 && wires % 64 != 0) w &= (uint64_t{1} << (wires % 64)) - 1;
    n += static_cast<uint64_t>(__builtin_popcountll(w));
  }
  return n;
}

Status check_query(const char* name, const zkp_g1_affine* points, uint64_t count,
                   uint64_t expected) {
  if (count != expected) {
    return invalid_argument(std::string("register_key: ") + name + " has " + std::to_string(count) +
                            " points; the key needs " + std::to_string(expected));
  }
  if (count > 0 && points == nullptr)
    return invalid_argument(std::string("register_key: ") + name + " is null");
  return ok_status();
}

std::span<const G1Affine> span_of(const zkp_g1_affine* p, uint64_t n) {
  return {reinterpret_cast<const G1Affine*>(p), static_cast<size_t>(n)};
}

}  // namespace

zkp_g1_affine to_abi(const crypto::G1& p) {
  const G1Affine a = p.to_affine();
  zkp_g1_affine out{};
  std::memcpy(&out, &a, sizeof out);
  out.infinity = a.infinity ? 1 : 0;
  std::memset(out.pad, 0, sizeof out.pad);
  return out;
}

Result<std::unique_ptr<Key>> make_key(const zkp_key_view& v) {
  if (v.struct_size < sizeof(zkp_key_view)) {
    return invalid_argument("register_key: zkp_key_view.struct_size " +
                            std::to_string(v.struct_size) + " < " +
                            std::to_string(sizeof(zkp_key_view)));
  }
  const uint64_t wires = uint64_t{v.num_inputs} + v.num_aux;
  if (v.domain_size < 2 || (v.domain_size & (v.domain_size - 1)) != 0)
    return invalid_argument("register_key: domain_size " + std::to_string(v.domain_size) +
                            " is not a power of two >= 2");
  if (v.density_words != (wires + 63) / 64 || v.a_density == nullptr || v.b_density == nullptr) {
    return invalid_argument("register_key: " + std::to_string(v.density_words) +
                            " density words for " + std::to_string(wires) + " wires");
  }
  const uint64_t a_count = popcount_words(v.a_density, v.density_words, wires);
  const uint64_t b_count = popcount_words(v.b_density, v.density_words, wires);
  ZKP_RETURN_IF_ERROR(check_query("h_query", v.h_query, v.h_count, v.domain_size - 1));
  ZKP_RETURN_IF_ERROR(check_query("l_query", v.l_query, v.l_count, v.num_aux));
  ZKP_RETURN_IF_ERROR(check_query("a_query", v.a_query, v.a_count, a_count));
  ZKP_RETURN_IF_ERROR(check_query("b_g1_query", v.b_g1_query, v.b_count, b_count));
  auto key = std::make_unique<Key>();
  groth16::ProvingKey& pk = key->pk;
  pk.num_inputs = v.num_inputs;
  pk.num_aux = v.num_aux;
  pk.domain_size = v.domain_size;
  pk.a_density.wires = wires;
  pk.a_density.bits.assign(v.a_density, v.a_density + v.density_words);
  pk.b_density.wires = wires;
  pk.b_density.bits.assign(v.b_density, v.b_density + v.density_words);
  pk.h_query = span_of(v.h_query, v.h_count);
  pk.l_query = span_of(v.l_query, v.l_count);
  pk.a_query = span_of(v.a_query, v.a_count);
  pk.b_g1_query = span_of(v.b_g1_query, v.b_count);
  // The identity device caches key on: expires when this Key is destroyed.
  pk.storage = std::make_shared<int>(0);
  return key;
}

const std::atomic<uint32_t>* stop_flag(const zkp_prove_input& in) {
  if (in.struct_size < offsetof(zkp_prove_input, stop) + sizeof in.stop) return nullptr;
  // The engine's flag is a std::atomic<uint32_t>: the ABI passes its address as a uint32_t.
  return reinterpret_cast<const std::atomic<uint32_t>*>(in.stop);
}

Status check_input(const groth16::ProvingKey& pk, const zkp_prove_input& in) {
  if (in.struct_size < kProveInputSize12) {
    return invalid_argument("prove_start: zkp_prove_input.struct_size " +
                            std::to_string(in.struct_size) + " < " +
                            std::to_string(kProveInputSize12) + " (the 1.2 layout)");
  }
  if (in.abc == nullptr || in.n != pk.domain_size) {
    return invalid_argument("prove_start: a/b/c hold " + std::to_string(in.n) +
                            " elements each; the key's domain is " +
                            std::to_string(pk.domain_size));
  }
  if (in.num_inputs != pk.num_inputs || in.num_aux != pk.num_aux ||
      (in.num_inputs > 0 && in.inputs == nullptr) || (in.num_aux > 0 && in.aux == nullptr)) {
    return invalid_argument("prove_start: the witness has " + std::to_string(in.num_inputs) +
                            " inputs and " + std::to_string(in.num_aux) +
                            " aux values; the key needs " + std::to_string(pk.num_inputs) +
                            " and " + std::to_string(pk.num_aux));
  }
  if (in.a_count != pk.a_query.size() || in.b_count != pk.b_g1_query.size() ||
      (in.a_count > 0 && in.a_scalars == nullptr) || (in.b_count > 0 && in.b_scalars == nullptr)) {
    return invalid_argument("prove_start: " + std::to_string(in.a_count) + " A and " +
                            std::to_string(in.b_count) + " B scalars; the key's densities have " +
                            std::to_string(pk.a_query.size()) + " and " +
                            std::to_string(pk.b_g1_query.size()));
  }
  return ok_status();
}

Status self_test_devices(Devices& devices) {
  using namespace groth16;
  auto cs = ConstraintSystem::recorder();
  ZKP_RETURN_IF_ERROR(synthesize_example({"mimc", 40, 11}, cs));
  const R1cs r1cs = cs.take_r1cs();
  const auto [inputs, aux] = cs.take_witness();
  ZKP_ASSIGN_OR_RETURN(const ProvingKey pk, setup(r1cs, ToxicWaste::from_seed(5)));
  const size_t n = pk.domain_size;
  const WitnessView w{inputs, aux};
  const std::vector<Fr> a_scalars = density_scalars(pk.a_density, w);
  const std::vector<Fr> b_scalars = density_scalars(pk.b_density, w);
  const ProverRandomness rand{Fr::from_u64(3), Fr::from_u64(4)};
  std::vector<Fr> ref_abc(3 * n);
  ZKP_RETURN_IF_ERROR(
      evaluate_abc(r1cs, w, ref_abc.data(), ref_abc.data() + n, ref_abc.data() + 2 * n, n, 1));
  std::vector<Fr> abc = ref_abc;
  ZKP_ASSIGN_OR_RETURN(PendingProof ref,
                       prove_start(pk, {w, abc.data(), abc.data() + n, abc.data() + 2 * n, n}));
  ZKP_ASSIGN_OR_RETURN(const Proof ref_proof, prove_finish(std::move(ref), rand));
  const PreparedVerifyingKey pvk(pk.vk);
  const std::vector<Fr> public_inputs(inputs.begin() + 1, inputs.end());
  for (uint32_t d = 0; d < devices.count(); ++d) {
    zkp_compute_device info{};
    devices.info(d, info);
    const std::string label = info.name;
    if (info.status != ZKP_OK) {
      return unavailable(label + ": " + info.status_message);
    }
    abc = ref_abc;
    ProverInput in{w, abc.data(), abc.data() + n, abc.data() + 2 * n, n};
    in.a_scalars = a_scalars.data();
    in.b_scalars = b_scalars.data();
    Transfer transfer;
    ZKP_ASSIGN_OR_RETURN(PendingProof p, devices.prove_start(d, StartCall{pk, in}, transfer));
    p.pk = &pk;
    p.b_scalars = b_scalars;
    ZKP_ASSIGN_OR_RETURN(const Proof proof, prove_finish(std::move(p), rand));
    if (!(proof == ref_proof)) {
      return internal_error(label +
                            ": self-test: the proof of a 80-constraint MiMC circuit differs from "
                            "the CPU reference's for the same randomness");
    }
    ZKP_ASSIGN_OR_RETURN(const bool ok, verify(pvk, proof, public_inputs));
    if (!ok) return internal_error(label + ": self-test: the proof does not verify");
  }
  return ok_status();
}

}  // namespace zkpipe::compute_plugin
