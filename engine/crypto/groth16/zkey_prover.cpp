// groth16/zkey_prover.cpp: snarkjs's Groth16 prover over a SnarkjsKey. a = A w and b = B w on
// the domain, c = a∘b; each is interpolated and evaluated on snarkjs's odd coset
// {omega5_2n omega5_n^i} (roots from generator 5); d_i = a_i b_i - c_i there and H = sum d_i H_i
// (the key's H bases fold in the division by Z). Our NTT uses generator-7 roots: omega5_n =
// omega7_n^j with j odd, so the generator-5 order is ours with indices permuted by i -> i j mod n.
// A = alpha1 + sum w_j A_j + r delta1, B = beta2 + sum w_j B2_j + s delta2,
// C = sum_private w_j C_j + H + s A + r (beta1 + sum w_j B1_j + s delta1) - r s delta1.
// Thread-safety: pure functions.
#include <string>
#include <vector>

#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/crypto/parallel.h"
#include "zkpipe/groth16/zkey.h"

namespace zkpipe::groth16 {
namespace {

using crypto::G1;
using crypto::G2;

constexpr uint64_t kSnarkjsGenerator = 5;  // ffjavascript's first quadratic non-residue mod r

unsigned log2_exact(uint64_t n) {
  unsigned k = 0;
  while ((uint64_t{1} << k) < n) ++k;
  return k;
}

// The j with omega7_n^j == omega5_n (n = 2^log_n): Pohlig-Hellman in the cyclic 2-group, one bit
// of j per step (g^(2^(k-1)) = -1 decides the bit).
uint64_t generator5_exponent(unsigned log_n) {
  const Fr g = crypto::ntt_root_of_unity(log_n), g_inv = g.inverse();
  const Fr h = snarkjs_root_of_unity(log_n);
  uint64_t j = 0;
  for (unsigned bit = 0; bit < log_n; ++bit) {
    // x = h g^-j has order dividing 2^(log_n - bit); its 2^(log_n - bit - 1)-th power is +-1.
    Fr x = h * g_inv.pow_u64(j);
    for (unsigned i = 0; i + 1 < log_n - bit; ++i) x = x.sqr();
    if (!x.is_one()) j |= uint64_t{1} << bit;
  }
  return j;
}

// Evaluations on the generator-5 domain (v[i] at omega5_n^i) -> evaluations on snarkjs's odd
// coset (v[i] at shift omega5_n^i). tmp holds n elements.
Status to_odd_coset(std::vector<Fr>& v, std::vector<Fr>& tmp, uint64_t j, const Fr& shift,
                    unsigned threads) {
  const size_t n = v.size(), mask = n - 1;
  crypto::parallel_for_ranges(n, 1 << 14, threads, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) tmp[(i * j) & mask] = v[i];
  });
  ZKP_RETURN_IF_ERROR(crypto::ntt_inverse(tmp.data(), n, threads));
  ZKP_RETURN_IF_ERROR(crypto::ntt_scale_powers(tmp.data(), n, Fr::one(), shift, false, threads));
  ZKP_RETURN_IF_ERROR(crypto::ntt_forward(tmp.data(), n, threads));
  crypto::parallel_for_ranges(n, 1 << 14, threads, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) v[i] = tmp[(i * j) & mask];
  });
  return ok_status();
}

// out[row] = sum over the row's terms of value * w[column].
void mat_vec(const SparseMatrix& m, std::span<const Fr> w, std::vector<Fr>& out, unsigned threads) {
  crypto::parallel_for_ranges(m.rows(), 1 << 12, threads, [&](size_t lo, size_t hi) {
    for (size_t row = lo; row < hi; ++row) {
      Fr acc = Fr::zero();
      for (uint64_t t = m.row_begin[row]; t < m.row_begin[row + 1]; ++t) {
        acc += m.value[t] * w[m.column[t]];
      }
      out[row] = acc;
    }
  });
}

template <typename Affine>
auto msm_or_zero(const std::vector<Affine>& bases, const Fr* scalars, unsigned threads) {
  using Point = decltype(crypto::msm(bases.data(), scalars, 0, threads));
  if (bases.empty()) return Point::identity();
  return crypto::msm(bases.data(), scalars, bases.size(), threads);
}

}  // namespace

Fr snarkjs_root_of_unity(unsigned log_n) {
  Fr w = Fr::from_u64(kSnarkjsGenerator).pow(Fr::kOddPart);  // order 2^32
  for (unsigned i = log_n; i < crypto::kNttMaxLog; ++i) w = w.sqr();
  return w;
}

Result<Proof> prove_with_zkey(const SnarkjsKey& key, std::span<const Fr> witness,
                              const ProverRandomness& rand, unsigned threads) {
  if (witness.size() != key.n_vars) {
    return invalid_argument("prove_with_zkey: the witness has " + std::to_string(witness.size()) +
                            " values, the key's circuit has nVars = " + std::to_string(key.n_vars));
  }
  const uint64_t n = key.domain_size;
  if (n == 0 || (n & (n - 1)) != 0 || n > (uint64_t{1} << 31) || key.a.rows() != n ||
      key.b.rows() != n || key.h_query.size() != n || key.a_query.size() != key.n_vars ||
      key.b1_query.size() != key.n_vars || key.b2_query.size() != key.n_vars ||
      key.c_query.size() + key.n_public + 1 != key.n_vars || key.vk.ic.size() != key.n_public + 1) {
    return invalid_argument("prove_with_zkey: the key's sizes are inconsistent");
  }
  const unsigned log_n = log2_exact(n);
  std::vector<Fr> a(n), b(n), c(n), tmp(n);
  mat_vec(key.a, witness, a, threads);
  mat_vec(key.b, witness, b, threads);
  crypto::parallel_for_ranges(n, 1 << 14, threads, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
  });
  const uint64_t j = generator5_exponent(log_n);
  const Fr shift = snarkjs_root_of_unity(log_n + 1);
  ZKP_RETURN_IF_ERROR(to_odd_coset(a, tmp, j, shift, threads));
  ZKP_RETURN_IF_ERROR(to_odd_coset(b, tmp, j, shift, threads));
  ZKP_RETURN_IF_ERROR(to_odd_coset(c, tmp, j, shift, threads));
  crypto::parallel_for_ranges(n, 1 << 14, threads, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) a[i] = a[i] * b[i] - c[i];
  });
  const G1 h = msm_or_zero(key.h_query, a.data(), threads);
  const G1 a_sum = msm_or_zero(key.a_query, witness.data(), threads);
  const G1 b1_sum = msm_or_zero(key.b1_query, witness.data(), threads);
  const G2 b2_sum = msm_or_zero(key.b2_query, witness.data(), threads);
  const G1 c_sum = msm_or_zero(key.c_query, witness.data() + key.n_public + 1, threads);

  const VerifyingKey& vk = key.vk;
  const G1 delta1 = G1::from_affine(vk.delta_g1);
  const G1 pi_a = G1::from_affine(vk.alpha_g1) + a_sum + delta1 * rand.r;
  const G2 pi_b = G2::from_affine(vk.beta_g2) + b2_sum + G2::from_affine(vk.delta_g2) * rand.s;
  const G1 b1 = G1::from_affine(vk.beta_g1) + b1_sum + delta1 * rand.s;
  const G1 pi_c = c_sum + h + pi_a * rand.s + b1 * rand.r - delta1 * (rand.r * rand.s);
  return Proof{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

}  // namespace zkpipe::groth16
