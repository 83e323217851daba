// zkpipe/crypto/poseidon_rounds.h: the Poseidon rounds as templates over a Trace, a callable
// given (x^2, x^4, x^5) of every S-box in round order (full rounds: state[0..t) in order; partial
// rounds: state[0]), for code that needs the S-box values (the in-circuit hash of
// zkpipe/gadgets). poseidon_permute is poseidon_permute_traced with a trace that does nothing.
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "zkpipe/crypto/poseidon.h"

namespace zkpipe::crypto::poseidon_rounds {

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
  Fr tmp[kT ? kT : kPoseidonMaxFastWidth];
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

}  // namespace zkpipe::crypto::poseidon_rounds

namespace zkpipe::crypto {

template <typename Trace>
void poseidon_permute_traced(const PoseidonParams& p, std::span<Fr> state, const Trace& trace) {
  if (state.size() != p.width)
    throw std::invalid_argument("poseidon_permute: state has " + std::to_string(state.size()) +
                                " elements, the parameters have width " + std::to_string(p.width));
  if (p.fast.empty()) return poseidon_rounds::permute_plain_impl(p, state.data(), trace);
  switch (p.width) {
    case 3:
      return poseidon_rounds::permute_fast_impl<3>(p, state.data(), trace);
    case 5:
      return poseidon_rounds::permute_fast_impl<5>(p, state.data(), trace);
    case 9:
      return poseidon_rounds::permute_fast_impl<9>(p, state.data(), trace);
    case 12:
      return poseidon_rounds::permute_fast_impl<12>(p, state.data(), trace);
    default:
      return poseidon_rounds::permute_fast_impl<0>(p, state.data(), trace);
  }
}

}  // namespace zkpipe::crypto
