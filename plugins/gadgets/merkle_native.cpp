// Native Merkle trees: build, paths and roots from paths (zkpipe/gadgets/merkle.h).
#include <array>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::gadgets {

Fr sha_tree_node(const Fr& left, const Fr& right) {
  std::array<uint8_t, 64> message;
  auto l = fr_to_le_bytes(left);
  auto r = fr_to_le_bytes(right);
  std::copy(l.begin(), l.end(), message.begin());
  std::copy(r.begin(), r.end(), message.begin() + 32);
  return fr_from_sha_digest(sha256(message));
}

template <>
Fr ShaTree::node(const Fr* children) {
  return sha_tree_node(children[0], children[1]);
}

template <>
Fr PoseidonTree::node(const Fr* children) {
  return poseidon_hash(std::span<const Fr>(children, kPoseidonTreeArity));
}

template <uint32_t kArity>
MerkleTree<kArity> MerkleTree<kArity>::build(std::vector<Fr> leaves, unsigned threads) {
  MerkleTree t;
  t.levels_.push_back(std::move(leaves));
  while (t.levels_.back().size() > 1) {
    const std::vector<Fr>& below = t.levels_.back();
    std::vector<Fr> level(below.size() / kArity);
    constexpr size_t kChunk = 256;  // nodes per task
    crypto::parallel_for((level.size() + kChunk - 1) / kChunk, threads, [&](size_t task) {
      const size_t end = std::min(level.size(), (task + 1) * kChunk);
      for (size_t i = task * kChunk; i < end; ++i) level[i] = node(&below[i * kArity]);
    });
    t.levels_.push_back(std::move(level));
  }
  return t;
}

template <uint32_t kArity>
std::vector<Fr> MerkleTree<kArity>::path(uint64_t index) const {
  std::vector<Fr> siblings;
  siblings.reserve(size_t{kSiblingsPerLevel} * depth());
  for (uint32_t level = 0; level < depth(); ++level, index /= kArity) {
    const uint64_t first = index - index % kArity;
    for (uint64_t k = first; k < first + kArity; ++k) {
      if (k != index) siblings.push_back(levels_[level][k]);
    }
  }
  return siblings;
}

template <uint32_t kArity>
Fr MerkleTree<kArity>::root_from_path(const Fr& leaf, uint64_t index,
                                      std::span<const Fr> siblings) {
  Fr cur = leaf;
  std::array<Fr, kArity> children;
  for (size_t level = 0; level * kSiblingsPerLevel < siblings.size(); ++level) {
    const uint32_t pos = index % kArity;
    const Fr* sib = &siblings[level * kSiblingsPerLevel];
    for (uint32_t k = 0, s = 0; k < kArity; ++k) children[k] = k == pos ? cur : sib[s++];
    cur = node(children.data());
    index /= kArity;
  }
  return cur;
}

template class MerkleTree<2>;
template class MerkleTree<kPoseidonTreeArity>;

}  // namespace zkpipe::gadgets
