// Filecoin's vanilla PoSt proofs: bytes, native check, witness
// (zkpipe/filecoin_circuit/vanilla_post.h).
#include "zkpipe/filecoin_circuit/vanilla_post.h"

#include <algorithm>
#include <numeric>

#include "bincode.h"

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin/poseidon.h"

namespace zkpipe::filecoin_circuit {

using bincode::put;
using bincode::Reader;

Result<SectorVanillaProof> decode_sector_proof(std::span<const uint8_t> bytes,
                                               const std::string& what) {
  Reader r(bytes, what);
  SectorVanillaProof p;
  ZKP_ASSIGN_OR_RETURN(p.sector_id, r.u64("sector_id"));
  ZKP_ASSIGN_OR_RETURN(p.comm_r, r.domain("comm_r"));
  ZKP_ASSIGN_OR_RETURN(uint64_t sectors, r.count("vanilla_proof.sectors.len"));
  if (sectors != 1) {
    return r.fail("vanilla_proof.sectors.len",
                  std::to_string(sectors) + " sector proofs; a sector's proof holds exactly 1");
  }
  ZKP_ASSIGN_OR_RETURN(uint64_t n, r.count("inclusion_proofs.len"));
  for (uint64_t i = 0; i < n; ++i) {
    const std::string f = "inclusion_proofs[" + std::to_string(i) + "]";
    ZKP_ASSIGN_OR_RETURN(InclusionProof ip, bincode::read_inclusion_proof(r, f));
    p.inclusion_proofs.push_back(std::move(ip));
  }
  ZKP_ASSIGN_OR_RETURN(p.comm_c, r.domain("comm_c"));
  ZKP_ASSIGN_OR_RETURN(p.comm_r_last, r.domain("comm_r_last"));
  ZKP_RETURN_IF_ERROR(r.done());
  return p;
}

std::vector<uint8_t> encode_sector_proof(const SectorVanillaProof& p) {
  std::vector<uint8_t> out;
  put(out, p.sector_id, 8);
  put(out, p.comm_r);
  put(out, 1, 8);
  put(out, p.inclusion_proofs.size(), 8);
  for (const InclusionProof& ip : p.inclusion_proofs) {
    bincode::put_inclusion_proof(out, ip);
  }
  put(out, p.comm_c);
  put(out, p.comm_r_last);
  return out;
}

uint64_t opened_leaf(const InclusionProof& p, TreeArities) {
  uint64_t index = 0, scale = 1;
  for (const auto& path : p.paths) {
    for (const PathElement& e : path) {
      index += e.position * scale;
      scale *= e.siblings.size() + 1;
    }
  }
  return index;
}

uint32_t post_partitions(const filecoin::PostDescription& d) {
  if (d.config.winning || d.sectors.empty()) return 1;
  const size_t per = d.config.sector_count;
  return static_cast<uint32_t>((d.sectors.size() + per - 1) / per);
}

std::vector<size_t> partition_slots(const filecoin::PostDescription& d, uint32_t partition) {
  std::vector<size_t> order(d.sectors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return d.sectors[a].sector_id < d.sectors[b].sector_id;
  });
  if (d.config.winning) return std::vector<size_t>(d.config.challenges, order.at(0));
  std::vector<size_t> slots;
  const size_t per = d.config.sector_count;
  for (size_t i = 0; i < per; ++i) {
    const size_t at = partition * per + i;
    slots.push_back(order[std::min(at, order.size() - 1)]);
  }
  return slots;
}

Result<std::vector<PostSectorWitness>> post_witness(const filecoin::PostDescription& d,
                                                    std::span<const SectorVanillaProof> proofs,
                                                    uint32_t partition, const std::string& what) {
  if (proofs.size() != d.sectors.size()) {
    return invalid_argument(what + ": " + std::to_string(proofs.size()) + " vanilla proofs for " +
                            std::to_string(d.sectors.size()) + " sectors");
  }
  ZKP_ASSIGN_OR_RETURN(std::vector<std::vector<Fr>> inputs, filecoin::post_public_inputs(d));
  if (partition >= inputs.size()) {
    return invalid_argument(what + ": partition " + std::to_string(partition) + " of " +
                            std::to_string(inputs.size()));
  }
  ZKP_ASSIGN_OR_RETURN(filecoin::SectorShape shape, filecoin::sector_shape(d.config.sector_size));
  const TreeArities arities{shape.base_arity, shape.sub_arity, shape.top_arity};
  const MerkleOpening blank = blank_opening(shape.nodes, arities);

  const bool winning = d.config.winning;
  const uint32_t per_slot = winning ? 1 : d.config.challenges;
  const std::vector<size_t> slots = partition_slots(d, partition);
  const std::vector<Fr>& in = inputs[partition];
  std::vector<PostSectorWitness> out;
  for (size_t s = 0; s < slots.size(); ++s) {
    if (!winning && s > 0 && slots[s] == slots[s - 1]) {  // a short partition's padding
      out.push_back(out.back());
      continue;
    }
    const SectorVanillaProof& p = proofs[slots[s]];
    const uint64_t id = d.sectors[slots[s]].sector_id;
    const std::string where = what + " sector " + std::to_string(id);
    const Fr* block = &in[s * (1 + per_slot)];
    if (p.sector_id != id) {
      return invalid_argument(where + ": the vanilla proof is of sector " +
                              std::to_string(p.sector_id));
    }
    PostSectorWitness w;
    w.comm_r = *filecoin::fr_from_domain(p.comm_r);
    w.comm_c = *filecoin::fr_from_domain(p.comm_c);
    w.comm_r_last = *filecoin::fr_from_domain(p.comm_r_last);
    if (w.comm_r != block[0]) {
      return invalid_argument(where + ": the vanilla proof's comm_r is not the sector's");
    }
    const Fr pair[2] = {w.comm_c, w.comm_r_last};
    if (filecoin::poseidon_merkle(pair) != w.comm_r) {
      return invalid_argument(where + ": Poseidon(comm_c, comm_r_last) is not comm_r");
    }
    const size_t first = winning ? s : 0;
    const size_t need = d.config.challenges;  // Winning: one per slot, all in the one proof
    if (p.inclusion_proofs.size() != need) {
      return invalid_argument(where + ": " + std::to_string(p.inclusion_proofs.size()) +
                              " inclusion proofs; " + std::to_string(need) + " challenges");
    }
    for (uint32_t n = 0; n < per_slot; ++n) {
      const size_t c = first + n;
      const InclusionProof& ip = p.inclusion_proofs[c];
      const std::string at = where + " challenge " + std::to_string(c);
      MerkleOpening o;
      o.leaf = *filecoin::fr_from_domain(ip.leaf);
      for (const auto& path : ip.paths) o.path.insert(o.path.end(), path.begin(), path.end());
      bool shaped = o.path.size() == blank.path.size();
      for (size_t l = 0; shaped && l < o.path.size(); ++l) {
        shaped = o.path[l].siblings.size() == blank.path[l].siblings.size();
      }
      if (!shaped) {
        return invalid_argument(at + ": the Merkle path does not have the shape of a " +
                                std::to_string(d.config.sector_size) + "-byte sector's tree");
      }
      const uint64_t leaf = opened_leaf(ip, arities);
      if (Fr::from_u64(leaf) != block[1 + n]) {
        return invalid_argument(at + ": the path opens leaf " + std::to_string(leaf) +
                                ", not the challenged leaf");
      }
      const Fr root = opening_root(o);
      if (root != w.comm_r_last || *filecoin::fr_from_domain(ip.root) != w.comm_r_last) {
        return invalid_argument(at + ": the Merkle path does not lead to comm_r_last");
      }
      w.openings.push_back(std::move(o));
    }
    out.push_back(std::move(w));
  }
  return out;
}

namespace bincode {

Result<InclusionProof> read_inclusion_proof(Reader& r, const std::string& f) {
  ZKP_ASSIGN_OR_RETURN(uint64_t kind, r.u32(f + ".kind"));
  if (kind > 2)
    return r.fail(f + ".kind", std::to_string(kind) + " is not 0 (single), 1 (sub) or 2 (top)");
  InclusionProof ip;
  const uint64_t paths = kind + 1;
  ip.paths.resize(paths);
  ip.hashes.resize(paths);
  static const char* kNames[] = {".base", ".sub", ".top"};
  if (kind == 0) {
    ZKP_ASSIGN_OR_RETURN(ip.root, r.domain(f + ".root"));
    ZKP_ASSIGN_OR_RETURN(ip.leaf, r.domain(f + ".leaf"));
  }
  for (uint64_t k = 0; k < paths; ++k) {
    ZKP_RETURN_IF_ERROR(
        read_path(r, f + (kind == 0 ? ".path" : kNames[k]), ip.paths[k], ip.hashes[k]));
  }
  if (kind != 0) {
    ZKP_ASSIGN_OR_RETURN(ip.root, r.domain(f + ".root"));
    ZKP_ASSIGN_OR_RETURN(ip.leaf, r.domain(f + ".leaf"));
  }
  return ip;
}

void put_inclusion_proof(std::vector<uint8_t>& out, const InclusionProof& ip) {
  const uint64_t kind = ip.paths.empty() ? 0 : ip.paths.size() - 1;
  put(out, kind, 4);
  if (kind == 0) {
    put(out, ip.root);
    put(out, ip.leaf);
  }
  for (size_t k = 0; k < ip.paths.size(); ++k) {
    put(out, ip.paths[k].size(), 8);
    size_t h = 0;
    for (const PathElement& e : ip.paths[k]) {
      put(out, e.siblings.size(), 8);
      for (size_t j = 0; j < e.siblings.size(); ++j) put(out, ip.hashes[k][h++]);
      put(out, e.position, 8);
    }
  }
  if (kind != 0) {
    put(out, ip.root);
    put(out, ip.leaf);
  }
}

}  // namespace bincode
}  // namespace zkpipe::filecoin_circuit
