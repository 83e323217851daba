// Vanilla proofs as JSON, for small requests and for reading by eye, and a request in either
// format (vanilla.h). Field elements are "0x" + 64 hex digits, big-endian canonical; the
// randomness is 64 hex digits.
#include <nlohmann/json.hpp>

#include "vanilla.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/sdk/byte_io.h"
#include "zkpipe/sdk/json_fields.h"
#include "zkpipe/sdk/request.h"

namespace zkpipe::post {
namespace {

using nlohmann::json;
using plugins::fr_hex;
using plugins::fr_hexes;
using plugins::JsonReader;

Status read_proof(const JsonReader& r, const json& pj, const Shape& shape, const std::string& pp,
                  SectorProof& p) {
  ZKP_RETURN_IF_ERROR(r.only_keys(pj, pp, {"sector_id", "comm_c", "comm_r_last", "challenges"}));
  ZKP_ASSIGN_OR_RETURN(p.sector_id, r.u64(pj, "sector_id", pp));
  ZKP_ASSIGN_OR_RETURN(p.comm_c, r.fr(pj, "comm_c", pp));
  ZKP_ASSIGN_OR_RETURN(p.comm_r_last, r.fr(pj, "comm_r_last", pp));
  ZKP_ASSIGN_OR_RETURN(const json* cs, r.at(pj, "challenges", pp));
  if (!cs->is_array() || cs->size() != shape.challenges) {
    return r.error(pp + ".challenges",
                   "must be an array of " + std::to_string(shape.challenges) + " entries");
  }
  const size_t path = gadgets::poseidon_path_length(shape.nodes);
  for (size_t j = 0; j < cs->size(); ++j) {
    const json& cj = (*cs)[j];
    const std::string cp = pp + ".challenges[" + std::to_string(j) + "]";
    ChallengeOpening c;
    ZKP_RETURN_IF_ERROR(r.only_keys(cj, cp, {"leaf_index", "leaf", "path"}));
    ZKP_ASSIGN_OR_RETURN(c.leaf_index, r.u64(cj, "leaf_index", cp));
    if (c.leaf_index >= shape.nodes) return r.error(cp + ".leaf_index", "outside the sector");
    ZKP_ASSIGN_OR_RETURN(c.leaf, r.fr(cj, "leaf", cp));
    ZKP_RETURN_IF_ERROR(r.frs(cj, "path", cp, path, c.path));
    p.challenges.push_back(std::move(c));
  }
  return ok_status();
}

}  // namespace

json vanilla_to_json(const VanillaProofs& v) {
  json sectors = json::array();
  for (const SectorRef& s : v.sectors)
    sectors.push_back({{"id", s.id}, {"comm_r", fr_hex(s.comm_r)}});
  json proofs = json::array();
  for (const SectorProof& p : v.proofs) {
    json challenges = json::array();
    for (const ChallengeOpening& c : p.challenges) {
      challenges.push_back(
          {{"leaf_index", c.leaf_index}, {"leaf", fr_hex(c.leaf)}, {"path", fr_hexes(c.path)}});
    }
    proofs.push_back({{"sector_id", p.sector_id},
                      {"comm_c", fr_hex(p.comm_c)},
                      {"comm_r_last", fr_hex(p.comm_r_last)},
                      {"challenges", challenges}});
  }
  return {{"type", kind_name(v.shape.kind)},
          {"version", plugins::kVanillaVersion},
          {"shape",
           {{"nodes", v.shape.nodes},
            {"sectors", v.shape.sectors},
            {"challenges", v.shape.challenges}}},
          {"randomness", plugins::bytes_hex(v.randomness)},
          {"sectors", sectors},
          {"proofs", proofs}};
}

Result<VanillaProofs> vanilla_from_json(Kind kind, const json& j, const std::string& what) {
  JsonReader r(what);
  ZKP_RETURN_IF_ERROR(
      r.only_keys(j, "", {"type", "version", "shape", "randomness", "sectors", "proofs"}));
  ZKP_ASSIGN_OR_RETURN(const json* type, r.at(j, "type", ""));
  if (*type != kind_name(kind)) {
    return r.error(".type", "must be \"" + std::string(kind_name(kind)) + "\"");
  }
  ZKP_ASSIGN_OR_RETURN(uint32_t version, r.u32(j, "version", ""));
  if (version != plugins::kVanillaVersion) return r.error(".version", "unsupported version");
  VanillaProofs v;
  v.shape.kind = kind;
  ZKP_ASSIGN_OR_RETURN(const json* shape, r.at(j, "shape", ""));
  ZKP_RETURN_IF_ERROR(r.only_keys(*shape, ".shape", {"nodes", "sectors", "challenges"}));
  ZKP_ASSIGN_OR_RETURN(v.shape.nodes, r.u64(*shape, "nodes", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.sectors, r.u32(*shape, "sectors", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.challenges, r.u32(*shape, "challenges", ".shape"));
  name_after_preset(v.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": .shape"));
  ZKP_RETURN_IF_ERROR(r.bytes32(j, "randomness", "", v.randomness));
  ZKP_ASSIGN_OR_RETURN(const json* sectors, r.at(j, "sectors", ""));
  if (!sectors->is_array() || sectors->empty()) {
    return r.error(".sectors", "must be an array of at least one sector");
  }
  for (size_t i = 0; i < sectors->size(); ++i) {
    const std::string sp = ".sectors[" + std::to_string(i) + "]";
    SectorRef s;
    ZKP_RETURN_IF_ERROR(r.only_keys((*sectors)[i], sp, {"id", "comm_r"}));
    ZKP_ASSIGN_OR_RETURN(s.id, r.u64((*sectors)[i], "id", sp));
    ZKP_ASSIGN_OR_RETURN(s.comm_r, r.fr((*sectors)[i], "comm_r", sp));
    v.sectors.push_back(s);
  }
  ZKP_ASSIGN_OR_RETURN(const json* proofs, r.at(j, "proofs", ""));
  if (!proofs->is_array()) return r.error(".proofs", "must be an array");
  const size_t want = kind == Kind::kWindow ? v.sectors.size() : 1;
  if (proofs->size() != want) {
    return r.error(".proofs", "holds " + std::to_string(proofs->size()) + " proofs; a " +
                                  kind_name(kind) + " request of " +
                                  std::to_string(v.sectors.size()) + " sectors proves " +
                                  std::to_string(want));
  }
  v.proofs.resize(proofs->size());
  for (size_t i = 0; i < proofs->size(); ++i) {
    ZKP_RETURN_IF_ERROR(
        read_proof(r, (*proofs)[i], v.shape, ".proofs[" + std::to_string(i) + "]", v.proofs[i]));
  }
  return v;
}

const plugins::JsonShape& request_shape(Kind kind) {
  using S = plugins::JsonShape;
  // Field elements are "0x" + 64 hex digits (the bounds bound memory; from_json checks values).
  auto fr = [] { return S::string(0, 66); };
  auto make = [&](size_t sectors) {
    const S challenge = S::object(
        {{"leaf_index", S::number()}, {"leaf", fr()}, {"path", S::array(kMaxPathLength, fr())}});
    const S proof = S::object({{"sector_id", S::number()},
                               {"comm_c", fr()},
                               {"comm_r_last", fr()},
                               {"challenges", S::array(kMaxChallenges, challenge)}});
    return S::object(
        {{"type", S::string(0, 32)},
         {"version", S::number()},
         {"shape",
          S::object(
              {{"nodes", S::number()}, {"sectors", S::number()}, {"challenges", S::number()}})},
         {"randomness", S::string(0, 66)},
         {"sectors", S::array(sectors, S::object({{"id", S::number()}, {"comm_r", fr()}}))},
         {"proofs", S::array(sectors, proof)}});
  };
  static const S window = make(size_t{kMaxPartitions} * kMaxSectorsPerPartition);
  static const S winning = make(kMaxWinningSet);
  return kind == Kind::kWindow ? window : winning;
}

Result<VanillaProofs> decode_request(Kind kind, std::span<const uint8_t> bytes,
                                     const std::string& what) {
  return plugins::decode_request(
      bytes, what, &request_shape(kind),
      [kind](std::span<const uint8_t> b, const std::string& w) {
        return decode_vanilla(kind, b, w);
      },
      [kind](const json& j, const std::string& w) { return vanilla_from_json(kind, j, w); });
}

}  // namespace zkpipe::post
