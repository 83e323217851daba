// zkpipe/filecoin/sdr.h: Stacked DRG sealing as rust-fil-proofs computes it: the labels of every
// layer, the replica, and the commitments.
//   label(l, v) = sha256_trunc254(replica_id || l u32 BE || v u64 BE || 20 zero bytes || 37 parent
//     labels); node 0 hashes the 64-byte header alone; layer 1 repeats its 6 DRG parents' labels
//     (this layer) 6 times and the first once more; layers >= 2 take the 6 DRG parents from this
//     layer and the 8 expander parents from the layer before, all 14 twice, then the first 9;
//   replica[v] = data[v] + label(L, v) in Fr;
//   comm_d: the SHA-256 tree over the data (commd.h); comm_c: the Poseidon tree (the sector's
//   shape: arity 8 base, then sub and top) over Poseidon-L hashes of each node's column of labels
//   (layer 1 first); comm_r_last: the same tree over the replica; comm_r = Poseidon2(comm_c,
//   comm_r_last).
// Everything is in memory (layers x nodes x 32 bytes of labels): fine to 512MiB sectors, not a
// production sealer for 32GiB. Labelling is sequential within a layer (each node needs earlier
// nodes of its layer).
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin/sdr_graph.h"

namespace zkpipe::filecoin {

// All layers' labels: labels[l - 1][v] (the graph's parent cache is built first, in memory, on
// all hardware threads).
std::vector<std::vector<Domain>> sdr_labels(const SdrGraph& graph, const Domain& replica_id,
                                            uint32_t layers);
// The same from a parent cache already built (SdrGraph::cache()) for `nodes` nodes.
std::vector<std::vector<Domain>> sdr_labels(const std::vector<uint32_t>& cache, uint64_t nodes,
                                            const Domain& replica_id, uint32_t layers);

// One label from the parent labels as hashed (the 37 of a labeling proof; none for node 0):
// sha256_trunc254(replica_id || layer u32 BE || node u64 BE || 20 zero bytes || parents).
Domain sdr_label(const Domain& replica_id, uint32_t layer, uint64_t node,
                 std::span<const Domain> parents);

// The root of a Poseidon tree (MerkleTree tags) of `base` arity over leaves split into
// sub * top base trees, whose roots are joined by `sub` then `top` arity nodes (0: no level).
// INVALID_ARGUMENT when the leaves do not fill that shape.
Result<Fr> poseidon_tree_root(std::span<const Fr> leaves, uint32_t base, uint32_t sub,
                              uint32_t top);

struct SealedSector {
  std::vector<Domain> replica;
  Domain comm_d{}, comm_c{}, comm_r_last{}, comm_r{};
};

// Seals fr32-padded `data` (the sector size of `shape`; every node a canonical Fr) for
// `replica_id` under the config's porep_id and API version. INVALID_ARGUMENT naming the size or
// the first node that is not a canonical Fr.
Result<SealedSector> seal_sector(std::span<const uint8_t> data, const SectorShape& shape,
                                 const PorepConfig& config, const Domain& replica_id);

}  // namespace zkpipe::filecoin
