// groth16/prover.cpp: prove_start (quotient polynomial + G1 MSMs) and prove_finish (G2 MSM,
// blinding, assembly). A = alpha + sum a_j u_j + r delta; B = beta + sum b_j v_j + s delta;
// C = sum_aux w_j l_j + sum h_i tau^i Z / delta + s A + r B_g1 - r s delta.
#include "zkpipe/groth16/prover.h"

#include <algorithm>
#include <string>

#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/crypto/parallel.h"
#include "zkpipe/sdk/clock.h"

namespace zkpipe::groth16 {
namespace {

using crypto::G1;
using crypto::G2;
using crypto::NttDirection;

template <typename Affine>
auto msm_or_zero(std::span<const Affine> bases, const Fr* scalars, unsigned threads) {
  using Point = decltype(crypto::msm(bases.data(), scalars, 0, threads));
  if (bases.empty()) return Point::identity();
  return crypto::msm(bases.data(), scalars, bases.size(), threads);
}

// Evaluations on the domain -> evaluations on the coset g * omega^i (natural order).
Status to_coset(Fr* v, size_t n, const Fr& n_inv, unsigned threads) {
  ZKP_RETURN_IF_ERROR(crypto::ntt_nr(v, n, NttDirection::kInverse, threads));
  ZKP_RETURN_IF_ERROR(
      crypto::ntt_scale_powers(v, n, n_inv, crypto::ntt_coset_shift(), true, threads));
  return crypto::ntt_rn(v, n, NttDirection::kForward, threads);
}

// H = (a b - c) / Z from the a, b, c evaluations; its coefficients end up in a (natural order).
Status quotient(const ProverInput& in, unsigned threads) {
  const size_t n = in.n;
  const Fr n_inv = Fr::from_u64(n).inverse();
  ZKP_RETURN_IF_ERROR(to_coset(in.a, n, n_inv, threads));
  ZKP_RETURN_IF_ERROR(check_stop(in, "the NTTs of b"));
  ZKP_RETURN_IF_ERROR(to_coset(in.b, n, n_inv, threads));
  ZKP_RETURN_IF_ERROR(check_stop(in, "the NTTs of c"));
  ZKP_RETURN_IF_ERROR(to_coset(in.c, n, n_inv, threads));
  ZKP_RETURN_IF_ERROR(check_stop(in, "the quotient's inverse NTT"));
  // Z(x) = x^n - 1 is the constant g^n - 1 on the coset.
  const Fr z_inv = (crypto::ntt_coset_shift().pow_u64(n) - Fr::one()).inverse();
  crypto::parallel_for_ranges(n, 1 << 14, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) in.a[i] = (in.a[i] * in.b[i] - in.c[i]) * z_inv;
  });
  ZKP_RETURN_IF_ERROR(crypto::ntt_nr(in.a, n, NttDirection::kInverse, threads));
  ZKP_RETURN_IF_ERROR(
      crypto::ntt_scale_powers(in.a, n, n_inv, crypto::ntt_coset_shift().inverse(), true, threads));
  return crypto::bit_reverse_permute(in.a, n, threads);
}

}  // namespace

std::vector<Fr> density_scalars(const Density& d, const WitnessView& w) {
  std::vector<Fr> out;
  out.reserve(d.count());
  const uint64_t ni = w.inputs.size();
  for (uint64_t j = 0; j < d.wires; ++j) {
    if (d.test(j)) out.push_back(j < ni ? w.inputs[j] : w.aux[j - ni]);
  }
  return out;
}

ProverShape prover_shape(const ProvingKey& pk) {
  return {pk.domain_size, pk.h_query.size(), pk.l_query.size(), pk.a_query.size(),
          pk.b_g1_query.size()};
}

ProverMemory prover_memory(const ProverShape& s, const ProverOptions& options) {
  crypto::MsmOptions msm;
  msm.threads = options.threads;
  const crypto::NttMemory ntt = crypto::ntt_memory(s.domain);
  ProverMemory m;
  m.ntt_tables = ntt.tables;
  m.pending = s.b_points * sizeof(Fr);  // PendingProof::b_scalars, alive from the B MSM on
  m.start_scratch =
      std::max({ntt.scratch, crypto::msm_scratch_bytes_g1(s.h_points, msm),
                crypto::msm_scratch_bytes_g1(s.l_points, msm),
                s.a_points * sizeof(Fr) + crypto::msm_scratch_bytes_g1(s.a_points, msm),
                crypto::msm_scratch_bytes_g1(s.b_points, msm)});
  m.finish_scratch = crypto::msm_scratch_bytes_g2(s.b_points, msm);
  return m;
}

ProverRandomness ProverRandomness::secure() {
  return {Fr::random_secure(), Fr::random_secure()};
}

Status check_stop(const ProverInput& input, const char* where) {
  if (input.stop == nullptr || input.stop->load(std::memory_order_relaxed) == 0) {
    return ok_status();
  }
  return aborted(std::string("prove_start stopped before ") + where + ": its job was cancelled");
}

Result<PendingProof> prove_start(const ProvingKey& pk, const ProverInput& in,
                                 const ProverOptions& options) {
  if (in.witness.inputs.size() != pk.num_inputs || in.witness.aux.size() != pk.num_aux) {
    return invalid_argument("prove: witness has " + std::to_string(in.witness.inputs.size()) +
                            " inputs and " + std::to_string(in.witness.aux.size()) +
                            " aux values; the key needs " + std::to_string(pk.num_inputs) +
                            " and " + std::to_string(pk.num_aux));
  }
  if (in.n != pk.domain_size || !in.a || !in.b || !in.c) {
    return invalid_argument("prove: a/b/c hold " + std::to_string(in.n) +
                            " elements; the key's domain is " + std::to_string(pk.domain_size));
  }
  const unsigned threads = options.threads;
  PendingProof p;
  p.pk = &pk;
  ZKP_RETURN_IF_ERROR(check_stop(in, "the NTTs"));
  uint64_t t0 = now_ns();
  ZKP_RETURN_IF_ERROR(quotient(in, threads));
  uint64_t t1 = now_ns();
  p.timings.ntt_ns = t1 - t0;
  if (!in.a[in.n - 1].is_zero()) {
    return invalid_argument(
        "prove: the quotient has degree n - 1: the witness does not satisfy "
        "the constraints (check_satisfied names the first failing one)");
  }
  ZKP_RETURN_IF_ERROR(check_stop(in, "the H MSM"));
  p.h = msm_or_zero(pk.h_query, in.a, threads);
  t0 = now_ns();
  p.timings.h_msm_ns = t0 - t1;
  ZKP_RETURN_IF_ERROR(check_stop(in, "the L MSM"));
  p.l = msm_or_zero(pk.l_query, in.witness.aux.data(), threads);
  t1 = now_ns();
  p.timings.l_msm_ns = t1 - t0;
  ZKP_RETURN_IF_ERROR(check_stop(in, "the A MSM"));
  std::vector<Fr> a_own;
  if (in.a_scalars == nullptr) a_own = density_scalars(pk.a_density, in.witness);
  p.a = msm_or_zero(pk.a_query, in.a_scalars != nullptr ? in.a_scalars : a_own.data(), threads);
  t0 = now_ns();
  p.timings.a_msm_ns = t0 - t1;
  ZKP_RETURN_IF_ERROR(check_stop(in, "the B MSM"));
  if (in.b_scalars == nullptr) p.b_scalars = density_scalars(pk.b_density, in.witness);
  p.b_g1 = msm_or_zero(pk.b_g1_query, in.b_scalars != nullptr ? in.b_scalars : p.b_scalars.data(),
                       threads);
  p.timings.b_g1_msm_ns = now_ns() - t0;
  return p;
}

Result<Proof> prove_finish(PendingProof&& p, const ProverRandomness& rand,
                           const ProverOptions& options) {
  if (p.pk == nullptr) return failed_precondition("prove_finish: no pending proof");
  const ProvingKey& pk = *p.pk;
  uint64_t t0 = now_ns();
  const G2 b_g2 = msm_or_zero(pk.b_g2_query, p.b_scalars.data(), options.threads);
  uint64_t t1 = now_ns();
  p.timings.b_g2_msm_ns = t1 - t0;
  const VerifyingKey& vk = pk.vk;
  const G1 delta1 = G1::from_affine(vk.delta_g1);
  const G1 a = G1::from_affine(vk.alpha_g1) + p.a + delta1 * rand.r;
  const G2 b = G2::from_affine(vk.beta_g2) + b_g2 + G2::from_affine(vk.delta_g2) * rand.s;
  const G1 b1 = G1::from_affine(vk.beta_g1) + p.b_g1 + delta1 * rand.s;
  const G1 c = p.h + p.l + a * rand.s + b1 * rand.r - delta1 * (rand.r * rand.s);
  Proof proof{a.to_affine(), b.to_affine(), c.to_affine()};
  p.timings.finish_ns = now_ns() - t1;
  p.b_scalars = {};
  return proof;
}

Result<Proof> prove(const ProvingKey& pk, const ProverInput& in, const ProverRandomness& rand,
                    const ProverOptions& options) {
  ZKP_ASSIGN_OR_RETURN(PendingProof p, prove_start(pk, in, options));
  return prove_finish(std::move(p), rand, options);
}

}  // namespace zkpipe::groth16
