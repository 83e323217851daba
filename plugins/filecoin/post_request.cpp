// The Filecoin PoSt proof types' request (zkpipe/filecoin_circuit/post_request.h).
#include "zkpipe/filecoin_circuit/post_request.h"

#include <nlohmann/json.hpp>

#include <random>

#include "text_bytes.h"
#include "zkpipe/filecoin/commd.h"
#include "zkpipe/filecoin/description.h"
#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin/sdr.h"
#include "zkpipe/filecoin_circuit/tree.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

using nlohmann::json;

}  // namespace

Result<PostRequest> parse_post_request(std::span<const uint8_t> bytes, bool winning,
                                       const std::string& what) {
  json j = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid_argument(what + ": not a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "registered_proof" && key != "randomness" && key != "prover_id" &&
        key != "vanilla_proofs" && key != "sectors") {
      return invalid_argument(what + ": unknown key \"" + key +
                              "\" (known: registered_proof, randomness, prover_id, "
                              "vanilla_proofs, sectors)");
    }
  }
  if (!j.contains("vanilla_proofs") || !j["vanilla_proofs"].is_array() ||
      j["vanilla_proofs"].empty()) {
    return invalid_argument(what + ": vanilla_proofs: missing or not a non-empty array");
  }
  PostRequest r;
  for (size_t i = 0; i < j["vanilla_proofs"].size(); ++i) {
    const std::string field = "vanilla_proofs[" + std::to_string(i) + "]";
    ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> b,
                         text_bytes(j["vanilla_proofs"][i], what + ": " + field, true));
    ZKP_ASSIGN_OR_RETURN(SectorVanillaProof p, decode_sector_proof(b, what + ": " + field));
    r.proofs.push_back(std::move(p));
  }
  json desc = {
      {"registered_proof", j.value("registered_proof", json())},
      {"randomness", j.value("randomness", json())},
      {"prover_id", j.contains("prover_id") ? j["prover_id"] : json(std::string(64, '0'))}};
  if (j.contains("sectors")) {
    desc["sectors"] = j["sectors"];
  } else {
    desc["sectors"] = json::array();
    for (const SectorVanillaProof& p : r.proofs) {
      desc["sectors"].push_back({{"sector_id", p.sector_id}, {"comm_r", zkpipe::to_hex(p.comm_r)}});
    }
  }
  ZKP_ASSIGN_OR_RETURN(r.description, filecoin::parse_post_description(desc.dump(), what));
  r.registered_proof = desc["registered_proof"].get<std::string>();
  if (r.description.config.winning != winning) {
    return invalid_argument(what + ": registered_proof " + desc["registered_proof"].dump() +
                            " is a " + (winning ? "Window" : "Winning") +
                            " PoSt; this proof type proves " + (winning ? "Winning" : "Window") +
                            " PoSt");
  }
  if (r.proofs.size() != r.description.sectors.size()) {
    return invalid_argument(what + ": " + std::to_string(r.proofs.size()) + " vanilla proofs for " +
                            std::to_string(r.description.sectors.size()) + " sectors");
  }
  for (size_t i = 0; i < r.proofs.size(); ++i) {
    const filecoin::PostSector& s = r.description.sectors[i];
    if (r.proofs[i].sector_id != s.sector_id || r.proofs[i].comm_r != s.comm_r) {
      return invalid_argument(what + ": vanilla_proofs[" + std::to_string(i) + "] proves sector " +
                              std::to_string(r.proofs[i].sector_id) + ", not sectors[" +
                              std::to_string(i) + "] (sector " + std::to_string(s.sector_id) +
                              " with its comm_r)");
    }
  }
  for (uint32_t k = 0; k < post_partitions(r.description); ++k) {
    ZKP_ASSIGN_OR_RETURN(std::vector<PostSectorWitness> w,
                         post_witness(r.description, r.proofs, k, what));
    r.witnesses.push_back(std::move(w));
  }
  return r;
}

std::string encode_post_request(const PostRequest& r) {
  json j;
  j["registered_proof"] = r.registered_proof;
  j["randomness"] = zkpipe::to_hex(r.description.randomness);
  j["prover_id"] = zkpipe::to_hex(r.description.prover_id);
  j["sectors"] = json::array();
  j["vanilla_proofs"] = json::array();
  for (size_t i = 0; i < r.proofs.size(); ++i) {
    j["sectors"].push_back({{"sector_id", r.description.sectors[i].sector_id},
                            {"comm_r", zkpipe::to_hex(r.description.sectors[i].comm_r)}});
    j["vanilla_proofs"].push_back(zkpipe::to_hex(encode_sector_proof(r.proofs[i])));
  }
  return j.dump(1);
}

Result<PostRequest> sample_post_request(std::string_view registered_proof, uint32_t sectors,
                                        uint64_t seed) {
  ZKP_ASSIGN_OR_RETURN(filecoin::PostConfig c, filecoin::registered_post(registered_proof));
  if (c.sector_size > (uint64_t{8} << 20)) {
    return invalid_argument("sample: " + std::string(registered_proof) +
                            ": sealing a sector over 8MiB here takes too long; give a request "
                            "with the vanilla proofs of sealed sectors");
  }
  if (sectors == 0 || (c.winning && sectors != 1)) {
    return invalid_argument("sample: " + std::to_string(sectors) + " sectors for " +
                            std::string(registered_proof));
  }
  ZKP_ASSIGN_OR_RETURN(filecoin::SectorShape shape, filecoin::sector_shape(c.sector_size));
  std::string seal_name;
  for (const filecoin::SectorSizeName& s : filecoin::kSectorSizes) {
    if (s.bytes == c.sector_size) seal_name = std::string("StackedDrg") + s.name + "V1_1";
  }
  ZKP_ASSIGN_OR_RETURN(filecoin::PorepConfig porep, filecoin::registered_porep(seal_name));
  const TreeArities arities{shape.base_arity, shape.sub_arity, shape.top_arity};
  std::mt19937_64 rng(seed);
  auto random32 = [&](filecoin::Bytes32& b) {
    for (auto& x : b) x = static_cast<uint8_t>(rng());
  };
  PostRequest r;
  r.registered_proof = std::string(registered_proof);
  r.description.config = c;
  random32(r.description.randomness);
  random32(r.description.prover_id);
  r.description.prover_id[31] = 0;
  struct Sealed {
    filecoin::SealedSector sector;
    std::unique_ptr<FilecoinTree> tree;
  };
  std::vector<Sealed> sealed;
  for (uint32_t i = 0; i < sectors; ++i) {
    std::vector<uint8_t> data(c.sector_size);
    for (size_t n = 0; n < data.size(); n += 32) {
      for (size_t b = 0; b < 31; ++b) data[n + b] = static_cast<uint8_t>(rng());
      data[n + 31] = static_cast<uint8_t>(rng() & 0x3f);  // each node a canonical Fr
    }
    filecoin::Bytes32 ticket;
    random32(ticket);
    ZKP_ASSIGN_OR_RETURN(filecoin::Domain comm_d, filecoin::comm_d_padded(data));
    const uint64_t id = 1000 + i;
    const filecoin::Domain rid =
        filecoin::replica_id(r.description.prover_id, id, ticket, comm_d, porep.porep_id);
    ZKP_ASSIGN_OR_RETURN(filecoin::SealedSector s, filecoin::seal_sector(data, shape, porep, rid));
    std::vector<Fr> leaves;
    leaves.reserve(s.replica.size());
    for (const filecoin::Domain& d : s.replica) leaves.push_back(*filecoin::fr_from_domain(d));
    auto tree = std::make_unique<FilecoinTree>(std::move(leaves), arities);
    r.description.sectors.push_back({id, s.comm_r});
    sealed.push_back({std::move(s), std::move(tree)});
  }
  ZKP_ASSIGN_OR_RETURN(std::vector<std::vector<Fr>> inputs,
                       filecoin::post_public_inputs(r.description));
  // The challenged leaves of each sector, from its first block (ids ascend: block i is sector i).
  const uint32_t per_block = c.winning ? 1 : c.challenges;
  for (uint32_t i = 0; i < sectors; ++i) {
    SectorVanillaProof p;
    p.sector_id = r.description.sectors[i].sector_id;
    p.comm_r = sealed[i].sector.comm_r;
    p.comm_c = sealed[i].sector.comm_c;
    p.comm_r_last = sealed[i].sector.comm_r_last;
    const uint32_t partition = c.winning ? 0 : i / c.sector_count;
    const uint32_t slot = c.winning ? 0 : i % c.sector_count;
    const std::vector<Fr>& in = inputs[partition];
    for (uint32_t n = 0; n < c.challenges; ++n) {
      const size_t at = c.winning ? size_t{n} * 2 + 1 : size_t{slot} * (1 + per_block) + 1 + n;
      p.inclusion_proofs.push_back(sealed[i].tree->open(in[at].to_canonical()[0]));
    }
    r.proofs.push_back(std::move(p));
  }
  return r;
}

}  // namespace zkpipe::filecoin_circuit
