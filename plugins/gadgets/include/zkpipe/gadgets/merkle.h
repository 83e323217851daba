// zkpipe/gadgets/merkle.h: the two Merkle trees of the storage proofs, native and in-circuit.
//   ShaTree      binary; node = SHA-256(left || right) over 32-byte little-endian encodings,
//                truncated to 254 bits (Filecoin's Sha256 domain); leaves are field elements.
//   PoseidonTree 8-ary; node = Poseidon (arity 8) of the eight children.
// A path lists the siblings from the leaf level up: one per level for ShaTree, seven per level
// (the other children in order, the node itself left out) for PoseidonTree. The leaf index
// picks the position: one bit per binary level, three bits per 8-ary level, least significant
// first. Thread-safety: trees are immutable after build; building uses `threads` threads.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/gadgets/boolean.h"
#include "zkpipe/gadgets/num.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::gadgets {

inline constexpr uint32_t kPoseidonTreeArity = 8;

Fr sha_tree_node(const Fr& left, const Fr& right);

// A tree stored level by level. kArity 2: SHA-256 nodes (ShaTree); kArity 8: Poseidon nodes
// (PoseidonTree); merkle_native.cpp instantiates both.
template <uint32_t kArity>
class MerkleTree {
 public:
  static constexpr uint32_t kSiblingsPerLevel = kArity - 1;

  // leaves.size() must be a power of kArity, at least kArity (callers validate shapes first).
  static MerkleTree build(std::vector<Fr> leaves, unsigned threads = 0);
  // The hash of kArity children.
  static Fr node(const Fr* children);
  // The root a path leads to (natively): what a verifier compares with the commitment.
  static Fr root_from_path(const Fr& leaf, uint64_t index, std::span<const Fr> siblings);

  const Fr& root() const { return levels_.back()[0]; }
  uint32_t depth() const { return static_cast<uint32_t>(levels_.size() - 1); }
  const Fr& leaf(uint64_t i) const { return levels_[0][i]; }
  uint64_t leaves() const { return levels_[0].size(); }
  // kSiblingsPerLevel siblings per level, leaf level first, the node itself left out.
  std::vector<Fr> path(uint64_t index) const;

 private:
  std::vector<std::vector<Fr>> levels_;
};

using ShaTree = MerkleTree<2>;
using PoseidonTree = MerkleTree<kPoseidonTreeArity>;
template <>
Fr ShaTree::node(const Fr* children);
template <>
Fr PoseidonTree::node(const Fr* children);
extern template class MerkleTree<2>;
extern template class MerkleTree<kPoseidonTreeArity>;

// Path lengths for a tree over `leaves` leaves (a power of 2, resp. of 8).
inline size_t sha_path_length(uint64_t leaves) {
  return std::countr_zero(leaves);
}
inline size_t poseidon_path_length(uint64_t leaves) {
  return size_t{PoseidonTree::kSiblingsPerLevel} * (std::countr_zero(leaves) / 3);
}

// In-circuit: the root computed from an allocated leaf, the index bits (little-endian: one per
// binary level, three per 8-ary level) and the allocated siblings. The caller enforces the
// result equal to the committed root.
Num sha_root_gadget(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> index_bits,
                    std::span<const Num> siblings);
Num poseidon_root_gadget(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> index_bits,
                         std::span<const Num> siblings);

}  // namespace zkpipe::gadgets
