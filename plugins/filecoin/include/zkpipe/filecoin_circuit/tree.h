// zkpipe/filecoin_circuit/tree.h: a Filecoin Merkle tree in memory, built level by level, and
// its openings in the vanilla proofs' form: a Poseidon tree of tree_r_last's / tree_c's shape
// (base levels of arity 8, then the sub and top levels of the sector size) or tree_d's SHA-256
// binary tree. For sample requests and tests: a 32GiB
// tree does not fit (2^30 leaves); callers bound the size. Library zkpipe::filecoin_circuit.
// Thread-safety: immutable after build.
#pragma once

#include <cstdint>
#include <vector>

#include "zkpipe/filecoin_circuit/vanilla_post.h"

namespace zkpipe::filecoin_circuit {

class FilecoinTree {
 public:
  // Throws std::invalid_argument when the leaves do not fill the shape.
  FilecoinTree(std::vector<Fr> leaves, TreeArities arities,
               TreeHasher hasher = TreeHasher::kPoseidon);

  const Fr& root() const { return levels_.back()[0]; }
  const Fr& leaf(uint64_t index) const { return levels_[0].at(index); }
  uint64_t leaves() const { return levels_[0].size(); }
  // The opening of leaf `index` with the paths split as the vanilla proofs split them.
  InclusionProof open(uint64_t index) const;

 private:
  TreeArities arities_;
  uint32_t base_levels_ = 0;
  std::vector<uint32_t> level_arity_;
  std::vector<std::vector<Fr>> levels_;
};

}  // namespace zkpipe::filecoin_circuit
