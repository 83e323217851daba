// Vanilla proofs: generation, the native check and public inputs (zkpipe/porep/vanilla.h).
#include "zkpipe/porep/vanilla.h"

#include <set>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::porep {
namespace {

ColumnOpening open_column(const SealedSector& s, uint64_t node) {
  ColumnOpening c;
  c.node = node;
  for (uint32_t l = 0; l < s.shape.layers; ++l) c.labels.push_back(s.labels[l][node]);
  c.path = s.tree_c.path(node);
  return c;
}

// The labels of `node`'s parents as label(layer) reads them.
std::vector<Fr> parent_labels(const ChallengeProof& p, const Shape& shape, uint32_t layer) {
  std::vector<Fr> out;
  const uint32_t count = layer == 1 ? shape.base_degree : shape.parents();
  for (uint32_t k = 0; k < count; ++k) {
    out.push_back(k < shape.base_degree ? p.parents[k].labels[layer - 1]
                                        : p.parents[k].labels[layer - 2]);
  }
  return out;
}

Status check_column(const ColumnOpening& c, const VanillaProofs& v, const std::string& where) {
  const size_t path = gadgets::poseidon_path_length(v.shape.nodes);
  if (c.labels.size() != v.shape.layers || c.path.size() != path) {
    return invalid_argument(where + ": column has " + std::to_string(c.labels.size()) +
                            " labels and a path of " + std::to_string(c.path.size()) +
                            " elements; the shape needs " + std::to_string(v.shape.layers) +
                            " and " + std::to_string(path));
  }
  Fr leaf = gadgets::poseidon_hash(c.labels);
  if (gadgets::PoseidonTree::root_from_path(leaf, c.node, c.path) != v.comms.comm_c) {
    return invalid_argument(where + ": the column of node " + std::to_string(c.node) +
                            " does not open to comm_c (a label or the tree C path is wrong)");
  }
  return ok_status();
}

Status check_challenge(const VanillaProofs& v, const PartitionProof& part, uint32_t j,
                       const Graph& graph, const std::string& what) {
  const Shape& shape = v.shape;
  const ChallengeProof& p = part.challenges[j];
  const std::string where = what + ": partition " + std::to_string(part.partition) +
                            ", challenge " + std::to_string(j) + " (node " +
                            std::to_string(p.challenge) + ")";
  uint64_t expected =
      derive_challenge(v.replica_id, v.challenge_seed, part.partition, j, shape.nodes);
  if (p.challenge != expected) {
    return invalid_argument(where + ": the challenge is not the one derived for this partition (" +
                            std::to_string(expected) +
                            "): wrong partition index, challenge seed or replica id");
  }
  if (p.data_path.size() != gadgets::sha_path_length(shape.nodes) ||
      p.replica_path.size() != gadgets::poseidon_path_length(shape.nodes) ||
      p.parents.size() != shape.parents()) {
    return invalid_argument(where + ": wrong path or parent count for the shape");
  }
  if (gadgets::ShaTree::root_from_path(p.data, p.challenge, p.data_path) != v.comms.comm_d) {
    return invalid_argument(where + ": the data does not open to comm_d (tree D path or data)");
  }
  if (gadgets::PoseidonTree::root_from_path(p.replica, p.challenge, p.replica_path) !=
      v.comms.comm_r_last) {
    return invalid_argument(where +
                            ": the replica does not open to comm_r_last (tree R path or replica)");
  }
  if (p.column.node != p.challenge) {
    return invalid_argument(where + ": the column opened is node " + std::to_string(p.column.node) +
                            ", not the challenged node");
  }
  ZKP_RETURN_IF_ERROR(check_column(p.column, v, where));
  std::vector<uint64_t> parents(shape.parents());
  graph.parents(p.challenge, parents);
  for (uint32_t k = 0; k < shape.parents(); ++k) {
    std::string pw = where + ", parent " + std::to_string(k);
    if (p.parents[k].node != parents[k]) {
      return invalid_argument(pw + ": node " + std::to_string(p.parents[k].node) +
                              " is not the graph's parent " + std::to_string(parents[k]));
    }
    ZKP_RETURN_IF_ERROR(check_column(p.parents[k], v, pw));
  }
  for (uint32_t layer = 1; layer <= shape.layers; ++layer) {
    Fr label = compute_label(v.replica_id, layer, p.challenge, parent_labels(p, shape, layer));
    if (label != p.column.labels[layer - 1]) {
      return invalid_argument(where + ", layer " + std::to_string(layer) +
                              ": the label does not match the one computed from its parents");
    }
  }
  if (p.column.labels[shape.layers - 1] + p.data != p.replica) {
    return invalid_argument(where + ": the replica is not the last layer's label + data");
  }
  return ok_status();
}

}  // namespace

VanillaProofs make_vanilla_proofs(const SealedSector& s, const Seed& challenge_seed,
                                  std::span<const uint32_t> partitions, unsigned threads) {
  VanillaProofs v;
  v.shape = s.shape;
  v.challenge_seed = challenge_seed;
  v.replica_id = s.replica_id;
  v.comms = s.comms;
  Graph graph(s.shape);
  for (uint32_t k : partitions) {
    PartitionProof part;
    part.partition = k;
    part.challenges.resize(s.shape.challenges);
    crypto::parallel_for(s.shape.challenges, threads, [&](size_t j) {
      ChallengeProof& p = part.challenges[j];
      p.challenge = derive_challenge(s.replica_id, challenge_seed, k, j, s.shape.nodes);
      p.data = s.data[p.challenge];
      p.data_path = s.tree_d.path(p.challenge);
      p.replica = s.replica[p.challenge];
      p.replica_path = s.tree_r.path(p.challenge);
      p.column = open_column(s, p.challenge);
      std::vector<uint64_t> parents(s.shape.parents());
      graph.parents(p.challenge, parents);
      for (uint64_t q : parents) p.parents.push_back(open_column(s, q));
    });
    v.partitions.push_back(std::move(part));
  }
  return v;
}

Status check_vanilla(const VanillaProofs& v, const std::string& what, unsigned threads) {
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what));
  Fr pair[2] = {v.comms.comm_c, v.comms.comm_r_last};
  if (gadgets::poseidon_hash(pair) != v.comms.comm_r) {
    return invalid_argument(what + ": comm_r is not Poseidon(comm_c, comm_r_last)");
  }
  std::set<uint32_t> seen;
  for (const PartitionProof& part : v.partitions) {
    if (part.partition >= v.shape.partitions || !seen.insert(part.partition).second) {
      return invalid_argument(what + ": partition index " + std::to_string(part.partition) +
                              " is out of range or repeated (the shape has " +
                              std::to_string(v.shape.partitions) + " partitions)");
    }
    if (part.challenges.size() != v.shape.challenges) {
      return invalid_argument(what + ": partition " + std::to_string(part.partition) + " has " +
                              std::to_string(part.challenges.size()) +
                              " challenges; the shape needs " + std::to_string(v.shape.challenges));
    }
  }
  Graph graph(v.shape);
  // Check every challenge (in parallel); report the first failure in file order.
  std::vector<std::pair<size_t, uint32_t>> items;
  for (size_t k = 0; k < v.partitions.size(); ++k) {
    for (uint32_t j = 0; j < v.shape.challenges; ++j) items.emplace_back(k, j);
  }
  std::vector<Status> results(items.size());
  crypto::parallel_for(items.size(), threads, [&](size_t i) {
    results[i] = check_challenge(v, v.partitions[items[i].first], items[i].second, graph, what);
  });
  for (Status& s : results) ZKP_RETURN_IF_ERROR(s);
  return ok_status();
}

std::vector<Fr> public_inputs(const Shape& shape, const Fr& replica_id, const Commitments& comms,
                              const Seed& challenge_seed, uint32_t partition) {
  std::vector<Fr> out = {replica_id, comms.comm_d, comms.comm_r};
  Graph graph(shape);
  std::vector<uint64_t> parents(shape.parents());
  for (uint32_t j = 0; j < shape.challenges; ++j) {
    uint64_t c = derive_challenge(replica_id, challenge_seed, partition, j, shape.nodes);
    out.push_back(Fr::from_u64(c));
    graph.parents(c, parents);
    for (uint64_t q : parents) out.push_back(Fr::from_u64(q));
  }
  return out;
}

}  // namespace zkpipe::porep
