// Filecoin's Merkle inclusion proof in-circuit (zkpipe/filecoin_circuit/por.h).
#include "zkpipe/filecoin_circuit/por.h"

#include <bit>
#include <stdexcept>
#include <string>

#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin_circuit/poseidon.h"
#include "zkpipe/filecoin_circuit/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

uint32_t log2_arity(uint32_t arity) {
  if (arity < 2 || !std::has_single_bit(arity)) {
    throw std::invalid_argument("merkle path: arity " + std::to_string(arity) +
                                " is not a power of two >= 2");
  }
  return static_cast<uint32_t>(std::countr_zero(arity));
}

}  // namespace

uint32_t base_path_length(uint64_t leaves, TreeArities a) {
  if (a.top != 0 && a.sub == 0)
    throw std::invalid_argument("merkle path: a top level needs a sub level");
  uint64_t base_leaves = leaves;
  for (uint32_t arity : {a.sub, a.top}) {
    if (arity == 0) continue;
    log2_arity(arity);
    if (base_leaves % arity != 0)
      throw std::invalid_argument("merkle path: leaves do not split into sub-trees");
    base_leaves /= arity;
  }
  const uint32_t bits = log2_arity(a.base);
  if (base_leaves < a.base || !std::has_single_bit(base_leaves) ||
      std::countr_zero(base_leaves) % bits != 0) {
    throw std::invalid_argument("merkle path: " + std::to_string(leaves) +
                                " leaves do not fill a tree of base arity " +
                                std::to_string(a.base));
  }
  return static_cast<uint32_t>(std::countr_zero(base_leaves)) / bits;
}

uint32_t level_arity(uint32_t level, uint32_t base_levels, TreeArities a) {
  if (level < base_levels) return a.base;
  return level == base_levels && a.sub != 0 ? a.sub : a.top;
}

std::vector<uint32_t> leaf_positions(uint64_t index, uint64_t leaves, TreeArities a) {
  const uint32_t base = base_path_length(leaves, a);
  const uint32_t levels = base + (a.sub != 0) + (a.top != 0);
  std::vector<uint32_t> out;
  for (uint32_t level = 0; level < levels; ++level) {
    const uint32_t arity = level_arity(level, base, a);
    out.push_back(static_cast<uint32_t>(index & (arity - 1)));
    index >>= log2_arity(arity);
  }
  return out;
}

MerkleOpening blank_opening(uint64_t leaves, TreeArities a, TreeHasher hasher) {
  MerkleOpening o;
  o.hasher = hasher;
  o.leaf = Fr::zero();
  const uint32_t base = base_path_length(leaves, a);
  const uint32_t levels = base + (a.sub != 0) + (a.top != 0);
  for (uint32_t level = 0; level < levels; ++level) {
    o.path.push_back({std::vector<Fr>(level_arity(level, base, a) - 1, Fr::zero()), 0});
  }
  return o;
}

Fr opening_root(const MerkleOpening& opening) {
  Fr cur = opening.leaf;
  for (const PathElement& e : opening.path) {
    const size_t arity = e.siblings.size() + 1;
    if (e.position >= arity) throw std::invalid_argument("merkle path: position out of range");
    std::vector<Fr> children(e.siblings.begin(), e.siblings.end());
    children.insert(children.begin() + e.position, cur);
    cur = tree_hash(opening.hasher, children);
  }
  return cur;
}

Fr tree_hash(TreeHasher hasher, std::span<const Fr> children) {
  if (hasher == TreeHasher::kPoseidon) return filecoin::poseidon_merkle(children);
  std::vector<uint8_t> bytes;
  bytes.reserve(32 * children.size());
  for (const Fr& c : children) {
    const filecoin::Domain d = filecoin::domain_from_fr(c);
    bytes.insert(bytes.end(), d.begin(), d.end());
  }
  const Result<Fr> r = filecoin::fr_from_domain(filecoin::sha256_trunc254(bytes));
  if (!r.ok()) throw std::logic_error("sha256_trunc254 left the field");
  return *r;
}

Num tree_hash(ConstraintSystem& cs, TreeHasher hasher, std::span<const Num> children) {
  if (hasher == TreeHasher::kPoseidon) return poseidon_hash(cs, children);
  return sha256_hash_leaves(cs, children);
}

namespace {

// The leaf allocated, every level synthesized, the position bits packed: the computed root.
Num computed_root(ConstraintSystem& cs, const MerkleOpening& opening, const Num* leaf = nullptr) {
  Num cur = leaf ? *leaf : Num::alloc(cs, opening.leaf);  // Root::Var, or Root::Val allocated
  std::vector<Boolean> path_bits;
  // The base, sub and top sub-paths run one after the other, each level alike.
  for (const PathElement& e : opening.path) {
    const uint32_t arity = static_cast<uint32_t>(e.siblings.size() + 1);
    const uint32_t bits = log2_arity(arity);
    std::vector<Boolean> index_bits;
    for (uint32_t i = 0; i < bits; ++i) index_bits.push_back(alloc_bit(cs, (e.position >> i) & 1));
    path_bits.insert(path_bits.end(), index_bits.begin(), index_bits.end());
    std::vector<Num> siblings;
    siblings.reserve(e.siblings.size());
    for (const Fr& s : e.siblings) siblings.push_back(Num::alloc(cs, s));
    const std::vector<Num> inserted = insert(cs, cur, index_bits, siblings);
    cur = tree_hash(cs, opening.hasher, inserted);
  }
  pack_into_inputs(cs, path_bits);
  return cur;
}

}  // namespace

void por_private(ConstraintSystem& cs, const MerkleOpening& opening, const Num& root) {
  const Num cur = computed_root(cs, opening);
  equal(cs, cur, root);  // Root::Var: no allocation; the root stays private
}

void por_private(ConstraintSystem& cs, const MerkleOpening& opening, const Num& leaf,
                 const Num& root) {
  const Num cur = computed_root(cs, opening, &leaf);
  equal(cs, cur, root);
}

void por_standalone(ConstraintSystem& cs, const MerkleOpening& opening, const Fr& root,
                    bool private_root) {
  const Num cur = computed_root(cs, opening);
  const Num rt = Num::alloc(cs, root);
  equal(cs, cur, rt);
  if (!private_root) inputize(cs, rt);
}

void por_no_challenge_input(ConstraintSystem& cs, TreeHasher hasher,
                            std::span<const Boolean> challenge_bits, const Num& leaf,
                            const std::vector<std::vector<Num>>& path, const Num& root) {
  Num cur = leaf;
  size_t used = 0;
  for (const std::vector<Num>& siblings : path) {
    const uint32_t bits = log2_arity(static_cast<uint32_t>(siblings.size() + 1));
    if (used + bits > challenge_bits.size()) {
      throw std::invalid_argument("merkle path: fewer challenge bits than the path's levels need");
    }
    const std::vector<Num> inserted = insert(cs, cur, challenge_bits.subspan(used, bits), siblings);
    used += bits;
    cur = tree_hash(cs, hasher, inserted);
  }
  if (used != challenge_bits.size()) {
    throw std::invalid_argument("merkle path: challenge bit-length and tree arity do not agree");
  }
  equal(cs, cur, root);
}

}  // namespace zkpipe::filecoin_circuit
