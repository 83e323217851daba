// A Filecoin Merkle tree in memory (zkpipe/filecoin_circuit/tree.h).
#include "zkpipe/filecoin_circuit/tree.h"

#include <stdexcept>

#include "zkpipe/filecoin/poseidon.h"

namespace zkpipe::filecoin_circuit {

FilecoinTree::FilecoinTree(std::vector<Fr> leaves, TreeArities arities, TreeHasher hasher)
    : arities_(arities) {
  base_levels_ = base_path_length(leaves.size(), arities);
  for (uint32_t l = 0; l < base_levels_; ++l) level_arity_.push_back(arities.base);
  if (arities.sub) level_arity_.push_back(arities.sub);
  if (arities.top) level_arity_.push_back(arities.top);
  levels_.push_back(std::move(leaves));
  for (uint32_t arity : level_arity_) {
    const std::vector<Fr>& below = levels_.back();
    std::vector<Fr> up(below.size() / arity);
    for (size_t i = 0; i < up.size(); ++i) {
      up[i] = tree_hash(hasher, std::span<const Fr>(&below[i * arity], arity));
    }
    levels_.push_back(std::move(up));
  }
}

InclusionProof FilecoinTree::open(uint64_t index) const {
  if (index >= leaves()) throw std::invalid_argument("tree: leaf index out of range");
  InclusionProof p;
  p.leaf = filecoin::domain_from_fr(levels_[0][index]);
  p.root = filecoin::domain_from_fr(root());
  const size_t parts = 1 + (arities_.sub != 0) + (arities_.top != 0);
  p.paths.resize(parts);
  p.hashes.resize(parts);
  for (size_t level = 0; level < level_arity_.size(); ++level) {
    const size_t part = level < base_levels_ ? 0 : level == base_levels_ ? 1 : 2;
    const uint32_t arity = level_arity_[level];
    PathElement e;
    e.position = static_cast<uint32_t>(index % arity);
    const uint64_t first = index - e.position;
    for (uint32_t k = 0; k < arity; ++k) {
      if (k == e.position) continue;
      e.siblings.push_back(levels_[level][first + k]);
      p.hashes[part].push_back(filecoin::domain_from_fr(levels_[level][first + k]));
    }
    p.paths[part].push_back(std::move(e));
    index /= arity;
  }
  return p;
}

}  // namespace zkpipe::filecoin_circuit
