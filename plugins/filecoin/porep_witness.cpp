// Filecoin's PoRep vanilla proofs checked natively and turned into the circuit's witness, and
// sample C1 outputs over sectors sealed here (zkpipe/filecoin_circuit/vanilla_porep.h).
#include <bit>
#include <random>

#include "zkpipe/filecoin/commd.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/sdr.h"
#include "zkpipe/filecoin_circuit/tree.h"
#include "zkpipe/filecoin_circuit/vanilla_porep.h"

namespace zkpipe::filecoin_circuit {
namespace {

constexpr uint32_t kLabelParents = 37;  // DRG 6 + expander 8, repeated to 37

Fr fr(const Domain& d) {
  return *filecoin::fr_from_domain(d);
}

// The opening of an inclusion proof after checking its shape, the leaf it opens and its root.
Result<MerkleOpening> checked_opening(const InclusionProof& p, TreeHasher hasher,
                                      TreeArities arities, uint64_t nodes, uint64_t index,
                                      const Fr& root, const std::string& at) {
  const MerkleOpening blank = blank_opening(nodes, arities, hasher);
  MerkleOpening o;
  o.hasher = hasher;
  o.leaf = fr(p.leaf);
  for (const auto& path : p.paths) o.path.insert(o.path.end(), path.begin(), path.end());
  bool shaped = o.path.size() == blank.path.size() &&
                p.paths.size() == size_t{1} + (arities.sub != 0) + (arities.top != 0);
  for (size_t l = 0; shaped && l < o.path.size(); ++l) {
    shaped = o.path[l].siblings.size() == blank.path[l].siblings.size() &&
             o.path[l].position <= o.path[l].siblings.size();
  }
  if (!shaped) return invalid_argument(at + ": the Merkle path does not have the tree's shape");
  const uint64_t opened = opened_leaf(p, arities);
  if (opened != index) {
    return invalid_argument(at + ": the path opens leaf " + std::to_string(opened) + ", not " +
                            std::to_string(index));
  }
  if (opening_root(o) != root || fr(p.root) != root) {
    return invalid_argument(at + ": the Merkle path does not lead to the root");
  }
  return o;
}

}  // namespace

Result<PorepWitness> porep_witness(const Commit1Output& c, uint32_t partition,
                                   const std::string& what) {
  filecoin::PorepDescription d;
  d.config = c.config;
  d.comm_r = c.comm_r;
  d.comm_d = c.comm_d;
  d.seed = c.seed;
  // the verifier's checks of the description (features, commitments, replica_id)
  ZKP_RETURN_IF_ERROR(filecoin::porep_inputs_for_replica(d, c.replica_id).status());
  ZKP_ASSIGN_OR_RETURN(filecoin::SectorShape shape, filecoin::sector_shape(c.config.sector_size));
  if (c.vanilla_proofs.size() != c.config.partitions) {
    return invalid_argument(what + ": " + std::to_string(c.vanilla_proofs.size()) +
                            " partitions of vanilla proofs; " + c.registered_proof + " has " +
                            std::to_string(c.config.partitions));
  }
  if (partition >= c.config.partitions) {
    return invalid_argument(what + ": partition " + std::to_string(partition) + " of " +
                            std::to_string(c.config.partitions));
  }
  const uint32_t per = (shape.min_challenges + c.config.partitions - 1) / c.config.partitions;
  const std::vector<uint64_t> challenges =
      filecoin::interactive_challenges(c.replica_id, c.seed, shape.nodes, per, partition);
  const std::vector<SealVanillaProof>& proofs = c.vanilla_proofs[partition];
  const std::string where = what + " partition " + std::to_string(partition);
  if (proofs.size() != per) {
    return invalid_argument(where + ": " + std::to_string(proofs.size()) +
                            " challenge proofs; the partition has " + std::to_string(per));
  }
  const TreeArities arities{shape.base_arity, shape.sub_arity, shape.top_arity};
  const TreeArities binary{2, 0, 0};
  const filecoin::SdrGraph graph(shape.nodes, c.config.porep_id, c.config.api_version);

  PorepWitness w;
  w.replica_id = fr(c.replica_id);
  w.comm_d = fr(c.comm_d);
  w.comm_r = fr(c.comm_r);
  if (proofs.empty()) return invalid_argument(where + ": no challenge proofs");
  w.comm_r_last = fr(proofs[0].comm_r_last.root);
  w.comm_c = fr(proofs[0].c_x.inclusion.root);
  const Fr pair[2] = {w.comm_c, w.comm_r_last};
  if (filecoin::poseidon_merkle(pair) != w.comm_r) {
    return invalid_argument(where + ": Poseidon(comm_c, comm_r_last) of the proofs is not comm_r");
  }

  for (size_t i = 0; i < proofs.size(); ++i) {
    const SealVanillaProof& p = proofs[i];
    const uint64_t node = challenges[i];
    const std::string at =
        where + " challenge " + std::to_string(i) + " (node " + std::to_string(node) + ")";
    PorepChallengeWitness cw;
    cw.challenge = node;
    cw.data_leaf = fr(p.comm_d.leaf);
    ZKP_ASSIGN_OR_RETURN(cw.comm_d_path,
                         checked_opening(p.comm_d, TreeHasher::kSha256, binary, shape.nodes, node,
                                         w.comm_d, at + " comm_d_proofs"));
    ZKP_ASSIGN_OR_RETURN(cw.comm_r_last_path,
                         checked_opening(p.comm_r_last, TreeHasher::kPoseidon, arities, shape.nodes,
                                         node, w.comm_r_last, at + " comm_r_last_proof"));

    const auto column = [&](const ColumnProof& col, uint64_t index,
                            const std::string& col_at) -> Result<ColumnOpening> {
      if (col.index != index) {
        return invalid_argument(col_at + ": the column of node " + std::to_string(col.index) +
                                ", not of node " + std::to_string(index));
      }
      if (col.rows.size() != shape.layers) {
        return invalid_argument(col_at + ": " + std::to_string(col.rows.size()) +
                                " labels; the sector has " + std::to_string(shape.layers) +
                                " layers");
      }
      ColumnOpening o;
      for (const Domain& r : col.rows) o.rows.push_back(fr(r));
      if (filecoin::poseidon_merkle(o.rows) != fr(col.inclusion.leaf)) {
        return invalid_argument(col_at + ": the column's hash is not the leaf it opens");
      }
      ZKP_ASSIGN_OR_RETURN(o.path, checked_opening(col.inclusion, TreeHasher::kPoseidon, arities,
                                                   shape.nodes, index, w.comm_c, col_at));
      return o;
    };
    ZKP_ASSIGN_OR_RETURN(ColumnOpening c_x, column(p.c_x, node, at + " c_x"));
    cw.comm_c_path = c_x.path;
    const std::array<uint32_t, filecoin::kParents> parents = graph.parents(node);
    if (p.drg_parents.size() != filecoin::kDrgDegree ||
        p.exp_parents.size() != filecoin::kExpanderDegree) {
      return invalid_argument(at + ": 6 DRG and 8 expander parents' columns needed");
    }
    for (uint32_t k = 0; k < filecoin::kParents; ++k) {
      const bool drg = k < filecoin::kDrgDegree;
      const ColumnProof& col = drg ? p.drg_parents[k] : p.exp_parents[k - filecoin::kDrgDegree];
      const std::string col_at =
          at +
          (drg ? " drg_parents[" + std::to_string(k)
               : " exp_parents[" + std::to_string(k - filecoin::kDrgDegree)) +
          "]";
      ZKP_ASSIGN_OR_RETURN(ColumnOpening o, column(col, parents[k], col_at));
      (drg ? cw.drg_parents : cw.exp_parents).push_back(std::move(o));
    }

    // every layer's label from the parents' columns, as the labeling proofs state them
    if (p.labeling.size() != shape.layers) {
      return invalid_argument(at + ": " + std::to_string(p.labeling.size()) +
                              " labeling proofs; the sector has " + std::to_string(shape.layers) +
                              " layers");
    }
    for (uint32_t layer = 1; layer <= shape.layers; ++layer) {
      const LabelingProof& l = p.labeling[layer - 1];
      const std::string l_at = at + " labeling_proofs[" + std::to_string(layer - 1) + "]";
      std::vector<Domain> base;
      for (const ColumnProof& col : p.drg_parents) base.push_back(col.rows[layer - 1]);
      if (layer > 1) {
        for (const ColumnProof& col : p.exp_parents) base.push_back(col.rows[layer - 2]);
      }
      std::vector<Domain> expected;
      for (uint32_t k = 0; k < kLabelParents; ++k) expected.push_back(base[k % base.size()]);
      if (l.layer_index != layer || l.node != node) {
        return invalid_argument(l_at + ": labels layer " + std::to_string(l.layer_index) +
                                " node " + std::to_string(l.node));
      }
      if (l.parents != expected) {
        return invalid_argument(l_at + ": its parents are not the parents' columns' labels");
      }
      if (filecoin::sdr_label(c.replica_id, layer, node, l.parents) != p.c_x.rows[layer - 1]) {
        return invalid_argument(l_at + ": the label of layer " + std::to_string(layer) +
                                " is not SHA-256 of its parents");
      }
    }
    const LabelingProof& e = p.encoding;
    if (e.layer_index != shape.layers || e.node != node || e.parents != p.labeling.back().parents) {
      return invalid_argument(at + " encoding_proof: not the last layer's labeling of the node");
    }
    if (fr(p.c_x.rows.back()) + cw.data_leaf != fr(p.comm_r_last.leaf)) {
      return invalid_argument(at + ": the replica node is not the last label + the data");
    }
    w.challenges.push_back(std::move(cw));
  }
  return w;
}

Result<SampleCommit1> sample_commit1_output(const std::string& registered_proof, uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(filecoin::PorepConfig config, filecoin::registered_porep(registered_proof));
  if (config.sector_size > (uint64_t{8} << 20)) {
    return invalid_argument(registered_proof +
                            ": sealing a sector over 8MiB here takes too long; give the C1 "
                            "output of a sector sealed by your sealer");
  }
  ZKP_ASSIGN_OR_RETURN(filecoin::SectorShape shape, filecoin::sector_shape(config.sector_size));
  std::mt19937_64 rng(seed);
  SampleCommit1 s;
  s.sector_id = 1000 + seed % 1000;
  for (uint8_t& b : s.prover_id) b = static_cast<uint8_t>(rng());
  Commit1Output& c = s.c1;
  c.registered_proof = registered_proof;
  c.config = config;
  for (uint8_t& b : c.ticket) b = static_cast<uint8_t>(rng());
  for (uint8_t& b : c.seed) b = static_cast<uint8_t>(rng());

  std::vector<uint8_t> data(config.sector_size);
  std::vector<Fr> data_fr(shape.nodes);
  for (uint64_t v = 0; v < shape.nodes; ++v) {
    for (size_t i = 0; i < 32; ++i) data[32 * v + i] = static_cast<uint8_t>(rng());
    data[32 * v + 31] &= 0x3f;
    Domain node;
    std::copy_n(&data[32 * v], 32, node.begin());
    data_fr[v] = fr(node);
  }
  ZKP_ASSIGN_OR_RETURN(c.comm_d, filecoin::comm_d_padded(data));
  c.replica_id =
      filecoin::replica_id(s.prover_id, s.sector_id, c.ticket, c.comm_d, config.porep_id);
  const filecoin::SdrGraph graph(shape.nodes, config.porep_id, config.api_version);
  const std::vector<std::vector<Domain>> labels =
      filecoin::sdr_labels(graph, c.replica_id, shape.layers);
  std::vector<Fr> replica(shape.nodes), column_hashes(shape.nodes);
  for (uint64_t v = 0; v < shape.nodes; ++v) {
    replica[v] = data_fr[v] + fr(labels.back()[v]);
    std::vector<Fr> column;
    for (uint32_t l = 0; l < shape.layers; ++l) column.push_back(fr(labels[l][v]));
    column_hashes[v] = filecoin::poseidon_merkle(column);
  }
  const TreeArities arities{shape.base_arity, shape.sub_arity, shape.top_arity};
  const FilecoinTree tree_d(data_fr, {2, 0, 0}, TreeHasher::kSha256);
  const FilecoinTree tree_c(std::move(column_hashes), arities);
  const FilecoinTree tree_r(std::move(replica), arities);
  const Fr pair[2] = {tree_c.root(), tree_r.root()};
  c.comm_r = filecoin::domain_from_fr(filecoin::poseidon_merkle(pair));

  const auto column_proof = [&](uint64_t v) {
    ColumnProof col;
    col.index = static_cast<uint32_t>(v);
    for (uint32_t l = 0; l < shape.layers; ++l) col.rows.push_back(labels[l][v]);
    col.inclusion = tree_c.open(v);
    return col;
  };
  const uint32_t per = (shape.min_challenges + config.partitions - 1) / config.partitions;
  for (uint32_t k = 0; k < config.partitions; ++k) {
    std::vector<SealVanillaProof> proofs;
    for (uint64_t node :
         filecoin::interactive_challenges(c.replica_id, c.seed, shape.nodes, per, k)) {
      SealVanillaProof p;
      p.comm_d = tree_d.open(node);
      p.comm_r_last = tree_r.open(node);
      p.c_x = column_proof(node);
      const std::array<uint32_t, filecoin::kParents> parents = graph.parents(node);
      for (uint32_t j = 0; j < filecoin::kParents; ++j) {
        (j < filecoin::kDrgDegree ? p.drg_parents : p.exp_parents)
            .push_back(column_proof(parents[j]));
      }
      for (uint32_t layer = 1; layer <= shape.layers; ++layer) {
        std::vector<Domain> base;
        for (uint32_t j = 0; j < filecoin::kDrgDegree; ++j)
          base.push_back(labels[layer - 1][parents[j]]);
        if (layer > 1) {
          for (uint32_t j = filecoin::kDrgDegree; j < filecoin::kParents; ++j) {
            base.push_back(labels[layer - 2][parents[j]]);
          }
        }
        LabelingProof l;
        l.layer_index = layer;
        l.node = node;
        for (uint32_t j = 0; j < kLabelParents; ++j) l.parents.push_back(base[j % base.size()]);
        p.labeling.push_back(std::move(l));
      }
      p.encoding = p.labeling.back();
      proofs.push_back(std::move(p));
    }
    c.vanilla_proofs.push_back(std::move(proofs));
  }
  return s;
}

}  // namespace zkpipe::filecoin_circuit
