// In-circuit Merkle roots (zkpipe/gadgets/merkle.h). Both gadgets allocate the same variables in
// the same order in record and witness-only mode; witness-only mode builds no linear combination.
#include <array>

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::gadgets {
namespace {

// s ? b : a, allocated, one constraint: s * (b - a) = out - a. Free when a and b are one variable.
Num select(ConstraintSystem& cs, const Boolean& s, const Num& a, const Num& b) {
  if (a.var == b.var) return a;
  Num out = Num::alloc(cs, s.value() ? b.value : a.value);
  cs.enforce_with([&](LinearCombination& l) { l = s.lc(); },
                  [&](LinearCombination& l) {
                    l += b.var;
                    l -= a.var;
                  },
                  [&](LinearCombination& l) {
                    l += out.var;
                    l -= a.var;
                  });
  return out;
}

// SHA-256 input bits of a 254-bit value: its 32-byte little-endian encoding.
std::vector<Boolean> sha_bits(ConstraintSystem& cs, const Num& n) {
  return bits_le_to_sha_bytes(to_bits_le(cs, n, 254));
}

}  // namespace

Num sha_root_gadget(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> index_bits,
                    std::span<const Num> siblings) {
  Num cur = leaf;
  for (size_t level = 0; level < siblings.size(); ++level) {
    Namespace ns(cs, "sha level " + std::to_string(level));
    const Boolean& bit = index_bits[level];
    const Num& sib = siblings[level];
    Num left = select(cs, bit, cur, sib);
    Num right = select(cs, bit, sib, cur);
    std::vector<Boolean> message = sha_bits(cs, left);
    std::vector<Boolean> right_bits = sha_bits(cs, right);
    message.insert(message.end(), right_bits.begin(), right_bits.end());
    cur = sha_digest_to_num(cs, sha256(cs, message));
  }
  return cur;
}

Num poseidon_root_gadget(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> index_bits,
                         std::span<const Num> siblings) {
  constexpr uint32_t kSiblings = kPoseidonTreeArity - 1;
  Num cur = leaf;
  for (size_t level = 0; level * kSiblings < siblings.size(); ++level) {
    Namespace ns(cs, "poseidon level " + std::to_string(level));
    const Num* sib = &siblings[level * kSiblings];
    const Boolean* bits = &index_bits[level * 3];
    std::array<Num, kPoseidonTreeArity> children;
    for (uint32_t k = 0; k < kPoseidonTreeArity; ++k) {
      // Child k when the node sits at position p: the node itself, or the sibling before or
      // after it. A 3-bit multiplexer over p picks it (equal candidates cost nothing).
      std::array<Num, kPoseidonTreeArity> candidates;
      for (uint32_t p = 0; p < kPoseidonTreeArity; ++p) {
        candidates[p] = k == p ? cur : (k < p ? sib[k] : sib[k - 1]);
      }
      for (uint32_t width = kPoseidonTreeArity, b = 0; width > 1; width /= 2, ++b) {
        for (uint32_t i = 0; i < width / 2; ++i) {
          candidates[i] = select(cs, bits[b], candidates[2 * i], candidates[2 * i + 1]);
        }
      }
      children[k] = candidates[0];
    }
    cur = poseidon_hash(cs, children);
  }
  return cur;
}

}  // namespace zkpipe::gadgets
