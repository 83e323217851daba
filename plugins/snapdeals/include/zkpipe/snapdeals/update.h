// zkpipe/snapdeals/update.h: SnapDeals-style (empty-sector-update) encoding of new data into a
// sealed committed-capacity sector, deterministic from seeds:
//   data node i   = sha_fr("zkpipe snapdeals data" || seed || i as u64 LE); tree D: binary SHA-256
//   phi           = Poseidon_2(comm_d_new, comm_r_old)
//   rho(i)        = Poseidon_2(phi, i >> (depth - h))        (h high bits of the node index)
//   new replica i = sector key i + data i * rho(i)           (sector key = the old replica)
//   tree R new: 8-ary Poseidon; comm_r_new = Poseidon_2(comm_c, comm_r_last_new)
// Challenge j of partition k = first 8 bytes (LE) of SHA-256("zkpipe snapdeals challenge" ||
// comm_r_new || k as u32 LE || j as u32 LE) mod nodes.
// Thread-safety: reentrant; an UpdatedSector is immutable once built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sector/seal.h"

namespace zkpipe::snapdeals {

using crypto::Fr;
using porep::Seed;

struct Shape {
  std::string name;         // preset name, or "custom"
  uint64_t nodes = 0;       // a power of 8, >= 8 (as the sector key's)
  uint32_t h = 0;           // high index bits rho depends on, 1 <= h <= log2(nodes)
  uint32_t challenges = 0;  // per partition, >= 1
  uint32_t partitions = 0;  // >= 1

  uint32_t depth() const;  // log2(nodes)
  // "snapdeals-v1-n64-h3-c2".
  std::string circuit_id() const;
  bool operator==(const Shape&) const = default;
};

// Every field, and a preset's circuit has the preset's partitions (porep::check_preset_partitions).
Status validate_shape(const Shape& s, const std::string& what);
const std::vector<Shape>& shape_presets();  // tiny, 2KiB, 8MiB, 512MiB
Result<Shape> find_shape(const std::string& name);

struct Commitments {
  Fr comm_r_old, comm_d_new, comm_r_new;  // public
  Fr comm_c, comm_r_last_old, comm_r_last_new;
};

struct UpdatedSector {
  Shape shape;
  std::vector<Fr> sector_key;  // the old replica
  std::vector<Fr> data;
  std::vector<Fr> replica;  // new
  gadgets::ShaTree tree_d;
  gadgets::PoseidonTree tree_r_old, tree_r_new;
  Commitments comms;
};

Fr data_node(const Seed& seed, uint64_t node);
Fr phi(const Fr& comm_d_new, const Fr& comm_r_old);
Fr rho(const Fr& phi, uint64_t node, const Shape& shape);
uint64_t derive_challenge(const Fr& comm_r_new, uint32_t partition, uint32_t index, uint64_t nodes);

// Encodes synthetic data from `data_seed` into a sealed empty sector (all-zero data; porep seal
// --empty). INVALID_ARGUMENT when the sector is not empty or its size differs from the shape.
Result<UpdatedSector> update(const porep::SealedSector& sector_key, const Shape& shape,
                             const Seed& data_seed, unsigned threads = 0);

}  // namespace zkpipe::snapdeals
