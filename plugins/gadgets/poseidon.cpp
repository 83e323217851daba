// Poseidon native: the generated tables turned into PoseidonParams (once per instance), the
// fast-form derivation, and the permutation (textbook and fast, specialised per width).
#include "zkpipe/gadgets/poseidon.h"

#include <stdexcept>
#include <string>

#include "poseidon/poseidon_internal.h"

namespace zkpipe::gadgets {
namespace poseidon_tables {

struct Table {
  uint32_t width, full_rounds, partial_rounds;
  std::span<const crypto::Limbs<4>> round_constants, mds;
};

#include "poseidon/poseidon_constants.inc"

}  // namespace poseidon_tables

namespace {

constexpr size_t kMaxFastWidth = 16;

std::vector<Fr> to_fr(std::span<const crypto::Limbs<4>> limbs) {
  std::vector<Fr> out;
  out.reserve(limbs.size());
  for (const auto& l : limbs) out.push_back(Fr::from_canonical(l));
  return out;
}

PoseidonParams from_table(const poseidon_tables::Table& table) {
  PoseidonParams p;
  p.width = table.width;
  p.full_rounds = table.full_rounds;
  p.partial_rounds = table.partial_rounds;
  p.round_constants = to_fr(table.round_constants);
  p.mds = to_fr(table.mds);
  poseidon_prepare(p);
  return p;
}

// Function-local statics: built on first use, thread-safe, nothing at load time.
template <size_t kIndex>
const PoseidonParams& production() {
  static const PoseidonParams params = from_table(poseidon_tables::kTables[kIndex]);
  return params;
}
template <size_t kIndex>
const PoseidonParams& reference() {
  static const PoseidonParams params = from_table(poseidon_tables::kReferenceTables[kIndex]);
  return params;
}

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
struct VectorTrace {
  std::vector<Fr>& out;
  void operator()(const Fr& x2, const Fr& x4, const Fr& x5) const {
    out.push_back(x2);
    out.push_back(x4);
    out.push_back(x5);
  }
};

struct AllocTrace {
  ConstraintSystem& cs;
  void operator()(const Fr& x2, const Fr& x4, const Fr& x5) const {
    cs.alloc(x2);
    cs.alloc(x4);
    cs.alloc(x5);
  }
};

template <typename Trace>
inline Fr sbox(const Fr& x, const Trace& trace) {
  const Fr x2 = x.sqr();
  const Fr x4 = x2.sqr();
  const Fr x5 = x4 * x;
  trace(x2, x4, x5);
  return x5;
}

template <typename Trace>
void permute_plain_impl(const PoseidonParams& p, Fr* s, const Trace& trace) {
  const size_t t = p.width, half = p.full_rounds / 2;
  std::vector<Fr> tmp(t);
  for (size_t r = 0; r < p.full_rounds + p.partial_rounds; ++r) {
    const Fr* c = &p.round_constants[r * t];
    const bool full = r < half || r >= half + p.partial_rounds;
    for (size_t i = 0; i < t; ++i) s[i] += c[i];
    for (size_t i = 0; i < (full ? t : 1); ++i) s[i] = sbox(s[i], trace);
    for (size_t i = 0; i < t; ++i) {
      Fr acc = Fr::zero();
      for (size_t j = 0; j < t; ++j) acc += p.mds[i * t + j] * s[j];
      tmp[i] = acc;
    }
    std::copy(tmp.begin(), tmp.end(), s);
  }
}

// kT = width (0: read it from p). p.fast must be present.
template <size_t kT, typename Trace>
void permute_fast_impl(const PoseidonParams& p, Fr* s, const Trace& trace) {
  const size_t t = kT ? kT : p.width, half = p.full_rounds / 2, rp = p.partial_rounds;
  const PoseidonFastForm& f = p.fast;
  Fr tmp[kT ? kT : kMaxFastWidth];
  auto full_round = [&](const Fr* c, const Fr* m) {
    for (size_t i = 0; i < t; ++i) tmp[i] = sbox(s[i] + c[i], trace);
    for (size_t i = 0; i < t; ++i, m += t) {
      Fr acc = m[0] * tmp[0];
      for (size_t j = 1; j < t; ++j) acc += m[j] * tmp[j];
      s[i] = acc;
    }
  };
  const Fr* rc = p.round_constants.data();
  for (size_t r = 0; r < half; ++r)
    full_round(rc + r * t, r + 1 == half ? f.pre_partial_mds.data() : p.mds.data());
  const Fr* sp = f.sparse.data();
  for (size_t r = 0; r < rp; ++r, sp += 2 * t - 1) {
    const Fr x = sbox(s[0] + f.partial_constants[r], trace);
    Fr acc = sp[0] * x;
    for (size_t j = 1; j < t; ++j) acc += sp[j] * s[j];
    for (size_t j = 1; j < t; ++j) s[j] += sp[t - 1 + j] * x;
    s[0] = acc;
  }
  full_round(f.post_partial_constants.data(), p.mds.data());
  for (size_t r = half + rp + 1; r < p.full_rounds + rp; ++r) full_round(rc + r * t, p.mds.data());
}

template <typename Trace>
void permute_dispatch(const PoseidonParams& p, std::span<Fr> state, const Trace& trace) {
  if (state.size() != p.width)
    throw std::invalid_argument("poseidon_permute: state has " + std::to_string(state.size()) +
                                " elements, the parameters have width " + std::to_string(p.width));
  if (p.fast.empty()) return permute_plain_impl(p, state.data(), trace);
  switch (p.width) {
    case 3:
      return permute_fast_impl<3>(p, state.data(), trace);
    case 5:
      return permute_fast_impl<5>(p, state.data(), trace);
    case 9:
      return permute_fast_impl<9>(p, state.data(), trace);
    case 12:
      return permute_fast_impl<12>(p, state.data(), trace);
    default:
      return permute_fast_impl<0>(p, state.data(), trace);
  }
}

}  // namespace

void poseidon_prepare(PoseidonParams& p) {
  p.fast = {};
  const size_t t = p.width, half = p.full_rounds / 2, rp = p.partial_rounds;
  if (t < 2 || t > kMaxFastWidth || half == 0 || p.full_rounds % 2 != 0 || rp == 0 ||
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

Result<const PoseidonParams*> find_poseidon_params(uint32_t arity) {
  switch (arity) {
    case 2:
      return &production<0>();
    case 4:
      return &production<1>();
    case 8:
      return &production<2>();
    case 11:
      return &production<3>();
    default:
      return invalid_argument("Poseidon: arity " + std::to_string(arity) +
                              " is not supported (supported arities: 2, 4, 8, 11)");
  }
}

const PoseidonParams& poseidon_params(uint32_t arity) {
  Result<const PoseidonParams*> p = find_poseidon_params(arity);
  if (!p.ok()) throw std::invalid_argument(p.status().message());
  return **p;
}

const PoseidonParams& poseidon_reference_params(uint32_t width) {
  if (width == 3) return reference<0>();
  if (width == 5) return reference<1>();
  throw std::invalid_argument("Poseidon: no reference instance of width " + std::to_string(width) +
                              " (there are 3 and 5)");
}

void poseidon_permute(const PoseidonParams& params, std::span<Fr> state) {
  permute_dispatch(params, state, NoTrace{});
}

void poseidon_permute_plain(const PoseidonParams& params, std::span<Fr> state) {
  if (state.size() != params.width)
    throw std::invalid_argument("poseidon_permute_plain: state size differs from the width");
  permute_plain_impl(params, state.data(), NoTrace{});
}

Fr poseidon_hash(std::span<const Fr> inputs) {
  const PoseidonParams& p = poseidon_params(static_cast<uint32_t>(inputs.size()));
  Fr state[12];
  state[0] = poseidon_detail::domain_tag(inputs.size());
  std::copy(inputs.begin(), inputs.end(), state + 1);
  poseidon_permute(p, std::span<Fr>(state, p.width));
  return state[1];
}

namespace poseidon_detail {

void permute_traced(const PoseidonParams& params, std::span<Fr> state, std::vector<Fr>& trace) {
  permute_dispatch(params, state, VectorTrace{trace});
}

void permute_allocating(const PoseidonParams& params, std::span<Fr> state, ConstraintSystem& cs) {
  permute_dispatch(params, state, AllocTrace{cs});
}

bool arity_supported(size_t arity) {
  return arity == 2 || arity == 4 || arity == 8 || arity == 11;
}

Fr domain_tag(size_t arity) {
  return Fr::from_u64((uint64_t{1} << arity) - 1);
}

}  // namespace poseidon_detail
}  // namespace zkpipe::gadgets
