// sdr.cpp: SDR labels, the replica, and comm_c / comm_r_last / comm_r (zkpipe/filecoin/sdr.h).
#include "zkpipe/filecoin/sdr.h"

#include <cstring>

#include "zkpipe/filecoin/commd.h"
#include "zkpipe/filecoin/poseidon.h"

namespace zkpipe::filecoin {
namespace {

constexpr size_t kHeader = 64, kLabelParents = 37;

void label_layer(const std::vector<uint32_t>& cache, uint64_t nodes, const Domain& replica_id,
                 uint32_t layer, const std::vector<Domain>* previous, std::vector<Domain>& out) {
  out.resize(nodes);
  uint8_t message[kHeader + kLabelParents * 32] = {};
  std::memcpy(message, replica_id.data(), 32);
  for (int i = 0; i < 4; ++i) message[32 + i] = static_cast<uint8_t>(layer >> (24 - 8 * i));
  Sha256 h;
  for (uint64_t v = 0; v < nodes; ++v) {
    for (int i = 0; i < 8; ++i) message[36 + i] = static_cast<uint8_t>(v >> (56 - 8 * i));
    size_t bytes = kHeader;
    if (v > 0) {
      const uint32_t* p = &cache[v * kParents];
      const Domain* picked[kParents];
      size_t n = kDrgDegree;
      for (size_t i = 0; i < kDrgDegree; ++i) picked[i] = &out[p[i]];
      if (layer > 1) {
        for (size_t i = 0; i < kExpanderDegree; ++i)
          picked[kDrgDegree + i] = &(*previous)[p[kDrgDegree + i]];
        n = kParents;
      }
      for (size_t i = 0; i < kLabelParents; ++i)
        std::memcpy(message + kHeader + 32 * i, picked[i % n]->data(), 32);
      bytes += kLabelParents * 32;
    }
    h.update(message, bytes);
    Sha256Digest d = h.finish();
    d[31] &= 0x3f;
    std::memcpy(out[v].data(), d.data(), 32);
  }
}

Fr tree_level_root(std::span<const Fr> leaves, uint32_t arity) {
  std::vector<Fr> level(leaves.begin(), leaves.end());
  while (level.size() > 1) {
    std::vector<Fr> up(level.size() / arity);
    for (size_t i = 0; i < up.size(); ++i)
      up[i] = poseidon_merkle(std::span<const Fr>(level.data() + i * arity, arity));
    level = std::move(up);
  }
  return level[0];
}

bool is_power_of(uint64_t n, uint32_t arity) {
  if (n == 0) return false;
  while (n % arity == 0) n /= arity;
  return n == 1;
}

}  // namespace

Domain sdr_label(const Domain& replica_id, uint32_t layer, uint64_t node,
                 std::span<const Domain> parents) {
  uint8_t header[kHeader] = {};
  std::memcpy(header, replica_id.data(), 32);
  for (int i = 0; i < 4; ++i) header[32 + i] = static_cast<uint8_t>(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) header[36 + i] = static_cast<uint8_t>(node >> (56 - 8 * i));
  Sha256 h;
  h.update(header, kHeader);
  for (const Domain& p : parents) h.update(p.data(), p.size());
  Sha256Digest d = h.finish();
  d[31] &= 0x3f;
  Domain out;
  std::memcpy(out.data(), d.data(), 32);
  return out;
}

std::vector<std::vector<Domain>> sdr_labels(const SdrGraph& graph, const Domain& replica_id,
                                            uint32_t layers) {
  return sdr_labels(graph.cache(), graph.nodes(), replica_id, layers);
}

std::vector<std::vector<Domain>> sdr_labels(const std::vector<uint32_t>& cache, uint64_t nodes,
                                            const Domain& replica_id, uint32_t layers) {
  std::vector<std::vector<Domain>> labels(layers);
  for (uint32_t l = 1; l <= layers; ++l)
    label_layer(cache, nodes, replica_id, l, l > 1 ? &labels[l - 2] : nullptr, labels[l - 1]);
  return labels;
}

Result<Fr> poseidon_tree_root(std::span<const Fr> leaves, uint32_t base, uint32_t sub,
                              uint32_t top) {
  const uint64_t trees = uint64_t(sub ? sub : 1) * (top ? top : 1);
  if (base < 2 || leaves.size() % trees != 0 || !is_power_of(leaves.size() / trees, base)) {
    return invalid_argument("Poseidon tree " + std::to_string(base) + "-" + std::to_string(sub) +
                            "-" + std::to_string(top) + ": " + std::to_string(leaves.size()) +
                            " leaves do not fill it");
  }
  const size_t per = leaves.size() / trees;
  std::vector<Fr> roots;
  for (uint64_t t = 0; t < trees; ++t)
    roots.push_back(tree_level_root(leaves.subspan(t * per, per), base));
  if (sub) {
    std::vector<Fr> up;
    for (size_t i = 0; i < roots.size(); i += sub)
      up.push_back(poseidon_merkle(std::span<const Fr>(roots.data() + i, sub)));
    roots = std::move(up);
  }
  if (top) roots = {poseidon_merkle(roots)};
  return roots[0];
}

Result<SealedSector> seal_sector(std::span<const uint8_t> data, const SectorShape& shape,
                                 const PorepConfig& config, const Domain& replica_id) {
  if (data.size() != shape.sector_size) {
    return invalid_argument("seal: " + std::to_string(data.size()) + " bytes of data for a " +
                            std::to_string(shape.sector_size) + "-byte sector");
  }
  const uint64_t nodes = shape.nodes;
  std::vector<Fr> data_fr(nodes);
  for (uint64_t v = 0; v < nodes; ++v) {
    Domain d;
    std::memcpy(d.data(), data.data() + 32 * v, 32);
    ZKP_ASSIGN_OR_RETURN(data_fr[v],
                         fr_from_domain(d, "seal: data node " + std::to_string(v) + " (offset " +
                                               std::to_string(32 * v) + ")"));
  }
  SealedSector s;
  ZKP_ASSIGN_OR_RETURN(s.comm_d, comm_d_padded(data));
  const SdrGraph graph(nodes, config.porep_id, config.api_version);
  const std::vector<std::vector<Domain>> labels = sdr_labels(graph, replica_id, shape.layers);
  std::vector<Fr> columns(nodes), replica(nodes);
  std::vector<Fr> column(shape.layers);
  s.replica.resize(nodes);
  for (uint64_t v = 0; v < nodes; ++v) {
    for (uint32_t l = 0; l < shape.layers; ++l) column[l] = *fr_from_domain(labels[l][v]);
    columns[v] = poseidon_merkle(column);
    replica[v] = data_fr[v] + column[shape.layers - 1];
    s.replica[v] = domain_from_fr(replica[v]);
  }
  ZKP_ASSIGN_OR_RETURN(
      Fr comm_c, poseidon_tree_root(columns, shape.base_arity, shape.sub_arity, shape.top_arity));
  ZKP_ASSIGN_OR_RETURN(Fr comm_r_last, poseidon_tree_root(replica, shape.base_arity,
                                                          shape.sub_arity, shape.top_arity));
  s.comm_c = domain_from_fr(comm_c);
  s.comm_r_last = domain_from_fr(comm_r_last);
  const Fr pair[2] = {comm_c, comm_r_last};
  s.comm_r = domain_from_fr(poseidon_merkle(pair));
  return s;
}

}  // namespace zkpipe::filecoin
