// Poseidon native: the generated tables turned into PoseidonParams (once per instance) and the
// hash over them; the rounds are crypto's (zkpipe/crypto/poseidon_rounds.h).
#include "zkpipe/gadgets/poseidon.h"

#include <stdexcept>
#include <string>

#include "poseidon/poseidon_internal.h"
#include "zkpipe/crypto/poseidon_rounds.h"

namespace zkpipe::gadgets {
namespace poseidon_tables {

struct Table {
  uint32_t width, full_rounds, partial_rounds;
  std::span<const crypto::Limbs<4>> round_constants, mds;
};

#include "poseidon/poseidon_constants.inc"

}  // namespace poseidon_tables

namespace {

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

}  // namespace

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
  crypto::poseidon_permute_traced(params, state, VectorTrace{trace});
}

void permute_allocating(const PoseidonParams& params, std::span<Fr> state, ConstraintSystem& cs) {
  crypto::poseidon_permute_traced(params, state, AllocTrace{cs});
}

bool arity_supported(size_t arity) {
  return arity == 2 || arity == 4 || arity == 8 || arity == 11;
}

Fr domain_tag(size_t arity) {
  return Fr::from_u64((uint64_t{1} << arity) - 1);
}

}  // namespace poseidon_detail
}  // namespace zkpipe::gadgets
