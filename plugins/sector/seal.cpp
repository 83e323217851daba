// Synthetic sealing (zkpipe/sector/seal.h).
#include "zkpipe/sector/seal.h"

#include <cstring>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::porep {
namespace {

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

void put_u64_le(std::vector<uint8_t>& out, uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
}

}  // namespace

Seed seed_from_string(const std::string& s) {
  return gadgets::sha256(as_bytes(s));
}

Fr sha_fr(std::span<const uint8_t> message) {
  return gadgets::fr_from_sha_digest(gadgets::sha256(message));
}

Fr replica_id_from_seed(const Seed& seed) {
  std::string tag = "zkpipe porep replica id";
  std::vector<uint8_t> m(tag.begin(), tag.end());
  m.insert(m.end(), seed.begin(), seed.end());
  return sha_fr(m);
}

Fr seeded_node(std::string_view tag, const Seed& seed, uint64_t node) {
  std::vector<uint8_t> m(tag.begin(), tag.end());
  m.insert(m.end(), seed.begin(), seed.end());
  put_u64_le(m, node);
  return sha_fr(m);
}

Fr data_node(const Seed& seed, uint64_t node) {
  return seeded_node("zkpipe porep data", seed, node);
}

uint64_t challenge_bits(std::string_view tag, std::span<const uint8_t> key, uint32_t partition,
                        uint32_t index) {
  std::vector<uint8_t> m(tag.begin(), tag.end());
  m.insert(m.end(), key.begin(), key.end());
  for (int b = 0; b < 4; ++b) m.push_back(static_cast<uint8_t>(partition >> (8 * b)));
  for (int b = 0; b < 4; ++b) m.push_back(static_cast<uint8_t>(index >> (8 * b)));
  auto d = gadgets::sha256(m);
  uint64_t x = 0;
  for (int b = 7; b >= 0; --b) x = (x << 8) | d[b];
  return x;
}

Fr compute_label(const Fr& replica_id, uint32_t layer, uint64_t node,
                 std::span<const Fr> parent_labels) {
  std::vector<uint8_t> m(64 + 32 * parent_labels.size(), 0);
  auto id = gadgets::fr_to_le_bytes(replica_id);
  std::memcpy(m.data(), id.data(), 32);
  for (int b = 0; b < 4; ++b) m[32 + b] = static_cast<uint8_t>(layer >> (8 * (3 - b)));
  for (int b = 0; b < 8; ++b) m[36 + b] = static_cast<uint8_t>(node >> (8 * (7 - b)));
  for (size_t p = 0; p < parent_labels.size(); ++p) {
    auto bytes = gadgets::fr_to_le_bytes(parent_labels[p]);
    std::memcpy(m.data() + 64 + 32 * p, bytes.data(), 32);
  }
  return sha_fr(m);
}

uint64_t derive_challenge(const Fr& replica_id, const Seed& challenge_seed, uint32_t partition,
                          uint32_t index, uint64_t nodes) {
  auto id = gadgets::fr_to_le_bytes(replica_id);
  std::vector<uint8_t> key(id.begin(), id.end());
  key.insert(key.end(), challenge_seed.begin(), challenge_seed.end());
  return 1 + challenge_bits("zkpipe porep challenge", key, partition, index) % (nodes - 1);
}

SealedSector seal(const Shape& shape, const Seed& seed, unsigned threads,
                  const SealProgress& progress, SectorData data) {
  SealedSector s;
  s.shape = shape;
  s.replica_id = replica_id_from_seed(seed);
  s.data.resize(shape.nodes);
  crypto::parallel_for(shape.nodes, threads, [&](size_t i) {
    s.data[i] = data == SectorData::kEmpty ? Fr::zero() : data_node(seed, i);
  });

  Graph graph(shape);
  std::vector<uint64_t> parents(shape.parents());
  std::vector<Fr> parent_labels;
  s.labels.assign(shape.layers, std::vector<Fr>(shape.nodes, Fr::zero()));
  for (uint32_t layer = 1; layer <= shape.layers; ++layer) {
    std::vector<Fr>& cur = s.labels[layer - 1];
    const uint32_t count = layer == 1 ? shape.base_degree : shape.parents();
    for (uint64_t node = 0; node < shape.nodes; ++node) {
      graph.parents(node, parents);
      parent_labels.clear();
      for (uint32_t p = 0; p < count; ++p) {
        // DRG parents read this layer (node 0's self-parents are still zero); expander parents
        // read the previous layer.
        parent_labels.push_back(p < shape.base_degree ? cur[parents[p]]
                                                      : s.labels[layer - 2][parents[p]]);
      }
      cur[node] = compute_label(s.replica_id, layer, node, parent_labels);
      if (progress && (node % 65536 == 65535 || node + 1 == shape.nodes)) {
        progress("layer " + std::to_string(layer), node + 1, shape.nodes);
      }
    }
  }
  build_trees(s, threads);
  return s;
}

void build_trees(SealedSector& s, unsigned threads) {
  const Shape& shape = s.shape;
  std::vector<Fr> columns(shape.nodes);
  s.replica.resize(shape.nodes);
  crypto::parallel_for(shape.nodes, threads, [&](size_t i) {
    std::vector<Fr> column(shape.layers);
    for (uint32_t l = 0; l < shape.layers; ++l) column[l] = s.labels[l][i];
    columns[i] = gadgets::poseidon_hash(column);
    s.replica[i] = s.labels[shape.layers - 1][i] + s.data[i];
  });
  s.tree_d = gadgets::ShaTree::build(s.data, threads);
  s.tree_c = gadgets::PoseidonTree::build(std::move(columns), threads);
  s.tree_r = gadgets::PoseidonTree::build(s.replica, threads);
  s.comms.comm_d = s.tree_d.root();
  s.comms.comm_c = s.tree_c.root();
  s.comms.comm_r_last = s.tree_r.root();
  Fr pair[2] = {s.comms.comm_c, s.comms.comm_r_last};
  s.comms.comm_r = gadgets::poseidon_hash(pair);
}

}  // namespace zkpipe::porep
