// zkpipe/filecoin_circuit/por.h: Filecoin's Merkle inclusion proof in-circuit
// (storage-proofs-core gadgets/por.rs, PoRCircuit with a private root) over its Poseidon trees:
// a base tree of arity 8 (levels of 8 children), optionally a sub-tree level (arity 8 or 4 over
// base roots) and a top level (arity 2 over sub roots), as rust-fil-proofs' LCTree<U, V, W>.
// Per level: the position bits allocated (AllocatedBit), the siblings allocated, the node
// inserted among them (insertion::insert), Poseidon of the arity; then all position bits packed
// into one public input (the challenged leaf's index), the value of the root allocated unless
// given, and computed root == root. Natively: the root a path leads to.
// Library zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/filecoin_circuit/gadgets.h"

namespace zkpipe::filecoin_circuit {

// LCTree<U8, V, W>: arity of the base levels, of the one sub-tree level (0: none) and of the
// one top level (0: none; needs a sub level).
struct TreeArities {
  uint32_t base = 8, sub = 0, top = 0;
};

// One level of a path: the other children of the node's parent, in order, and the node's
// position among the arity children.
struct PathElement {
  std::vector<Fr> siblings;
  uint32_t position = 0;
};

// The tree's hash: neptune's Poseidon (MerkleTree tag of the arity) or Filecoin's SHA-256
// truncated to 254 bits over the children's little-endian bytes.
enum class TreeHasher { kPoseidon, kSha256 };

struct MerkleOpening {
  TreeHasher hasher = TreeHasher::kPoseidon;
  Fr leaf;
  std::vector<PathElement> path;  // the base levels from the leaf up, then sub, then top
};

// Levels of the base tree over `leaves` leaves (rust-fil-proofs' base_path_length); throws
// std::invalid_argument when the leaves do not fill such a tree.
uint32_t base_path_length(uint64_t leaves, TreeArities a);
// The arity of path level `level` for a base path of `base_levels` levels.
uint32_t level_arity(uint32_t level, uint32_t base_levels, TreeArities a);
// The positions of leaf `index` at every level (what a path's `position`s are).
std::vector<uint32_t> leaf_positions(uint64_t index, uint64_t leaves, TreeArities a);
// An all-zero opening of the right shape (for counting and blank circuits).
MerkleOpening blank_opening(uint64_t leaves, TreeArities a,
                            TreeHasher hasher = TreeHasher::kPoseidon);
// One node of the tree from its children, natively.
Fr tree_hash(TreeHasher hasher, std::span<const Fr> children);
// The same in circuit (H::Function::hash_multi_leaf_circuit).
Num tree_hash(ConstraintSystem& cs, TreeHasher hasher, std::span<const Num> children);

// The root `opening` leads to (its hasher's tree hashes, natively).
Fr opening_root(const MerkleOpening& opening);

// PoRCircuit::synthesize with Root::Val(leaf), the path, Root::Var(root), private = true.
// Throws std::invalid_argument when a level's sibling count is not a supported arity - 1.
void por_private(ConstraintSystem& cs, const MerkleOpening& opening, const Num& root);
// The same with Root::Var(leaf): the leaf already allocated (opening.leaf is not used).
void por_private(ConstraintSystem& cs, const MerkleOpening& opening, const Num& leaf,
                 const Num& root);
// PoRCircuit as a circuit of its own (PoRCompound): Root::Val for both leaf and root; the root
// allocated after the packed path and, unless `private_root`, made a public input too.
void por_standalone(ConstraintSystem& cs, const MerkleOpening& opening, const Fr& root,
                    bool private_root);

// por_no_challenge_input: the path's levels from the leaf up, each the allocated siblings of
// one level (arity = siblings + 1), its position taken from `challenge_bits` (least significant
// first, log2(arity) a level; all must be used); per level insertion then the hasher's hash;
// then computed root * 1 = root. Allocates nothing itself but what insertion and hashing do.
// Throws std::invalid_argument when the bits and the path's arities disagree.
void por_no_challenge_input(ConstraintSystem& cs, TreeHasher hasher,
                            std::span<const Boolean> challenge_bits, const Num& leaf,
                            const std::vector<std::vector<Num>>& path, const Num& root);

}  // namespace zkpipe::filecoin_circuit
