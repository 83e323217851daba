// zkpipe/sector/seal.h: synthetic sealing of a StackedDRG-style sector, deterministic from a seed:
// sector data, labels layer by layer, the replica and the three trees with their commitments.
//   replica id   = sha_fr("zkpipe porep replica id" || seed)
//   data node i  = sha_fr("zkpipe porep data" || seed || i as u64 LE)
//   label(l, i)  = sha_fr(replica id (32 LE) || l as u32 BE || i as u64 BE || 20 zero bytes ||
//                         labels of the parents (32 LE each): DRG parents from layer l, then for
//                         l >= 2 expander parents from layer l - 1)
//   column i     = Poseidon_L(label(1, i), ..., label(L, i));   tree C: 8-ary Poseidon
//   replica i    = label(L, i) + data i;                         tree R: 8-ary Poseidon
//   tree D       = binary SHA-256 over the data; comm_r = Poseidon_2(comm_c, comm_r_last)
// where sha_fr = SHA-256 truncated to 254 bits, read little-endian. Layers are 1-based here.
// Thread-safety: seal() is reentrant; a SealedSector is immutable once built.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/sector/graph.h"
#include "zkpipe/sector/shape.h"

namespace zkpipe::porep {

using crypto::Fr;
using Seed = std::array<uint8_t, 32>;

// A seed from a user string (SHA-256 of it), so "--seed 7" is as good as 32 bytes.
Seed seed_from_string(const std::string& s);

Fr sha_fr(std::span<const uint8_t> message);
// sha_fr(tag || seed || node as u64 LE): the synthetic data of both proof types.
Fr seeded_node(std::string_view tag, const Seed& seed, uint64_t node);
// The first 8 bytes (LE) of SHA-256(tag || key || partition as u32 LE || index as u32 LE): the
// challenge derivations of both proof types.
uint64_t challenge_bits(std::string_view tag, std::span<const uint8_t> key, uint32_t partition,
                        uint32_t index);
Fr replica_id_from_seed(const Seed& seed);
Fr data_node(const Seed& seed, uint64_t node);
// The label of `node` in `layer` (1-based) from its parents' labels (DRG then expander).
Fr compute_label(const Fr& replica_id, uint32_t layer, uint64_t node,
                 std::span<const Fr> parent_labels);
// Challenge j of partition k: 1 + (first 8 bytes LE of SHA-256("zkpipe porep challenge" ||
// replica id || challenge seed || k as u32 LE || j as u32 LE)) mod (nodes - 1).
uint64_t derive_challenge(const Fr& replica_id, const Seed& challenge_seed, uint32_t partition,
                          uint32_t index, uint64_t nodes);

struct Commitments {
  Fr comm_d, comm_c, comm_r_last, comm_r;
};

struct SealedSector {
  Shape shape;
  Fr replica_id;
  std::vector<Fr> data;                 // one per node
  std::vector<std::vector<Fr>> labels;  // labels[l - 1][node]
  std::vector<Fr> replica;
  gadgets::ShaTree tree_d;
  gadgets::PoseidonTree tree_c, tree_r;
  Commitments comms;
};

// Progress: (what, done, total), e.g. ("layer 2", 4096, 262144); may be empty.
using SealProgress = std::function<void(const std::string&, uint64_t, uint64_t)>;

// kEmpty: a committed-capacity sector (all-zero data), the sector key SnapDeals encodes into.
enum class SectorData { kSynthetic, kEmpty };

// Seals synthetic (or empty) data from `seed`. The shape must be valid (validate_shape).
SealedSector seal(const Shape& shape, const Seed& seed, unsigned threads = 0,
                  const SealProgress& progress = {}, SectorData data = SectorData::kSynthetic);
// Rebuilds the replica, trees and commitments from data and labels (after loading a cache).
void build_trees(SealedSector& s, unsigned threads = 0);

}  // namespace zkpipe::porep
