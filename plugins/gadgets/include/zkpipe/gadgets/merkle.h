// zkpipe/gadgets/merkle.h: the two Merkle trees of the storage proofs, native and in-circuit.
//   ShaTree      binary; node = SHA-256(left || right) over 32-byte little-endian encodings,
//                truncated to 254 bits (Filecoin's Sha256 domain); leaves are field elements.
//   PoseidonTree 8-ary; node = Poseidon (arity 8) of the eight children.
// A path lists the siblings from the leaf level up: one per level for ShaTree, seven per level
// (the other children in order, the node itself left out) for PoseidonTree. The leaf index
// picks the position: one bit per binary level, three bits per 8-ary level, least significant
// first. Thread-safety: trees are immutable after build; building uses `threads` threads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/gadgets/boolean.h"
#include "zkpipe/gadgets/num.h"
#include "zkpipe/status.h"

namespace zkpipe::gadgets {

inline constexpr uint32_t kPoseidonTreeArity = 8;

// Tree shapes: depth for `leaves` leaves, or an error naming what is wrong (`what` prefixes it).
Result<uint32_t> sha_tree_depth(uint64_t leaves, const char* what);
Result<uint32_t> poseidon_tree_depth(uint64_t leaves, const char* what);

Fr sha_tree_node(const Fr& left, const Fr& right);

class ShaTree {
 public:
  // leaves.size() must be a power of two >= 2 (sha_tree_depth checks it).
  static ShaTree build(std::vector<Fr> leaves, unsigned threads = 0);
  const Fr& root() const { return levels_.back()[0]; }
  uint32_t depth() const { return static_cast<uint32_t>(levels_.size() - 1); }
  const Fr& leaf(uint64_t i) const { return levels_[0][i]; }
  uint64_t leaves() const { return levels_[0].size(); }
  std::vector<Fr> path(uint64_t index) const;

 private:
  std::vector<std::vector<Fr>> levels_;
};

class PoseidonTree {
 public:
  // leaves.size() must be a power of eight >= 8 (poseidon_tree_depth checks it).
  static PoseidonTree build(std::vector<Fr> leaves, unsigned threads = 0);
  const Fr& root() const { return levels_.back()[0]; }
  uint32_t depth() const { return static_cast<uint32_t>(levels_.size() - 1); }
  const Fr& leaf(uint64_t i) const { return levels_[0][i]; }
  uint64_t leaves() const { return levels_[0].size(); }
  std::vector<Fr> path(uint64_t index) const;

 private:
  std::vector<std::vector<Fr>> levels_;
};

// The root a path leads to (natively): what a verifier compares with the commitment.
Fr sha_root_from_path(const Fr& leaf, uint64_t index, std::span<const Fr> siblings);
Fr poseidon_root_from_path(const Fr& leaf, uint64_t index, std::span<const Fr> siblings);

// In-circuit: the root computed from an allocated leaf, the index bits (little-endian: one per
// binary level, three per 8-ary level) and the allocated siblings. The caller enforces the
// result equal to the committed root.
Num sha_root_gadget(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> index_bits,
                    std::span<const Num> siblings);
Num poseidon_root_gadget(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> index_bits,
                         std::span<const Num> siblings);

}  // namespace zkpipe::gadgets
