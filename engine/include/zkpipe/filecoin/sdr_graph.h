// zkpipe/filecoin/sdr_graph.h: the SDR graph of Filecoin's PoRep (rust-fil-proofs'
// StackedBucketGraph), for a sector of `nodes` 32-byte nodes, a porep_id and an API version:
//   - 6 DRG parents (BucketGraph): ChaCha8 keyed with the first 28 bytes of
//     SHA-256("Filecoin_DRSample" || porep_id) then the node as u32 LE; 5 bucket-sampled parents
//     of the metagraph of degree 5, and the predecessor node - 1 (last in V1_0, first since V1_1);
//     nodes 0 and 1 have parents 0;
//   - 8 expander parents: a 3-round Feistel permutation of [0, 8 nodes) (round function the first 8
//     bytes, big-endian, of BLAKE2b-512(R u64 BE || key u64 BE); keys from
//     SHA-256("Filecoin_Feistel" || porep_id), cycle-walking), parent i of v = perm(8v + i) / 8
//     (V1_0: of its low 32 bits).
// The parent cache is every node's 14 parents as u32 LE, node after node; its file name and
// SHA-256 are those of rust-fil-proofs' parent_cache.json.
// Library zkpipe::filecoin. Thread-safety: an SdrGraph is immutable; parents() may run
// concurrently.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {

inline constexpr uint32_t kDrgDegree = 6;
inline constexpr uint32_t kExpanderDegree = 8;
inline constexpr uint32_t kParents = kDrgDegree + kExpanderDegree;

class SdrGraph {
 public:
  // nodes: a power of two of at least 2 (the sector size / 32).
  SdrGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api);

  uint64_t nodes() const { return nodes_; }
  void drg_parents(uint64_t node, uint32_t out[kDrgDegree]) const;
  void expander_parents(uint64_t node, uint32_t out[kExpanderDegree]) const;
  // The 6 DRG parents then the 8 expander parents (the parent cache's order).
  std::array<uint32_t, kParents> parents(uint64_t node) const;

  // "v28-sdr-parent-<hex>": rust-fil-proofs' name of this graph's parent cache file.
  std::string cache_name() const;
  // SHA-256 of the parent cache (computed node by node, nothing stored; threads: 0 = all).
  Sha256Digest cache_digest(unsigned threads = 0) const;
  // The parent cache in memory: kParents u32 a node (56 bytes; 900 MiB for 512MiB, too much for
  // 32GiB, which rust-fil-proofs keeps in a file).
  std::vector<uint32_t> cache(unsigned threads = 0) const;

 private:
  uint64_t feistel_permute(uint64_t x) const;
  uint64_t feistel_encode(uint64_t x) const;

  uint64_t nodes_;
  ApiVersion api_;
  std::array<uint8_t, 28> drg_seed_;
  std::array<uint64_t, 4> keys_;
  uint64_t right_mask_ = 0, left_mask_ = 0;
  uint32_t half_bits_ = 0;
};

}  // namespace zkpipe::filecoin
