// poseidon.cpp: the fast-form derivation and the untraced permutations (zkpipe/crypto/poseidon.h).
#include "zkpipe/crypto/poseidon.h"

#include <stdexcept>
#include <utility>

#include "zkpipe/crypto/poseidon_rounds.h"

namespace zkpipe::crypto {
namespace {

// Solves a x = b for an n x n row-major matrix a (Gauss-Jordan elimination).
std::vector<Fr> solve(std::vector<Fr> a, std::vector<Fr> b, size_t n) {
  for (size_t col = 0; col < n; ++col) {
    size_t piv = col;
    while (piv < n && a[piv * n + col].is_zero()) ++piv;
    if (piv == n) throw std::logic_error("poseidon_prepare: singular MDS submatrix");
    for (size_t j = 0; j < n; ++j) std::swap(a[col * n + j], a[piv * n + j]);
    std::swap(b[col], b[piv]);
    const Fr inv = a[col * n + col].inverse();
    for (size_t j = 0; j < n; ++j) a[col * n + j] *= inv;
    b[col] *= inv;
    for (size_t row = 0; row < n; ++row) {
      if (row == col || a[row * n + col].is_zero()) continue;
      const Fr f = a[row * n + col];
      for (size_t j = 0; j < n; ++j) a[row * n + j] -= f * a[col * n + j];
      b[row] -= f * b[col];
    }
  }
  return b;
}

struct NoTrace {
  void operator()(const Fr&, const Fr&, const Fr&) const {}
};

}  // namespace

void poseidon_prepare(PoseidonParams& p) {
  p.fast = {};
  const size_t t = p.width, half = p.full_rounds / 2, rp = p.partial_rounds;
  if (t < 2 || t > kPoseidonMaxFastWidth || half == 0 || p.full_rounds % 2 != 0 || rp == 0 ||
      p.round_constants.size() != (p.full_rounds + rp) * t || p.mds.size() != t * t)
    return;  // poseidon_permute runs the textbook rounds
  PoseidonFastForm f;
  auto mds_times = [&](const std::vector<Fr>& v) {
    std::vector<Fr> out(t, Fr::zero());
    for (size_t i = 0; i < t; ++i)
      for (size_t j = 0; j < t; ++j) out[i] += p.mds[i * t + j] * v[j];
    return out;
  };
  // Constants: S0(x + c) = S0(x + c[0] e0) + (0, c[1..]), and mds * (0, c[1..]) moves on into
  // the next round's constants.
  std::vector<Fr> c(&p.round_constants[half * t], &p.round_constants[(half + 1) * t]);
  for (size_t r = 0; r < rp; ++r) {
    f.partial_constants.push_back(c[0]);
    c[0] = Fr::zero();
    const std::vector<Fr> carry = mds_times(c);
    for (size_t i = 0; i < t; ++i) c[i] = p.round_constants[(half + r + 1) * t + i] + carry[i];
  }
  f.post_partial_constants = c;
  // Matrices, last partial round first: N = B A with A = diag(1, N11) (commutes with the partial
  // S-box and with adding to state[0]) and B = [[n00, n01^T N11^-1], [n10, I]]; A moves into the
  // previous round's layer, N_prev = A mds, and the first round's A into the last full round.
  f.sparse.assign(rp * (2 * t - 1), Fr::zero());
  std::vector<Fr> n = p.mds;
  const size_t m = t - 1;
  for (size_t r = rp; r-- > 0;) {
    std::vector<Fr> n11_transposed(m * m), n01(m);
    for (size_t i = 0; i < m; ++i) {
      n01[i] = n[i + 1];
      for (size_t j = 0; j < m; ++j) n11_transposed[i * m + j] = n[(j + 1) * t + (i + 1)];
    }
    const std::vector<Fr> v = solve(std::move(n11_transposed), std::move(n01), m);
    Fr* sp = &f.sparse[r * (2 * t - 1)];
    sp[0] = n[0];
    for (size_t i = 0; i < m; ++i) {
      sp[1 + i] = v[i];
      sp[t + i] = n[(i + 1) * t];
    }
    std::vector<Fr> next(t * t, Fr::zero());
    for (size_t j = 0; j < t; ++j) next[j] = p.mds[j];
    for (size_t i = 1; i < t; ++i)
      for (size_t k = 1; k < t; ++k)
        for (size_t j = 0; j < t; ++j) next[i * t + j] += n[i * t + k] * p.mds[k * t + j];
    n = std::move(next);
  }
  f.pre_partial_mds = std::move(n);
  p.fast = std::move(f);
}

void poseidon_permute(const PoseidonParams& params, std::span<Fr> state) {
  poseidon_permute_traced(params, state, NoTrace{});
}

void poseidon_permute_plain(const PoseidonParams& params, std::span<Fr> state) {
  if (state.size() != params.width)
    throw std::invalid_argument("poseidon_permute_plain: state size differs from the width");
  poseidon_rounds::permute_plain_impl(params, state.data(), NoTrace{});
}

}  // namespace zkpipe::crypto
