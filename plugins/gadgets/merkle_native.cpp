// Native Merkle trees: build, paths and roots from paths (zkpipe/gadgets/merkle.h).
#include <bit>
#include <string>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::gadgets {
namespace {

constexpr uint32_t kSiblingsPerLevel = kPoseidonTreeArity - 1;

Fr poseidon_node(std::span<const Fr, kPoseidonTreeArity> children) {
  return poseidon_hash(std::span<const Fr>(children.data(), children.size()));
}

// Hashes level `below` into a new level of below.size() / arity nodes, in parallel.
template <uint32_t kArity, typename Hash>
std::vector<Fr> hash_level(const std::vector<Fr>& below, unsigned threads, Hash&& hash) {
  std::vector<Fr> out(below.size() / kArity);
  constexpr size_t kChunk = 256;
  crypto::parallel_for((out.size() + kChunk - 1) / kChunk, threads, [&](size_t t) {
    size_t end = std::min(out.size(), (t + 1) * kChunk);
    for (size_t i = t * kChunk; i < end; ++i) out[i] = hash(&below[i * kArity]);
  });
  return out;
}

}  // namespace

Result<uint32_t> sha_tree_depth(uint64_t leaves, const char* what) {
  if (leaves < 2 || !std::has_single_bit(leaves)) {
    return invalid_argument(std::string(what) +
                            ": a binary tree needs a power of two >= 2 leaves, not " +
                            std::to_string(leaves));
  }
  return static_cast<uint32_t>(std::countr_zero(leaves));
}

Result<uint32_t> poseidon_tree_depth(uint64_t leaves, const char* what) {
  if (leaves < 8 || !std::has_single_bit(leaves) || std::countr_zero(leaves) % 3 != 0) {
    return invalid_argument(std::string(what) +
                            ": an 8-ary tree needs a power of eight >= 8 leaves, not " +
                            std::to_string(leaves));
  }
  return static_cast<uint32_t>(std::countr_zero(leaves) / 3);
}

Fr sha_tree_node(const Fr& left, const Fr& right) {
  std::array<uint8_t, 64> message;
  auto l = fr_to_le_bytes(left);
  auto r = fr_to_le_bytes(right);
  std::copy(l.begin(), l.end(), message.begin());
  std::copy(r.begin(), r.end(), message.begin() + 32);
  return fr_from_sha_digest(sha256(message));
}

ShaTree ShaTree::build(std::vector<Fr> leaves, unsigned threads) {
  ShaTree t;
  t.levels_.push_back(std::move(leaves));
  while (t.levels_.back().size() > 1) {
    t.levels_.push_back(hash_level<2>(t.levels_.back(), threads,
                                      [](const Fr* c) { return sha_tree_node(c[0], c[1]); }));
  }
  return t;
}

std::vector<Fr> ShaTree::path(uint64_t index) const {
  std::vector<Fr> siblings;
  for (uint32_t level = 0; level < depth(); ++level, index >>= 1) {
    siblings.push_back(levels_[level][index ^ 1]);
  }
  return siblings;
}

PoseidonTree PoseidonTree::build(std::vector<Fr> leaves, unsigned threads) {
  PoseidonTree t;
  t.levels_.push_back(std::move(leaves));
  while (t.levels_.back().size() > 1) {
    t.levels_.push_back(hash_level<kPoseidonTreeArity>(t.levels_.back(), threads, [](const Fr* c) {
      return poseidon_node(std::span<const Fr, kPoseidonTreeArity>(c, kPoseidonTreeArity));
    }));
  }
  return t;
}

std::vector<Fr> PoseidonTree::path(uint64_t index) const {
  std::vector<Fr> siblings;
  for (uint32_t level = 0; level < depth(); ++level, index /= kPoseidonTreeArity) {
    uint64_t first = index - index % kPoseidonTreeArity;
    for (uint64_t k = 0; k < kPoseidonTreeArity; ++k) {
      if (first + k != index) siblings.push_back(levels_[level][first + k]);
    }
  }
  return siblings;
}

Fr sha_root_from_path(const Fr& leaf, uint64_t index, std::span<const Fr> siblings) {
  Fr cur = leaf;
  for (const Fr& s : siblings) {
    cur = (index & 1) ? sha_tree_node(s, cur) : sha_tree_node(cur, s);
    index >>= 1;
  }
  return cur;
}

Fr poseidon_root_from_path(const Fr& leaf, uint64_t index, std::span<const Fr> siblings) {
  Fr cur = leaf;
  std::array<Fr, kPoseidonTreeArity> children;
  for (size_t level = 0; level * kSiblingsPerLevel < siblings.size(); ++level) {
    uint32_t pos = index % kPoseidonTreeArity;
    const Fr* sib = &siblings[level * kSiblingsPerLevel];
    for (uint32_t k = 0, s = 0; k < kPoseidonTreeArity; ++k)
      children[k] = k == pos ? cur : sib[s++];
    cur = poseidon_node(children);
    index /= kPoseidonTreeArity;
  }
  return cur;
}

}  // namespace zkpipe::gadgets
