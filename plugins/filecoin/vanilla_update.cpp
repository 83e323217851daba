// Filecoin's SnapDeals vanilla partition proofs: bytes, native check, witness, request, samples
// (zkpipe/filecoin_circuit/vanilla_update.h).
#include "zkpipe/filecoin_circuit/vanilla_update.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <random>

#include "bincode.h"
#include "text_bytes.h"
#include "zkpipe/filecoin/commd.h"
#include "zkpipe/filecoin/description.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/sdr.h"
#include "zkpipe/filecoin_circuit/tree.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

using nlohmann::json;

Fr fr(const Domain& d) {
  return *filecoin::fr_from_domain(d);
}

// The siblings of every level (base, sub, top in order), after checking the proof's shape, the
// leaf it opens and its root.
Result<std::vector<std::vector<Fr>>> checked_path(const InclusionProof& p, TreeHasher hasher,
                                                  TreeArities arities, uint64_t nodes,
                                                  uint64_t index, const std::string& at) {
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
  if (opening_root(o) != fr(p.root)) {
    return invalid_argument(at + ": the Merkle path does not lead to the root it states");
  }
  std::vector<std::vector<Fr>> out;
  for (const PathElement& e : o.path) out.push_back(e.siblings);
  return out;
}

}  // namespace

Result<UpdatePartitionProof> decode_update_proof(std::span<const uint8_t> bytes,
                                                 const std::string& what, bool poseidon) {
  bincode::Reader r(bytes, what);
  UpdatePartitionProof p;
  ZKP_ASSIGN_OR_RETURN(p.comm_c, r.domain("comm_c"));
  uint64_t leaves = 0;
  if (!poseidon) {
    ZKP_ASSIGN_OR_RETURN(leaves, r.count("apex_leafs.len"));
  }
  for (uint64_t i = 0; i < leaves; ++i) {
    ZKP_ASSIGN_OR_RETURN(Domain d, r.domain("apex_leafs[" + std::to_string(i) + "]"));
    p.apex_leafs.push_back(d);
  }
  ZKP_ASSIGN_OR_RETURN(uint64_t n, r.count("challenge_proofs.len"));
  for (uint64_t i = 0; i < n; ++i) {
    const std::string f = "challenge_proofs[" + std::to_string(i) + "]";
    UpdateChallengeProof c;
    ZKP_ASSIGN_OR_RETURN(c.r_old, bincode::read_inclusion_proof(r, f + ".proof_r_old"));
    ZKP_ASSIGN_OR_RETURN(c.d_new, bincode::read_inclusion_proof(r, f + ".proof_d_new"));
    ZKP_ASSIGN_OR_RETURN(c.r_new, bincode::read_inclusion_proof(r, f + ".proof_r_new"));
    p.challenges.push_back(std::move(c));
  }
  ZKP_RETURN_IF_ERROR(r.done());
  return p;
}

std::vector<uint8_t> encode_update_proof(const UpdatePartitionProof& p, bool poseidon) {
  std::vector<uint8_t> out;
  bincode::put(out, p.comm_c);
  if (!poseidon) {
    bincode::put(out, p.apex_leafs.size(), 8);
    for (const Domain& d : p.apex_leafs) bincode::put(out, d);
  }
  bincode::put(out, p.challenges.size(), 8);
  for (const UpdateChallengeProof& c : p.challenges) {
    bincode::put_inclusion_proof(out, c.r_old);
    bincode::put_inclusion_proof(out, c.d_new);
    bincode::put_inclusion_proof(out, c.r_new);
  }
  return out;
}

Result<UpdateWitness> update_witness(const filecoin::UpdateDescription& d,
                                     const UpdatePartitionProof& p, uint32_t partition,
                                     const std::string& what) {
  const uint64_t nodes = d.sector_size / 32;
  UpdateShape s;
  try {
    s = update_shape(nodes);
  } catch (const std::invalid_argument& e) {
    return invalid_argument(what + ": " + e.what());
  }
  const std::string where = what + " partition " + std::to_string(partition);
  if (partition >= s.partition_count) {
    return invalid_argument(where + ": the sector has " + std::to_string(s.partition_count) +
                            " partitions");
  }
  UpdateWitness w;
  w.comm_r_old = fr(d.comm_r_old);
  w.comm_d_new = fr(d.comm_d_new);
  w.comm_r_new = fr(d.comm_r_new);
  w.comm_c = fr(p.comm_c);
  const uint32_t h = s.hs[3];
  w.k_and_h_select = update_k_and_h_select(s, partition, h);
  if (p.apex_leafs.size() != s.apex_leaf_count || p.challenges.size() != s.challenge_count) {
    return invalid_argument(
        where + ": " + std::to_string(p.apex_leafs.size()) + " apex leaves and " +
        std::to_string(p.challenges.size()) + " challenge proofs; the sector has " +
        std::to_string(s.apex_leaf_count) + " and " + std::to_string(s.challenge_count));
  }
  for (const Domain& a : p.apex_leafs) w.apex_leafs.push_back(fr(a));
  w.root_r_old = fr(p.challenges[0].r_old.root);
  w.root_r_new = fr(p.challenges[0].r_new.root);
  const Fr old_pair[2] = {w.comm_c, w.root_r_old}, new_pair[2] = {w.comm_c, w.root_r_new};
  if (filecoin::poseidon_merkle(old_pair) != w.comm_r_old) {
    return invalid_argument(where + ": Poseidon(comm_c, root_r_old) is not comm_r_old");
  }
  if (filecoin::poseidon_merkle(new_pair) != w.comm_r_new) {
    return invalid_argument(where + ": Poseidon(comm_c, root_r_new) is not comm_r_new");
  }
  // the apex leaves' tree: its root is the partition's node of tree_d
  std::vector<Fr> row = w.apex_leafs;
  while (row.size() > 1) {
    std::vector<Fr> up;
    for (size_t i = 0; i < row.size(); i += 2) {
      const Fr pair[2] = {row[i], row[i + 1]};
      up.push_back(tree_hash(TreeHasher::kSha256, pair));
    }
    row = std::move(up);
  }
  const Fr phi = update_phi(w.comm_d_new, w.comm_r_old);
  const std::vector<uint32_t> challenges = update_challenges(s, w.comm_r_new, partition);
  const TreeArities binary{2, 0, 0};
  const uint32_t to_apex = s.challenge_bit_len - s.partition_bit_len - s.apex_leaf_bit_len;
  for (size_t i = 0; i < challenges.size(); ++i) {
    const UpdateChallengeProof& c = p.challenges[i];
    const uint32_t node = challenges[i];
    const std::string at =
        where + " challenge " + std::to_string(i) + " (node " + std::to_string(node) + ")";
    UpdateChallengeWitness cw;
    cw.leaf_r_old = fr(c.r_old.leaf);
    cw.leaf_d_new = fr(c.d_new.leaf);
    cw.leaf_r_new = fr(c.r_new.leaf);
    if (fr(c.r_old.root) != w.root_r_old || fr(c.r_new.root) != w.root_r_new ||
        fr(c.d_new.root) != w.comm_d_new) {
      return invalid_argument(at + ": a proof states another root than the partition's");
    }
    ZKP_ASSIGN_OR_RETURN(cw.path_r_old, checked_path(c.r_old, TreeHasher::kPoseidon, s.tree_r,
                                                     nodes, node, at + " proof_r_old"));
    ZKP_ASSIGN_OR_RETURN(cw.path_r_new, checked_path(c.r_new, TreeHasher::kPoseidon, s.tree_r,
                                                     nodes, node, at + " proof_r_new"));
    ZKP_ASSIGN_OR_RETURN(
        std::vector<std::vector<Fr>> d_path,
        checked_path(c.d_new, TreeHasher::kSha256, binary, nodes, node, at + " proof_d_new"));
    for (const std::vector<Fr>& level : d_path) cw.path_d_new.push_back(level.at(0));
    // the node's ancestor at the apex level is the apex leaf the partition states, and the
    // apex leaves' root is its ancestor at the partition's level
    Fr cur = cw.leaf_d_new;
    for (uint32_t l = 0; l < to_apex + s.apex_leaf_bit_len; ++l) {
      if (l == to_apex) {
        const uint32_t apex_index = (node >> to_apex) & (s.apex_leaf_count - 1);
        if (cur != w.apex_leafs[apex_index]) {
          return invalid_argument(at + ": proof_d_new does not pass through apex leaf " +
                                  std::to_string(apex_index));
        }
      }
      const bool right = (node >> l) & 1;
      const Fr pair[2] = {right ? cw.path_d_new[l] : cur, right ? cur : cw.path_d_new[l]};
      cur = tree_hash(TreeHasher::kSha256, pair);
    }
    if (cur != row[0]) {
      return invalid_argument(at + ": the apex leaves do not hash to the partition's node");
    }
    for (uint32_t l = to_apex + s.apex_leaf_bit_len; i > 0 && l < s.challenge_bit_len; ++l) {
      if (cw.path_d_new[l] != w.challenges[0].path_d_new[l]) {
        return invalid_argument(at + ": proof_d_new leaves the partition's path to comm_d_new");
      }
    }
    if (cw.leaf_r_new != cw.leaf_r_old + cw.leaf_d_new * update_rho(s, phi, h, node)) {
      return invalid_argument(at + ": label_r_new is not label_r_old + label_d_new * rho");
    }
    w.challenges.push_back(std::move(cw));
  }
  return w;
}

Result<UpdatePoseidonWitness> update_poseidon_witness(const filecoin::UpdateDescription& d,
                                                      const UpdatePartitionProof& p,
                                                      const std::string& what) {
  const uint64_t nodes = d.sector_size / 32;
  UpdateShape s;
  try {
    s = update_poseidon_shape(nodes);
  } catch (const std::invalid_argument& e) {
    return invalid_argument(what + ": " + e.what());
  }
  if (!p.apex_leafs.empty() || p.challenges.size() != s.challenge_count) {
    return invalid_argument(what + ": " + std::to_string(p.challenges.size()) +
                            " challenge proofs; the sector has " +
                            std::to_string(s.challenge_count));
  }
  UpdatePoseidonWitness w;
  const uint32_t h = s.hs[3];
  w.h_select = update_k_and_h_select(s, 0, h);
  w.comm_r_old = fr(d.comm_r_old);
  w.comm_d_new = fr(d.comm_d_new);
  w.comm_r_new = fr(d.comm_r_new);
  w.comm_c = fr(p.comm_c);
  w.root_r_old = fr(p.challenges[0].r_old.root);
  w.root_r_new = fr(p.challenges[0].r_new.root);
  const Fr old_pair[2] = {w.comm_c, w.root_r_old}, new_pair[2] = {w.comm_c, w.root_r_new};
  if (filecoin::poseidon_merkle(old_pair) != w.comm_r_old) {
    return invalid_argument(what + ": Poseidon(comm_c, root_r_old) is not comm_r_old");
  }
  if (filecoin::poseidon_merkle(new_pair) != w.comm_r_new) {
    return invalid_argument(what + ": Poseidon(comm_c, root_r_new) is not comm_r_new");
  }
  const Fr phi = update_phi(w.comm_d_new, w.comm_r_old);
  const std::vector<uint32_t> challenges = update_challenges(s, w.comm_r_new, 0);
  for (size_t i = 0; i < challenges.size(); ++i) {
    const UpdateChallengeProof& c = p.challenges[i];
    const uint32_t node = challenges[i];
    const std::string at =
        what + " challenge " + std::to_string(i) + " (node " + std::to_string(node) + ")";
    if (fr(c.r_old.root) != w.root_r_old || fr(c.r_new.root) != w.root_r_new ||
        fr(c.d_new.root) != w.comm_d_new) {
      return invalid_argument(at + ": a proof states another root than the sector's");
    }
    UpdatePoseidonChallenge cw;
    cw.leaf_r_old = fr(c.r_old.leaf);
    cw.leaf_d_new = fr(c.d_new.leaf);
    cw.leaf_r_new = fr(c.r_new.leaf);
    ZKP_ASSIGN_OR_RETURN(cw.path_r_old, checked_path(c.r_old, TreeHasher::kPoseidon, s.tree_r,
                                                     nodes, node, at + " proof_r_old"));
    ZKP_ASSIGN_OR_RETURN(cw.path_d_new, checked_path(c.d_new, TreeHasher::kPoseidon, s.tree_r,
                                                     nodes, node, at + " proof_d_new"));
    ZKP_ASSIGN_OR_RETURN(cw.path_r_new, checked_path(c.r_new, TreeHasher::kPoseidon, s.tree_r,
                                                     nodes, node, at + " proof_r_new"));
    if (cw.leaf_r_new != cw.leaf_r_old + cw.leaf_d_new * update_rho(s, phi, h, node)) {
      return invalid_argument(at + ": label_r_new is not label_r_old + label_d_new * rho");
    }
    w.challenges.push_back(std::move(cw));
  }
  return w;
}

Result<UpdateRequest> parse_update_request(std::span<const uint8_t> bytes,
                                           const std::string& what) {
  const json j = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid_argument(what + ": not a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "registered_proof" && key != "variant" && key != "comm_r_old" &&
        key != "comm_d_new" && key != "comm_r_new" && key != "vanilla_proofs") {
      return invalid_argument(what + ": unknown key \"" + key +
                              "\" (known: registered_proof, variant, comm_r_old, comm_d_new, "
                              "comm_r_new, vanilla_proofs)");
    }
  }
  if (!j.contains("vanilla_proofs") || !j["vanilla_proofs"].is_array()) {
    return invalid_argument(what + ": vanilla_proofs: missing or not an array");
  }
  json desc = j;
  desc.erase("vanilla_proofs");
  UpdateRequest r;
  ZKP_ASSIGN_OR_RETURN(r.description, filecoin::parse_update_description(desc.dump(), what));
  r.registered_proof = desc["registered_proof"].get<std::string>();
  ZKP_ASSIGN_OR_RETURN(r.inputs, filecoin::update_public_inputs(r.description));
  if (j["vanilla_proofs"].size() != r.inputs.size()) {
    return invalid_argument(what + ": " + std::to_string(j["vanilla_proofs"].size()) +
                            " vanilla proofs; the sector has " + std::to_string(r.inputs.size()) +
                            " partitions");
  }
  for (size_t k = 0; k < r.inputs.size(); ++k) {
    const std::string field = what + ": vanilla_proofs[" + std::to_string(k) + "]";
    ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> b, text_bytes(j["vanilla_proofs"][k], field, false));
    const bool poseidon = r.description.poseidon;
    ZKP_ASSIGN_OR_RETURN(UpdatePartitionProof p, decode_update_proof(b, field, poseidon));
    if (poseidon) {
      ZKP_ASSIGN_OR_RETURN(UpdatePoseidonWitness w,
                           update_poseidon_witness(r.description, p, what + " (Poseidon variant)"));
      r.poseidon_witnesses.push_back(std::move(w));
    } else {
      ZKP_ASSIGN_OR_RETURN(UpdateWitness w,
                           update_witness(r.description, p, static_cast<uint32_t>(k), what));
      r.witnesses.push_back(std::move(w));
    }
    r.proofs.push_back(std::move(p));
  }
  return r;
}

std::string encode_update_request(const UpdateRequest& r) {
  json j = {{"registered_proof", r.registered_proof},
            {"comm_r_old", zkpipe::to_hex(r.description.comm_r_old)},
            {"comm_d_new", zkpipe::to_hex(r.description.comm_d_new)},
            {"comm_r_new", zkpipe::to_hex(r.description.comm_r_new)},
            {"vanilla_proofs", json::array()}};
  if (r.description.poseidon) j["variant"] = "poseidon";
  for (const UpdatePartitionProof& p : r.proofs) {
    j["vanilla_proofs"].push_back(zkpipe::to_hex(encode_update_proof(p, r.description.poseidon)));
  }
  return j.dump();
}

Result<UpdateRequest> sample_update_request(const std::string& registered_proof, uint64_t seed,
                                            bool poseidon) {
  ZKP_ASSIGN_OR_RETURN(uint64_t sector_size, filecoin::registered_update(registered_proof));
  if (sector_size > (uint64_t{8} << 20)) {
    return invalid_argument(registered_proof +
                            ": sealing and updating a sector over 8MiB here takes too long; give "
                            "the vanilla proofs of your sector's update");
  }
  // A CC sector (zero data) sealed with SDR under the matching V1_1 seal proof.
  std::string seal_name;
  for (const filecoin::SectorSizeName& n : filecoin::kSectorSizes) {
    if (n.bytes == sector_size) seal_name = std::string("StackedDrg") + n.name + "V1_1";
  }
  ZKP_ASSIGN_OR_RETURN(filecoin::PorepConfig porep, filecoin::registered_porep(seal_name));
  ZKP_ASSIGN_OR_RETURN(filecoin::SectorShape shape, filecoin::sector_shape(sector_size));
  const std::vector<uint8_t> zeros(sector_size, 0);
  ZKP_ASSIGN_OR_RETURN(Domain comm_d_old, filecoin::comm_d_padded(zeros));
  std::mt19937_64 rng(seed);
  filecoin::Bytes32 prover{}, ticket{};
  for (uint8_t& b : prover) b = static_cast<uint8_t>(rng());
  for (uint8_t& b : ticket) b = static_cast<uint8_t>(rng());
  const Domain rid = filecoin::replica_id(prover, seed, ticket, comm_d_old, porep.porep_id);
  ZKP_ASSIGN_OR_RETURN(filecoin::SealedSector sealed,
                       filecoin::seal_sector(zeros, shape, porep, rid));

  const uint64_t nodes = shape.nodes;
  const UpdateShape s = poseidon ? update_poseidon_shape(nodes) : update_shape(nodes);
  std::vector<Fr> r_old(nodes), d_new(nodes), r_new(nodes);
  for (uint64_t v = 0; v < nodes; ++v) {
    r_old[v] = fr(sealed.replica[v]);
    Domain x;
    for (uint8_t& b : x) b = static_cast<uint8_t>(rng());
    x[31] &= 0x3f;
    d_new[v] = fr(x);
  }
  const FilecoinTree tree_r_old(r_old, s.tree_r);
  const FilecoinTree tree_d = poseidon ? FilecoinTree(d_new, s.tree_r)
                                       : FilecoinTree(d_new, {2, 0, 0}, TreeHasher::kSha256);
  const Fr comm_c = fr(sealed.comm_c);
  const Fr comm_r_old = fr(sealed.comm_r);
  const Fr phi = update_phi(tree_d.root(), comm_r_old);
  for (uint64_t v = 0; v < nodes; ++v)
    r_new[v] = r_old[v] + d_new[v] * update_rho(s, phi, s.hs[3], v);
  const FilecoinTree tree_r_new(r_new, s.tree_r);
  const Fr pair[2] = {comm_c, tree_r_new.root()};
  const Fr comm_r_new = filecoin::poseidon_merkle(pair);

  UpdateRequest r;
  r.registered_proof = registered_proof;
  r.description.sector_size = sector_size;
  r.description.comm_r_old = sealed.comm_r;
  r.description.comm_d_new = filecoin::domain_from_fr(tree_d.root());
  r.description.comm_r_new = filecoin::domain_from_fr(comm_r_new);
  r.description.poseidon = poseidon;
  if (poseidon) {
    UpdatePartitionProof p;
    p.comm_c = sealed.comm_c;
    for (uint32_t node : update_challenges(s, comm_r_new, 0)) {
      p.challenges.push_back({tree_r_old.open(node), tree_d.open(node), tree_r_new.open(node)});
    }
    r.proofs.push_back(std::move(p));
    const std::string text = encode_update_request(r);
    return parse_update_request(zkpipe::as_bytes(text), "sample " + registered_proof);
  }
  // the apex leaves: tree_d's nodes that many levels under the partitions' nodes
  const uint32_t apex_level = s.challenge_bit_len - s.partition_bit_len - s.apex_leaf_bit_len;
  std::vector<Fr> apex_row = d_new;
  for (uint32_t l = 0; l < apex_level; ++l) {
    std::vector<Fr> up;
    for (size_t i = 0; i < apex_row.size(); i += 2) {
      const Fr two[2] = {apex_row[i], apex_row[i + 1]};
      up.push_back(tree_hash(TreeHasher::kSha256, two));
    }
    apex_row = std::move(up);
  }
  for (uint32_t k = 0; k < s.partition_count; ++k) {
    UpdatePartitionProof p;
    p.comm_c = sealed.comm_c;
    for (uint32_t i = 0; i < s.apex_leaf_count; ++i) {
      p.apex_leafs.push_back(filecoin::domain_from_fr(apex_row[k * s.apex_leaf_count + i]));
    }
    for (uint32_t node : update_challenges(s, comm_r_new, k)) {
      p.challenges.push_back({tree_r_old.open(node), tree_d.open(node), tree_r_new.open(node)});
    }
    r.proofs.push_back(std::move(p));
  }
  // through the parser, so a sample is exactly what a request of these bytes gives
  const std::string text = encode_update_request(r);
  return parse_update_request(zkpipe::as_bytes(text), "sample " + registered_proof);
}

}  // namespace zkpipe::filecoin_circuit
