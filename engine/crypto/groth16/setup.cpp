// groth16/setup.cpp: the seeded development setup. The QAP polynomials u_j, v_j, w_j are
// evaluated at tau through the Lagrange basis of the domain (L_i(tau) = (tau^n - 1) / n *
// omega^i / (tau - omega^i)), then every query is one fixed-base batch multiplication.
#include "zkpipe/groth16/setup.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "zkpipe/crypto/fixed_base.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::groth16 {
namespace {

using crypto::G1Affine;
using crypto::G2Affine;

// 64-bit words from SHA-256(domain tag || seed || counter), for rejection sampling in Fr.
class SeedStream {
 public:
  explicit SeedStream(uint64_t seed) : seed_(seed) {}
  uint64_t operator()() {
    if (used_ == 4) refill();
    return words_[used_++];
  }

 private:
  void refill() {
    static constexpr char kTag[] = "zkpipe groth16 development setup v1";
    uint8_t msg[sizeof(kTag) + 16];
    std::memcpy(msg, kTag, sizeof(kTag));
    for (int i = 0; i < 8; ++i) {
      msg[sizeof(kTag) + i] = static_cast<uint8_t>(seed_ >> (8 * i));
      msg[sizeof(kTag) + 8 + i] = static_cast<uint8_t>(counter_ >> (8 * i));
    }
    ++counter_;
    const Sha256Digest digest = sha256(msg);
    std::memcpy(words_, digest.data(), sizeof(words_));
    used_ = 0;
  }
  uint64_t seed_;
  uint64_t counter_ = 0;
  uint64_t words_[4] = {};
  unsigned used_ = 4;
};

struct KeyStorage {
  std::vector<G1Affine> h, l, a, b_g1;
  std::vector<G2Affine> b_g2;
};

bool stopped(const SetupOptions& o) {
  return o.stop != nullptr && o.stop->load(std::memory_order_relaxed);
}

// out[i] = scalars[i] * base, in chunks so `progress` hears about it and `stop` is read.
template <typename Affine>
void batch_mul(const Affine& base, const std::vector<Fr>& scalars, Affine* out,
               const SetupOptions& o, uint64_t& done, uint64_t total) {
  const size_t chunk = std::max<size_t>(size_t{1} << 16, scalars.size() / 16);
  for (size_t at = 0; at < scalars.size() && !stopped(o); at += chunk) {
    const size_t len = std::min(chunk, scalars.size() - at);
    crypto::fixed_base_mul(base, scalars.data() + at, len, out + at, o.threads);
    done += len;
    if (o.progress) o.progress(done, total);
  }
}

Density column_density(const SparseMatrix& m, uint64_t wires, uint32_t forced_inputs) {
  Density d;
  d.wires = wires;
  d.bits.assign((wires + 63) / 64, 0);
  auto set = [&](uint64_t j) { d.bits[j / 64] |= uint64_t{1} << (j % 64); };
  for (uint32_t j = 0; j < forced_inputs; ++j) set(j);
  for (uint32_t col : m.column) set(col);
  return d;
}

}  // namespace

Density a_density(const R1cs& r1cs) {
  return column_density(r1cs.a, r1cs.num_wires(), r1cs.num_inputs);
}

Density b_density(const R1cs& r1cs) {
  return column_density(r1cs.b, r1cs.num_wires(), 0);
}

ToxicWaste ToxicWaste::from_seed(uint64_t seed) {
  SeedStream s(seed);
  auto draw = [&] {
    for (;;) {
      Fr x = Fr::random(s);
      if (!x.is_zero()) return x;
    }
  };
  ToxicWaste w;
  w.tau = draw();
  w.alpha = draw();
  w.beta = draw();
  w.gamma = draw();
  w.delta = draw();
  return w;
}

Result<ProvingKey> setup(const R1cs& r1cs, const ToxicWaste& waste, const SetupOptions& options) {
  ZKP_RETURN_IF_ERROR(r1cs.validate("setup"));
  const uint64_t n = r1cs.domain_size();
  const unsigned log_n = static_cast<unsigned>(std::countr_zero(n));
  const uint64_t wires = r1cs.num_wires();
  const uint32_t m = r1cs.num_constraints();
  if (waste.alpha.is_zero() || waste.beta.is_zero() || waste.gamma.is_zero() ||
      waste.delta.is_zero()) {
    return invalid_argument("setup: alpha, beta, gamma and delta must be non-zero");
  }
  const Fr tau_n = waste.tau.pow_u64(n);
  const Fr z_tau = tau_n - Fr::one();
  if (z_tau.is_zero()) return invalid_argument("setup: tau lies in the evaluation domain");

  // Lagrange basis at tau.
  std::vector<Fr> lagrange(n);
  {
    const Fr omega = crypto::ntt_root_of_unity(log_n);
    std::vector<Fr> powers(n);
    Fr w = Fr::one();
    for (uint64_t i = 0; i < n; ++i, w *= omega) {
      powers[i] = w;
      lagrange[i] = waste.tau - w;
    }
    Fr::batch_inverse(lagrange.data(), n);
    const Fr scale = z_tau * Fr::from_u64(n).inverse();
    for (uint64_t i = 0; i < n; ++i) lagrange[i] *= scale * powers[i];
  }

  // u_j, v_j, w_j: column sums of the matrices against the basis (+ the input binding rows).
  std::vector<Fr> u(wires, Fr::zero()), v(wires, Fr::zero()), w(wires, Fr::zero());
  auto accumulate = [&](const SparseMatrix& mat, std::vector<Fr>& out) {
    for (uint32_t i = 0; i < m; ++i) {
      for (uint64_t t = mat.row_begin[i]; t < mat.row_begin[i + 1]; ++t) {
        out[mat.column[t]] += mat.value[t] * lagrange[i];
      }
    }
  };
  accumulate(r1cs.a, u);
  accumulate(r1cs.b, v);
  accumulate(r1cs.c, w);
  for (uint32_t j = 0; j < r1cs.num_inputs; ++j) u[j] += lagrange[m + j];

  ProvingKey pk;
  pk.num_inputs = r1cs.num_inputs;
  pk.num_aux = r1cs.num_aux;
  pk.domain_size = n;
  pk.a_density = a_density(r1cs);
  pk.b_density = b_density(r1cs);

  const Fr gamma_inv = waste.gamma.inverse(), delta_inv = waste.delta.inverse();
  std::vector<Fr> ic_s(r1cs.num_inputs), l_s(r1cs.num_aux), a_s, b_s, h_s(n - 1);
  for (uint64_t j = 0; j < wires; ++j) {
    const Fr combo = waste.beta * u[j] + waste.alpha * v[j] + w[j];
    if (j < r1cs.num_inputs) {
      ic_s[j] = combo * gamma_inv;
    } else {
      l_s[j - r1cs.num_inputs] = combo * delta_inv;
    }
    if (pk.a_density.test(j)) a_s.push_back(u[j]);
    if (pk.b_density.test(j)) b_s.push_back(v[j]);
  }
  Fr t = z_tau * delta_inv;
  for (uint64_t i = 0; i + 1 < n; ++i, t *= waste.tau) h_s[i] = t;

  auto store = std::make_shared<KeyStorage>();
  store->h.resize(h_s.size());
  store->l.resize(l_s.size());
  store->a.resize(a_s.size());
  store->b_g1.resize(b_s.size());
  store->b_g2.resize(b_s.size());
  pk.vk.ic.resize(ic_s.size());
  const uint64_t total = h_s.size() + l_s.size() + a_s.size() + 2 * b_s.size() + ic_s.size();
  uint64_t done = 0;
  const G1Affine& g1 = crypto::g1_generator();
  const G2Affine& g2 = crypto::g2_generator();
  batch_mul(g1, h_s, store->h.data(), options, done, total);
  batch_mul(g1, l_s, store->l.data(), options, done, total);
  batch_mul(g1, a_s, store->a.data(), options, done, total);
  batch_mul(g1, b_s, store->b_g1.data(), options, done, total);
  batch_mul(g2, b_s, store->b_g2.data(), options, done, total);
  batch_mul(g1, ic_s, pk.vk.ic.data(), options, done, total);
  if (stopped(options)) return aborted("the setup was stopped before its end");

  auto g1_times = [&](const Fr& k) { return (crypto::G1::from_affine(g1) * k).to_affine(); };
  auto g2_times = [&](const Fr& k) { return (crypto::G2::from_affine(g2) * k).to_affine(); };
  pk.vk.alpha_g1 = g1_times(waste.alpha);
  pk.vk.beta_g1 = g1_times(waste.beta);
  pk.vk.delta_g1 = g1_times(waste.delta);
  pk.vk.beta_g2 = g2_times(waste.beta);
  pk.vk.gamma_g2 = g2_times(waste.gamma);
  pk.vk.delta_g2 = g2_times(waste.delta);

  pk.h_query = store->h;
  pk.l_query = store->l;
  pk.a_query = store->a;
  pk.b_g1_query = store->b_g1;
  pk.b_g2_query = store->b_g2;
  pk.storage = std::move(store);
  ZKP_RETURN_IF_ERROR(pk.check_shape("setup"));
  return pk;
}

}  // namespace zkpipe::groth16
