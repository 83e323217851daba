// Making and checking vanilla proofs (vanilla.h).
#include "vanilla.h"

#include <map>

#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::post {
namespace {

std::string sector_name(uint64_t id) {
  return "sector " + std::to_string(id);
}

// The sector count a request of this shape may hold.
Status check_sector_count(const Shape& shape, size_t count, const std::string& what) {
  const uint64_t most = shape.kind == Kind::kWindow ? uint64_t{kMaxPartitions} * shape.sectors
                                                    : uint64_t{kMaxWinningSet};
  if (count < 1 || count > most) {
    return invalid_argument(what + ": " + std::to_string(count) + " sectors; a " +
                            kind_name(shape.kind) + " request of this shape holds 1 to " +
                            std::to_string(most));
  }
  return ok_status();
}

// Sector ids are distinct: the second entry of a repeated id is named with the first.
template <typename IdAt>
Status check_distinct(size_t count, IdAt&& id_at, const std::string& what) {
  std::map<uint64_t, size_t> seen;
  for (size_t i = 0; i < count; ++i) {
    auto [it, fresh] = seen.emplace(id_at(i), i);
    if (!fresh) {
      return invalid_argument(what + ": " + sector_name(id_at(i)) + " is listed twice (entries " +
                              std::to_string(it->second) + " and " + std::to_string(i) + ")");
    }
  }
  return ok_status();
}

// The entry of v.sectors each proof is of: window: the same index; winning: the drawn one.
size_t proven_entry(const VanillaProofs& v, size_t proof) {
  return v.shape.kind == Kind::kWindow
             ? proof
             : draw_sector(v.randomness, static_cast<uint32_t>(v.sectors.size()));
}

Status check_sector_proof(const VanillaProofs& v, const SectorProof& p, const Fr& comm_r,
                          const std::string& what) {
  const std::string at = what + ": " + sector_name(p.sector_id);
  if (p.challenges.size() != v.shape.challenges) {
    return invalid_argument(at + ": " + std::to_string(p.challenges.size()) +
                            " challenges; the shape has " + std::to_string(v.shape.challenges));
  }
  const Fr pair[2] = {p.comm_c, p.comm_r_last};
  if (gadgets::poseidon_hash(pair) != comm_r) {
    return invalid_argument(at + ": comm_r does not equal Poseidon(comm_c, comm_r_last)");
  }
  const size_t path_length = gadgets::poseidon_path_length(v.shape.nodes);
  for (uint32_t j = 0; j < v.shape.challenges; ++j) {
    const ChallengeOpening& c = p.challenges[j];
    const std::string cat = at + ", challenge " + std::to_string(j);
    const uint64_t want =
        derive_challenge(v.shape.kind, v.randomness, p.sector_id, j, v.shape.nodes);
    if (c.leaf_index != want) {
      return invalid_argument(cat + ": the leaf index " + std::to_string(c.leaf_index) +
                              " is not its derivation from the randomness, the sector id and "
                              "the challenge index (" +
                              std::to_string(want) + ")");
    }
    if (c.path.size() != path_length) {
      return invalid_argument(cat + ": the tree R path has " + std::to_string(c.path.size()) +
                              " elements, not " + std::to_string(path_length));
    }
    if (gadgets::PoseidonTree::root_from_path(c.leaf, c.leaf_index, c.path) != p.comm_r_last) {
      return invalid_argument(cat + " (leaf " + std::to_string(c.leaf_index) +
                              "): the leaf and its tree R path do not lead to comm_r_last");
    }
  }
  return ok_status();
}

}  // namespace

Result<VanillaProofs> make_vanilla_proofs(const Shape& shape, const Seed& randomness,
                                          std::span<const SectorInput> sectors) {
  ZKP_RETURN_IF_ERROR(validate_shape(shape, "shape '" + shape.name + "'"));
  ZKP_RETURN_IF_ERROR(check_sector_count(shape, sectors.size(), "the sector list"));
  ZKP_RETURN_IF_ERROR(check_distinct(
      sectors.size(), [&](size_t i) { return sectors[i].id; }, "the sector list"));
  VanillaProofs v;
  v.shape = shape;
  v.randomness = randomness;
  for (const SectorInput& s : sectors) {
    if (s.sector == nullptr || s.sector->shape.nodes != shape.nodes) {
      return invalid_argument(s.what + " (" + sector_name(s.id) + "): the sector has " +
                              std::to_string(s.sector ? s.sector->shape.nodes : 0) +
                              " nodes; shape '" + shape.name + "' proves sectors of " +
                              std::to_string(shape.nodes));
    }
    v.sectors.push_back({s.id, s.sector->comms.comm_r});
  }
  const size_t count = shape.kind == Kind::kWindow ? sectors.size() : 1;
  for (size_t i = 0; i < count; ++i) {
    const SectorInput& s = sectors[proven_entry(v, i)];
    SectorProof p;
    p.sector_id = s.id;
    p.comm_c = s.sector->comms.comm_c;
    p.comm_r_last = s.sector->comms.comm_r_last;
    for (uint32_t j = 0; j < shape.challenges; ++j) {
      ChallengeOpening c;
      c.leaf_index = derive_challenge(shape.kind, randomness, s.id, j, shape.nodes);
      c.leaf = s.sector->tree_r.leaf(c.leaf_index);
      c.path = s.sector->tree_r.path(c.leaf_index);
      p.challenges.push_back(std::move(c));
    }
    v.proofs.push_back(std::move(p));
  }
  return v;
}

Status check_vanilla(const VanillaProofs& v, const std::string& what) {
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": the shape"));
  ZKP_RETURN_IF_ERROR(check_sector_count(v.shape, v.sectors.size(), what));
  ZKP_RETURN_IF_ERROR(check_distinct(
      v.sectors.size(), [&](size_t i) { return v.sectors[i].id; }, what));
  const size_t want = v.shape.kind == Kind::kWindow ? v.sectors.size() : 1;
  if (v.proofs.size() < want) {
    return invalid_argument(what + ": " +
                            sector_name(v.sectors[proven_entry(v, v.proofs.size())].id) +
                            " has no proof (" + std::to_string(v.sectors.size()) +
                            " sectors listed, " + std::to_string(v.proofs.size()) + " proven)");
  }
  if (v.proofs.size() > want) {
    return invalid_argument(what + ": " + std::to_string(v.proofs.size()) + " sector proofs; a " +
                            kind_name(v.shape.kind) + " request of " +
                            std::to_string(v.sectors.size()) + " sectors has " +
                            std::to_string(want));
  }
  for (size_t i = 0; i < v.proofs.size(); ++i) {
    const SectorProof& p = v.proofs[i];
    const size_t entry = proven_entry(v, i);
    if (p.sector_id != v.sectors[entry].id) {
      if (v.shape.kind == Kind::kWinning) {
        return invalid_argument(what + ": " + sector_name(p.sector_id) +
                                " is not the drawn sector: the randomness draws entry " +
                                std::to_string(entry) + " of " + std::to_string(v.sectors.size()) +
                                ", " + sector_name(v.sectors[entry].id));
      }
      return invalid_argument(what + ": proof " + std::to_string(i) + " is of " +
                              sector_name(p.sector_id) + ", but entry " + std::to_string(i) +
                              " lists " + sector_name(v.sectors[entry].id) +
                              " (proofs follow the listed order)");
    }
    ZKP_RETURN_IF_ERROR(check_sector_proof(v, p, v.sectors[entry].comm_r, what));
  }
  return ok_status();
}

uint32_t partitions(const VanillaProofs& v) {
  return v.shape.kind == Kind::kWindow ? window_partitions(v.shape, v.sectors.size()) : 1;
}

size_t slot_proof(const VanillaProofs& v, uint32_t partition, uint32_t slot) {
  const uint64_t i = uint64_t{partition} * v.shape.sectors + slot;
  return static_cast<size_t>(std::min<uint64_t>(i, v.proofs.size() - 1));
}

const Fr& proof_comm_r(const VanillaProofs& v, size_t proof) {
  return v.sectors[proven_entry(v, proof)].comm_r;
}

std::vector<Fr> public_inputs(const VanillaProofs& v, uint32_t partition) {
  std::vector<Fr> x;
  x.reserve(v.shape.num_public_inputs() - 1);
  for (uint32_t slot = 0; slot < v.shape.sectors; ++slot) {
    const size_t proof = slot_proof(v, partition, slot);
    const SectorRef& s = v.sectors[proven_entry(v, proof)];
    x.push_back(s.comm_r);
    for (uint32_t j = 0; j < v.shape.challenges; ++j) {
      x.push_back(
          Fr::from_u64(derive_challenge(v.shape.kind, v.randomness, s.id, j, v.shape.nodes)));
    }
  }
  return x;
}

}  // namespace zkpipe::post
