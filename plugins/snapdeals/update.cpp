// SnapDeals-style encoding (zkpipe/snapdeals/update.h).
#include "zkpipe/snapdeals/update.h"

#include <bit>

#include "zkpipe/crypto/parallel.h"
#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::snapdeals {

uint32_t Shape::depth() const {
  return static_cast<uint32_t>(std::countr_zero(nodes));
}

std::string Shape::circuit_id() const {
  return "snapdeals-v1-n" + std::to_string(nodes) + "-h" + std::to_string(h) + "-c" +
         std::to_string(challenges);
}

Status validate_shape(const Shape& s, const std::string& what) {
  ZKP_RETURN_IF_ERROR(porep::validate_sector_nodes(s.nodes, what));
  if (s.h < 1 || s.h > s.depth()) {
    return invalid_argument(what + ": h must be in [1, log2(nodes) = " + std::to_string(s.depth()) +
                            "], not " + std::to_string(s.h));
  }
  ZKP_RETURN_IF_ERROR(porep::validate_partitioning(s.challenges, s.partitions, what));
  return porep::check_preset_partitions(s, shape_presets(), what);
}

const std::vector<Shape>& shape_presets() {
  // nodes, h, challenges per partition, partitions.
  static const std::vector<Shape> presets = {
      {"tiny", 8, 2, 1, 2},
      {"2KiB", 64, 3, 2, 2},
      {"8MiB", uint64_t{1} << 18, 4, 4, 2},
      {"512MiB", uint64_t{1} << 24, 5, 4, 2},
  };
  return presets;
}

Result<Shape> find_shape(const std::string& name) {
  return porep::find_in(shape_presets(), name);
}

Fr data_node(const Seed& seed, uint64_t node) {
  return porep::seeded_node("zkpipe snapdeals data", seed, node);
}

Fr phi(const Fr& comm_d_new, const Fr& comm_r_old) {
  Fr pair[2] = {comm_d_new, comm_r_old};
  return gadgets::poseidon_hash(pair);
}

Fr rho(const Fr& phi_value, uint64_t node, const Shape& shape) {
  Fr pair[2] = {phi_value, Fr::from_u64(node >> (shape.depth() - shape.h))};
  return gadgets::poseidon_hash(pair);
}

uint64_t derive_challenge(const Fr& comm_r_new, uint32_t partition, uint32_t index,
                          uint64_t nodes) {
  auto key = gadgets::fr_to_le_bytes(comm_r_new);
  return porep::challenge_bits("zkpipe snapdeals challenge", key, partition, index) % nodes;
}

Result<UpdatedSector> update(const porep::SealedSector& key, const Shape& shape,
                             const Seed& data_seed, unsigned threads) {
  ZKP_RETURN_IF_ERROR(validate_shape(shape, "snapdeals shape '" + shape.name + "'"));
  if (key.shape.nodes != shape.nodes) {
    return invalid_argument("the sector key has " + std::to_string(key.shape.nodes) +
                            " nodes; shape '" + shape.name + "' needs " +
                            std::to_string(shape.nodes));
  }
  for (uint64_t i = 0; i < key.data.size(); ++i) {
    if (!key.data[i].is_zero()) {
      return invalid_argument("the sector is not empty (node " + std::to_string(i) +
                              " holds data): seal the sector key with porep seal --empty");
    }
  }
  UpdatedSector u;
  u.shape = shape;
  u.sector_key = key.replica;
  u.data.resize(shape.nodes);
  crypto::parallel_for(shape.nodes, threads,
                       [&](size_t i) { u.data[i] = data_node(data_seed, i); });
  u.tree_d = gadgets::ShaTree::build(u.data, threads);
  u.tree_r_old = key.tree_r;
  u.comms.comm_r_old = key.comms.comm_r;
  u.comms.comm_c = key.comms.comm_c;
  u.comms.comm_r_last_old = key.comms.comm_r_last;
  u.comms.comm_d_new = u.tree_d.root();
  const Fr phi_value = phi(u.comms.comm_d_new, u.comms.comm_r_old);
  std::vector<Fr> rhos(uint64_t{1} << shape.h);
  for (uint64_t k = 0; k < rhos.size(); ++k)
    rhos[k] = rho(phi_value, k << (shape.depth() - shape.h), shape);
  u.replica.resize(shape.nodes);
  crypto::parallel_for(shape.nodes, threads, [&](size_t i) {
    u.replica[i] = u.sector_key[i] + u.data[i] * rhos[i >> (shape.depth() - shape.h)];
  });
  u.tree_r_new = gadgets::PoseidonTree::build(u.replica, threads);
  u.comms.comm_r_last_new = u.tree_r_new.root();
  Fr pair[2] = {u.comms.comm_c, u.comms.comm_r_last_new};
  u.comms.comm_r_new = gadgets::poseidon_hash(pair);
  return u;
}

}  // namespace zkpipe::snapdeals
