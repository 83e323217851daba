// SnapDeals vanilla proofs: generation, native check, public inputs
// (zkpipe/snapdeals/vanilla.h).
#include "zkpipe/snapdeals/vanilla.h"

#include <set>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::snapdeals {
namespace {

Status check_challenge(const VanillaProofs& v, const PartitionProof& part, uint32_t j,
                       const Fr& phi_value, const std::string& what) {
  const Shape& shape = v.shape;
  const ChallengeProof& p = part.challenges[j];
  const std::string where = what + ": partition " + std::to_string(part.partition) +
                            ", challenge " + std::to_string(j) + " (node " +
                            std::to_string(p.challenge) + ")";
  const uint64_t expected = derive_challenge(v.comms.comm_r_new, part.partition, j, shape.nodes);
  if (p.challenge != expected) {
    return invalid_argument(where + ": the challenge is not the one derived for this partition (" +
                            std::to_string(expected) + "): wrong partition index or comm_r_new");
  }
  const size_t path = gadgets::poseidon_path_length(shape.nodes);
  if (p.data_path.size() != shape.depth() || p.old_path.size() != path ||
      p.new_path.size() != path) {
    return invalid_argument(where + ": wrong path lengths for the shape");
  }
  if (gadgets::ShaTree::root_from_path(p.data, p.challenge, p.data_path) != v.comms.comm_d_new) {
    return invalid_argument(where + ": the data does not open to comm_d_new (tree D path or data)");
  }
  if (gadgets::PoseidonTree::root_from_path(p.old_replica, p.challenge, p.old_path) !=
      v.comms.comm_r_last_old) {
    return invalid_argument(where + ": the sector key does not open to comm_r_last_old");
  }
  if (gadgets::PoseidonTree::root_from_path(p.new_replica, p.challenge, p.new_path) !=
      v.comms.comm_r_last_new) {
    return invalid_argument(where + ": the new replica does not open to comm_r_last_new");
  }
  if (p.old_replica + p.data * rho(phi_value, p.challenge, shape) != p.new_replica) {
    return invalid_argument(where + ": the new replica is not sector key + data * rho");
  }
  return ok_status();
}

}  // namespace

VanillaProofs make_vanilla_proofs(const UpdatedSector& u, std::span<const uint32_t> partitions,
                                  unsigned threads) {
  VanillaProofs v;
  v.shape = u.shape;
  v.comms = u.comms;
  for (uint32_t k : partitions) {
    PartitionProof part;
    part.partition = k;
    part.challenges.resize(u.shape.challenges);
    crypto::parallel_for(u.shape.challenges, threads, [&](size_t j) {
      ChallengeProof& p = part.challenges[j];
      p.challenge = derive_challenge(u.comms.comm_r_new, k, j, u.shape.nodes);
      p.data = u.data[p.challenge];
      p.data_path = u.tree_d.path(p.challenge);
      p.old_replica = u.sector_key[p.challenge];
      p.old_path = u.tree_r_old.path(p.challenge);
      p.new_replica = u.replica[p.challenge];
      p.new_path = u.tree_r_new.path(p.challenge);
    });
    v.partitions.push_back(std::move(part));
  }
  return v;
}

Status check_vanilla(const VanillaProofs& v, const std::string& what, unsigned threads) {
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what));
  Fr old_pair[2] = {v.comms.comm_c, v.comms.comm_r_last_old};
  if (gadgets::poseidon_hash(old_pair) != v.comms.comm_r_old) {
    return invalid_argument(what + ": comm_r_old is not Poseidon(comm_c, comm_r_last_old)");
  }
  Fr new_pair[2] = {v.comms.comm_c, v.comms.comm_r_last_new};
  if (gadgets::poseidon_hash(new_pair) != v.comms.comm_r_new) {
    return invalid_argument(what + ": comm_r_new is not Poseidon(comm_c, comm_r_last_new)");
  }
  std::set<uint32_t> seen;
  std::vector<std::pair<size_t, uint32_t>> items;
  for (size_t k = 0; k < v.partitions.size(); ++k) {
    const PartitionProof& part = v.partitions[k];
    if (part.partition >= v.shape.partitions || !seen.insert(part.partition).second) {
      return invalid_argument(what + ": partition index " + std::to_string(part.partition) +
                              " is out of range or repeated (the shape has " +
                              std::to_string(v.shape.partitions) + " partitions)");
    }
    if (part.challenges.size() != v.shape.challenges) {
      return invalid_argument(what + ": partition " + std::to_string(part.partition) +
                              " has the wrong number of challenges");
    }
    for (uint32_t j = 0; j < v.shape.challenges; ++j) items.emplace_back(k, j);
  }
  const Fr phi_value = phi(v.comms.comm_d_new, v.comms.comm_r_old);
  std::vector<Status> results(items.size());
  crypto::parallel_for(items.size(), threads, [&](size_t i) {
    results[i] = check_challenge(v, v.partitions[items[i].first], items[i].second, phi_value, what);
  });
  for (Status& s : results) ZKP_RETURN_IF_ERROR(s);
  return ok_status();
}

std::vector<Fr> public_inputs(const Shape& shape, const Commitments& comms, uint32_t partition) {
  std::vector<Fr> out = {comms.comm_r_old, comms.comm_d_new, comms.comm_r_new};
  for (uint32_t j = 0; j < shape.challenges; ++j) {
    out.push_back(Fr::from_u64(derive_challenge(comms.comm_r_new, partition, j, shape.nodes)));
  }
  return out;
}

}  // namespace zkpipe::snapdeals
