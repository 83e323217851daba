// Vanilla proofs as JSON, for small sectors and for reading by eye (zkpipe/porep/vanilla.h).
// Field elements are "0x" + 64 hex digits, big-endian canonical; the seed is 64 hex digits.
#include <bit>

#include <nlohmann/json.hpp>

#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/byte_io.h"
#include "zkpipe/sdk/json_fields.h"
#include "zkpipe/sdk/json_shape.h"

namespace zkpipe::porep {
namespace {

using nlohmann::json;
using plugins::JsonReader;

using plugins::bytes_hex;
using plugins::fr_hex;
using plugins::fr_hexes;

json column_json(const ColumnOpening& c) {
  return {{"node", c.node}, {"labels", fr_hexes(c.labels)}, {"path", fr_hexes(c.path)}};
}

Status read_column(const JsonReader& r, const json& v, const Shape& shape, const std::string& path,
                   ColumnOpening& c) {
  ZKP_RETURN_IF_ERROR(r.only_keys(v, path, {"node", "labels", "path"}));
  ZKP_ASSIGN_OR_RETURN(c.node, r.u64(v, "node", path));
  if (c.node >= shape.nodes) return r.error(path + ".node", "outside the sector");
  ZKP_RETURN_IF_ERROR(r.frs(v, "labels", path, shape.layers, c.labels));
  return r.frs(v, "path", path, gadgets::poseidon_path_length(shape.nodes), c.path);
}

}  // namespace

json vanilla_to_json(const VanillaProofs& v) {
  json parts = json::array();
  for (const PartitionProof& part : v.partitions) {
    json challenges = json::array();
    for (const ChallengeProof& p : part.challenges) {
      json parents = json::array();
      for (const ColumnOpening& c : p.parents) parents.push_back(column_json(c));
      challenges.push_back({{"challenge", p.challenge},
                            {"data", fr_hex(p.data)},
                            {"data_path", fr_hexes(p.data_path)},
                            {"replica", fr_hex(p.replica)},
                            {"replica_path", fr_hexes(p.replica_path)},
                            {"column", column_json(p.column)},
                            {"parents", parents}});
    }
    parts.push_back({{"partition", part.partition}, {"challenges", challenges}});
  }
  return {{"type", "porep"},
          {"version", plugins::kVanillaVersion},
          {"shape",
           {{"nodes", v.shape.nodes},
            {"layers", v.shape.layers},
            {"base_degree", v.shape.base_degree},
            {"expansion_degree", v.shape.expansion_degree},
            {"challenges", v.shape.challenges},
            {"partitions", v.shape.partitions}}},
          {"challenge_seed", bytes_hex(v.challenge_seed)},
          {"replica_id", fr_hex(v.replica_id)},
          {"comm_d", fr_hex(v.comms.comm_d)},
          {"comm_c", fr_hex(v.comms.comm_c)},
          {"comm_r_last", fr_hex(v.comms.comm_r_last)},
          {"comm_r", fr_hex(v.comms.comm_r)},
          {"partitions", parts}};
}

const plugins::JsonShape& request_shape() {
  using S = plugins::JsonShape;
  // Bounds from validate_shape: nodes <= 2^36 (SHA-256 paths of 36, Poseidon paths of 7 x 12),
  // 11 layers, 32 + 32 parents, 1024 challenges, 64 partitions. Field elements: "0x" + 64 hex.
  static const S shape = [] {
    auto fr = [] { return S::string(0, 66); };
    auto frs = [&](size_t n) { return S::array(n, fr()); };
    const S column = S::object({{"node", S::number()}, {"labels", frs(11)}, {"path", frs(84)}});
    const S challenge = S::object({{"challenge", S::number()},
                                   {"data", fr()},
                                   {"data_path", frs(36)},
                                   {"replica", fr()},
                                   {"replica_path", frs(84)},
                                   {"column", column},
                                   {"parents", S::array(64, column)}});
    const S partition =
        S::object({{"partition", S::number()}, {"challenges", S::array(1024, challenge)}});
    return S::object({{"type", S::string(0, 32)},
                      {"version", S::number()},
                      {"shape", S::object({{"nodes", S::number()},
                                           {"layers", S::number()},
                                           {"base_degree", S::number()},
                                           {"expansion_degree", S::number()},
                                           {"challenges", S::number()},
                                           {"partitions", S::number()}})},
                      {"challenge_seed", S::string(0, 66)},
                      {"replica_id", fr()},
                      {"comm_d", fr()},
                      {"comm_c", fr()},
                      {"comm_r_last", fr()},
                      {"comm_r", fr()},
                      {"partitions", S::array(64, partition)}});
  }();
  return shape;
}

Result<VanillaProofs> vanilla_from_json(const json& j, const std::string& what) {
  JsonReader r(what);
  ZKP_RETURN_IF_ERROR(r.only_keys(j, "",
                                  {"type", "version", "shape", "challenge_seed", "replica_id",
                                   "comm_d", "comm_c", "comm_r_last", "comm_r", "partitions"}));
  ZKP_ASSIGN_OR_RETURN(const json* type, r.at(j, "type", ""));
  if (*type != "porep") return r.error(".type", "must be \"porep\"");
  ZKP_ASSIGN_OR_RETURN(uint32_t version, r.u32(j, "version", ""));
  if (version != plugins::kVanillaVersion) return r.error(".version", "unsupported version");
  VanillaProofs v;
  ZKP_ASSIGN_OR_RETURN(const json* shape, r.at(j, "shape", ""));
  ZKP_RETURN_IF_ERROR(r.only_keys(
      *shape, ".shape",
      {"nodes", "layers", "base_degree", "expansion_degree", "challenges", "partitions"}));
  ZKP_ASSIGN_OR_RETURN(v.shape.nodes, r.u64(*shape, "nodes", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.layers, r.u32(*shape, "layers", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.base_degree, r.u32(*shape, "base_degree", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.expansion_degree, r.u32(*shape, "expansion_degree", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.challenges, r.u32(*shape, "challenges", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.partitions, r.u32(*shape, "partitions", ".shape"));
  name_after_preset(v.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": .shape"));
  ZKP_RETURN_IF_ERROR(r.bytes32(j, "challenge_seed", "", v.challenge_seed));
  ZKP_ASSIGN_OR_RETURN(v.replica_id, r.fr(j, "replica_id", ""));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_d, r.fr(j, "comm_d", ""));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_c, r.fr(j, "comm_c", ""));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_r_last, r.fr(j, "comm_r_last", ""));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_r, r.fr(j, "comm_r", ""));
  ZKP_ASSIGN_OR_RETURN(const json* parts, r.at(j, "partitions", ""));
  if (!parts->is_array() || parts->empty()) {
    return r.error(".partitions", "must be an array of 1 to shape.partitions entries");
  }
  if (parts->size() > v.shape.partitions) {
    return r.error(".partitions", "holds " + std::to_string(parts->size()) +
                                      " partitions; shape.partitions is " +
                                      std::to_string(v.shape.partitions));
  }
  const size_t depth_d = gadgets::sha_path_length(v.shape.nodes);
  const size_t path_c = gadgets::poseidon_path_length(v.shape.nodes);
  for (size_t k = 0; k < parts->size(); ++k) {
    const json& pj = (*parts)[k];
    std::string pp = ".partitions[" + std::to_string(k) + "]";
    PartitionProof part;
    ZKP_RETURN_IF_ERROR(r.only_keys(pj, pp, {"partition", "challenges"}));
    ZKP_ASSIGN_OR_RETURN(part.partition, r.u32(pj, "partition", pp));
    ZKP_ASSIGN_OR_RETURN(const json* cs, r.at(pj, "challenges", pp));
    if (!cs->is_array() || cs->size() != v.shape.challenges) {
      return r.error(pp + ".challenges", "must be an array of shape.challenges entries");
    }
    for (size_t c = 0; c < cs->size(); ++c) {
      const json& cj = (*cs)[c];
      std::string cp = pp + ".challenges[" + std::to_string(c) + "]";
      ChallengeProof p;
      ZKP_RETURN_IF_ERROR(r.only_keys(
          cj, cp,
          {"challenge", "data", "data_path", "replica", "replica_path", "column", "parents"}));
      ZKP_ASSIGN_OR_RETURN(p.challenge, r.u64(cj, "challenge", cp));
      ZKP_ASSIGN_OR_RETURN(p.data, r.fr(cj, "data", cp));
      ZKP_RETURN_IF_ERROR(r.frs(cj, "data_path", cp, depth_d, p.data_path));
      ZKP_ASSIGN_OR_RETURN(p.replica, r.fr(cj, "replica", cp));
      ZKP_RETURN_IF_ERROR(r.frs(cj, "replica_path", cp, path_c, p.replica_path));
      ZKP_ASSIGN_OR_RETURN(const json* col, r.at(cj, "column", cp));
      ZKP_RETURN_IF_ERROR(read_column(r, *col, v.shape, cp + ".column", p.column));
      ZKP_ASSIGN_OR_RETURN(const json* ps, r.at(cj, "parents", cp));
      if (!ps->is_array() || ps->size() != v.shape.parents()) {
        return r.error(cp + ".parents",
                       "must be an array of " + std::to_string(v.shape.parents()) + " columns");
      }
      p.parents.resize(ps->size());
      for (size_t q = 0; q < ps->size(); ++q) {
        ZKP_RETURN_IF_ERROR(read_column(r, (*ps)[q], v.shape,
                                        cp + ".parents[" + std::to_string(q) + "]", p.parents[q]));
      }
      part.challenges.push_back(std::move(p));
    }
    v.partitions.push_back(std::move(part));
  }
  return v;
}

}  // namespace zkpipe::porep
