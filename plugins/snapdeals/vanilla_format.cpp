// SnapDeals vanilla proofs: binary layout and JSON (zkpipe/snapdeals/vanilla.h).
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/byte_io.h"
#include "zkpipe/sdk/json_fields.h"
#include "zkpipe/sdk/json_shape.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace zkpipe::snapdeals {
namespace {

using nlohmann::json;
using plugins::fr_hex;
using plugins::fr_hexes;

void name_preset(Shape& s) {
  porep::name_after(s, shape_presets());
}

Fr* commitments(Commitments& c, size_t i) {
  Fr* all[6] = {&c.comm_r_old, &c.comm_d_new,      &c.comm_r_new,
                &c.comm_c,     &c.comm_r_last_old, &c.comm_r_last_new};
  return all[i];
}
constexpr const char* kCommNames[6] = {"comm_r_old", "comm_d_new",      "comm_r_new",
                                       "comm_c",     "comm_r_last_old", "comm_r_last_new"};

}  // namespace

std::vector<uint8_t> encode_vanilla(const VanillaProofs& v) {
  plugins::Writer w;
  plugins::write_vanilla_header(w, kVanillaTypeSnapdeals);
  w.u64(v.shape.nodes);
  w.u32(v.shape.h);
  w.u32(v.shape.challenges);
  w.u32(v.shape.partitions);
  Commitments c = v.comms;
  for (size_t i = 0; i < 6; ++i) w.fr(*commitments(c, i));
  w.u32(static_cast<uint32_t>(v.partitions.size()));
  for (const PartitionProof& part : v.partitions) {
    w.u32(part.partition);
    for (const ChallengeProof& p : part.challenges) {
      w.u64(p.challenge);
      w.fr(p.data);
      w.frs(p.data_path);
      w.fr(p.old_replica);
      w.frs(p.old_path);
      w.fr(p.new_replica);
      w.frs(p.new_path);
    }
  }
  return std::move(w.out);
}

Result<VanillaProofs> decode_vanilla(std::span<const uint8_t> bytes, const std::string& what) {
  plugins::Reader r(bytes, what);
  ZKP_RETURN_IF_ERROR(plugins::read_vanilla_header(r, bytes, kVanillaTypeSnapdeals, "snapdeals"));
  VanillaProofs v;
  ZKP_ASSIGN_OR_RETURN(v.shape.nodes, r.u64("the shape's nodes"));
  ZKP_ASSIGN_OR_RETURN(v.shape.h, r.u32("the shape's h"));
  ZKP_ASSIGN_OR_RETURN(v.shape.challenges, r.u32("the shape's challenges"));
  ZKP_ASSIGN_OR_RETURN(v.shape.partitions, r.u32("the shape's partitions"));
  name_preset(v.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": the shape at byte offset 16"));
  for (size_t i = 0; i < 6; ++i) {
    ZKP_ASSIGN_OR_RETURN(*commitments(v.comms, i), r.fr(kCommNames[i]));
  }
  ZKP_ASSIGN_OR_RETURN(uint32_t count, r.u32("the partition count"));
  if (count == 0 || count > v.shape.partitions) {
    return r.error("partition count " + std::to_string(count) + " is not in [1, " +
                   std::to_string(v.shape.partitions) + "]");
  }
  const uint64_t path = gadgets::poseidon_path_length(v.shape.nodes);
  const uint64_t challenge = 8 + 32 * (3 + v.shape.depth() + 2 * path);
  const uint64_t expected = r.pos() + count * (4 + challenge * v.shape.challenges);
  if (bytes.size() != expected) {
    return r.error("the file is " + std::to_string(bytes.size()) + " bytes; " +
                   std::to_string(count) + " partition(s) of this shape need exactly " +
                   std::to_string(expected) + (bytes.size() < expected ? " (truncated)" : ""));
  }
  v.partitions.resize(count);
  for (PartitionProof& part : v.partitions) {
    ZKP_ASSIGN_OR_RETURN(part.partition, r.u32("the partition index"));
    if (part.partition >= v.shape.partitions) {
      return r.error("partition index " + std::to_string(part.partition) +
                     " is not below the shape's " + std::to_string(v.shape.partitions));
    }
    part.challenges.resize(v.shape.challenges);
    for (uint32_t j = 0; j < v.shape.challenges; ++j) {
      ChallengeProof& p = part.challenges[j];
      const std::string where =
          "partition " + std::to_string(part.partition) + " challenge " + std::to_string(j);
      ZKP_ASSIGN_OR_RETURN(p.challenge, r.u64(where + " index"));
      if (p.challenge >= v.shape.nodes) return r.error(where + ": outside the sector");
      ZKP_ASSIGN_OR_RETURN(p.data, r.fr(where + " data"));
      ZKP_RETURN_IF_ERROR(r.frs(p.data_path, v.shape.depth(), where + " tree D path"));
      ZKP_ASSIGN_OR_RETURN(p.old_replica, r.fr(where + " sector key"));
      ZKP_RETURN_IF_ERROR(r.frs(p.old_path, path, where + " old tree R path"));
      ZKP_ASSIGN_OR_RETURN(p.new_replica, r.fr(where + " new replica"));
      ZKP_RETURN_IF_ERROR(r.frs(p.new_path, path, where + " new tree R path"));
    }
  }
  return v;
}

json vanilla_to_json(const VanillaProofs& v) {
  json parts = json::array();
  for (const PartitionProof& part : v.partitions) {
    json challenges = json::array();
    for (const ChallengeProof& p : part.challenges) {
      challenges.push_back({{"challenge", p.challenge},
                            {"data", fr_hex(p.data)},
                            {"data_path", fr_hexes(p.data_path)},
                            {"old_replica", fr_hex(p.old_replica)},
                            {"old_path", fr_hexes(p.old_path)},
                            {"new_replica", fr_hex(p.new_replica)},
                            {"new_path", fr_hexes(p.new_path)}});
    }
    parts.push_back({{"partition", part.partition}, {"challenges", challenges}});
  }
  json j = {{"type", "snapdeals"},
            {"version", plugins::kVanillaVersion},
            {"shape",
             {{"nodes", v.shape.nodes},
              {"h", v.shape.h},
              {"challenges", v.shape.challenges},
              {"partitions", v.shape.partitions}}},
            {"partitions", parts}};
  Commitments c = v.comms;
  for (size_t i = 0; i < 6; ++i) j[kCommNames[i]] = fr_hex(*commitments(c, i));
  return j;
}

const plugins::JsonShape& request_shape() {
  using S = plugins::JsonShape;
  // Bounds from validate_shape: nodes <= 2^36 (SHA-256 paths of 36, Poseidon paths of 7 x 12),
  // 1024 challenges, 64 partitions. Field elements: "0x" + 64 hex digits.
  static const S shape = [] {
    auto fr = [] { return S::string(0, 66); };
    auto frs = [&](size_t n) { return S::array(n, fr()); };
    const S challenge = S::object({{"challenge", S::number()},
                                   {"data", fr()},
                                   {"data_path", frs(36)},
                                   {"old_replica", fr()},
                                   {"old_path", frs(84)},
                                   {"new_replica", fr()},
                                   {"new_path", frs(84)}});
    const S partition =
        S::object({{"partition", S::number()}, {"challenges", S::array(1024, challenge)}});
    std::vector<std::pair<std::string, S>> fields = {
        {"type", S::string(0, 32)},
        {"version", S::number()},
        {"shape", S::object({{"nodes", S::number()},
                             {"h", S::number()},
                             {"challenges", S::number()},
                             {"partitions", S::number()}})},
        {"partitions", S::array(64, partition)}};
    for (const char* name : kCommNames) fields.emplace_back(name, fr());
    return S::object(std::move(fields));
  }();
  return shape;
}

Result<VanillaProofs> vanilla_from_json(const json& j, const std::string& what) {
  plugins::JsonReader r(what);
  ZKP_RETURN_IF_ERROR(
      r.only_keys(j, "",
                  {"type", "version", "shape", kCommNames[0], kCommNames[1], kCommNames[2],
                   kCommNames[3], kCommNames[4], kCommNames[5], "partitions"}));
  ZKP_ASSIGN_OR_RETURN(const json* type, r.at(j, "type", ""));
  if (*type != "snapdeals") return r.error(".type", "must be \"snapdeals\"");
  ZKP_ASSIGN_OR_RETURN(uint32_t version, r.u32(j, "version", ""));
  if (version != plugins::kVanillaVersion) return r.error(".version", "unsupported version");
  VanillaProofs v;
  ZKP_ASSIGN_OR_RETURN(const json* shape, r.at(j, "shape", ""));
  ZKP_RETURN_IF_ERROR(r.only_keys(*shape, ".shape", {"nodes", "h", "challenges", "partitions"}));
  ZKP_ASSIGN_OR_RETURN(v.shape.nodes, r.u64(*shape, "nodes", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.h, r.u32(*shape, "h", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.challenges, r.u32(*shape, "challenges", ".shape"));
  ZKP_ASSIGN_OR_RETURN(v.shape.partitions, r.u32(*shape, "partitions", ".shape"));
  name_preset(v.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": .shape"));
  for (size_t i = 0; i < 6; ++i) {
    ZKP_ASSIGN_OR_RETURN(*commitments(v.comms, i), r.fr(j, kCommNames[i], ""));
  }
  ZKP_ASSIGN_OR_RETURN(const json* parts, r.at(j, "partitions", ""));
  if (!parts->is_array() || parts->empty()) {
    return r.error(".partitions", "must be an array of 1 to shape.partitions entries");
  }
  if (parts->size() > v.shape.partitions) {
    return r.error(".partitions", "holds " + std::to_string(parts->size()) +
                                      " partitions; shape.partitions is " +
                                      std::to_string(v.shape.partitions));
  }
  const size_t path = gadgets::poseidon_path_length(v.shape.nodes);
  for (size_t k = 0; k < parts->size(); ++k) {
    const json& pj = (*parts)[k];
    const std::string pp = ".partitions[" + std::to_string(k) + "]";
    PartitionProof part;
    ZKP_RETURN_IF_ERROR(r.only_keys(pj, pp, {"partition", "challenges"}));
    ZKP_ASSIGN_OR_RETURN(part.partition, r.u32(pj, "partition", pp));
    ZKP_ASSIGN_OR_RETURN(const json* cs, r.at(pj, "challenges", pp));
    if (!cs->is_array() || cs->size() != v.shape.challenges) {
      return r.error(pp + ".challenges", "must be an array of shape.challenges entries");
    }
    for (size_t c = 0; c < cs->size(); ++c) {
      const json& cj = (*cs)[c];
      const std::string cp = pp + ".challenges[" + std::to_string(c) + "]";
      ChallengeProof p{};
      ZKP_RETURN_IF_ERROR(r.only_keys(cj, cp,
                                      {"challenge", "data", "data_path", "old_replica", "old_path",
                                       "new_replica", "new_path"}));
      ZKP_ASSIGN_OR_RETURN(p.challenge, r.u64(cj, "challenge", cp));
      if (p.challenge >= v.shape.nodes) return r.error(cp + ".challenge", "outside the sector");
      ZKP_ASSIGN_OR_RETURN(p.data, r.fr(cj, "data", cp));
      ZKP_RETURN_IF_ERROR(r.frs(cj, "data_path", cp, v.shape.depth(), p.data_path));
      ZKP_ASSIGN_OR_RETURN(p.old_replica, r.fr(cj, "old_replica", cp));
      ZKP_RETURN_IF_ERROR(r.frs(cj, "old_path", cp, path, p.old_path));
      ZKP_ASSIGN_OR_RETURN(p.new_replica, r.fr(cj, "new_replica", cp));
      ZKP_RETURN_IF_ERROR(r.frs(cj, "new_path", cp, path, p.new_path));
      part.challenges.push_back(std::move(p));
    }
    v.partitions.push_back(std::move(part));
  }
  return v;
}

}  // namespace zkpipe::snapdeals
