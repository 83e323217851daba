// description.cpp: proof descriptions (DESC) from JSON (zkpipe/filecoin/description.h).
#include "zkpipe/filecoin/description.h"

#include <nlohmann/json.hpp>

namespace zkpipe::filecoin {
namespace {

using nlohmann::json;

Result<Bytes32> bytes32(const json& obj, const std::string& field) {
  if (!obj.contains(field)) return invalid_argument(field + ": missing");
  const json& v = obj.at(field);
  Bytes32 out{};
  if (v.is_array()) {
    if (v.size() != 32)
      return invalid_argument(field + ": " + std::to_string(v.size()) +
                              " numbers; a byte string here has 32");
    for (size_t i = 0; i < 32; ++i) {
      if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() > 255)
        return invalid_argument(field + "[" + std::to_string(i) + "]: not a byte (0..255)");
      out[i] = static_cast<uint8_t>(v[i].get<uint64_t>());
    }
    return out;
  }
  if (v.is_string()) {
    std::string hex = v.get<std::string>();
    if (hex.rfind("0x", 0) == 0 || hex.rfind("0X", 0) == 0) hex = hex.substr(2);
    if (hex.size() != 64)
      return invalid_argument(field + ": " + std::to_string(hex.size()) +
                              " hex digits; a 32-byte string has 64");
    for (size_t i = 0; i < 32; ++i) {
      const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
      if (hi < 0 || lo < 0)
        return invalid_argument(field + ": not hex at digit " + std::to_string(2 * i));
      out[i] = static_cast<uint8_t>(hi * 16 + lo);
    }
    return out;
  }
  return invalid_argument(field + ": expected 32 bytes as an array of numbers or a hex string");
}

Result<uint64_t> u64_field(const json& obj, const std::string& field) {
  if (!obj.contains(field)) return invalid_argument(field + ": missing");
  const json& v = obj.at(field);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    size_t used = 0;
    try {
      const uint64_t x = std::stoull(s, &used, 10);
      if (used == s.size() && !s.empty() && s[0] != '-') return x;
    } catch (const std::exception&) {
    }
  }
  return invalid_argument(field + ": not an unsigned 64-bit integer");
}

Result<json> parse(std::string_view text, const std::string& what) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return invalid_argument(what + ": not valid JSON");
  if (!j.is_object()) return invalid_argument(what + ": a description is a JSON object");
  return j;
}

Result<PorepConfig> porep_config(const json& j) {
  if (j.contains("registered_proof")) {
    if (!j.at("registered_proof").is_string())
      return invalid_argument("registered_proof: not a string");
    Result<PorepConfig> c = registered_porep(j.at("registered_proof").get<std::string>());
    if (!c.ok()) return c.status().with_context("registered_proof");
    return c;
  }
  if (!j.contains("porep_config"))
    return invalid_argument("porep_config: missing (or give registered_proof)");
  const json& pc = j.at("porep_config");
  if (!pc.is_object()) return invalid_argument("porep_config: not an object");
  PorepConfig c;
  Result<uint64_t> size = u64_field(pc, "sector_size");
  if (!size.ok()) return size.status().with_context("porep_config");
  c.sector_size = *size;
  Result<uint64_t> partitions = u64_field(pc, "partitions");
  if (!partitions.ok()) return partitions.status().with_context("porep_config");
  if (*partitions == 0 || *partitions > 1024)
    return invalid_argument("porep_config.partitions: " + std::to_string(*partitions) +
                            " is not in 1..1024");
  c.partitions = static_cast<uint32_t>(*partitions);
  Result<Bytes32> id = bytes32(pc, "porep_id");
  if (!id.ok()) return id.status().with_context("porep_config");
  c.porep_id = *id;
  if (!pc.contains("api_version") || !pc.at("api_version").is_string())
    return invalid_argument("porep_config.api_version: missing or not a string");
  Result<ApiVersion> api = parse_api_version(pc.at("api_version").get<std::string>());
  if (!api.ok()) return api.status().with_context("porep_config");
  c.api_version = *api;
  if (pc.contains("api_features")) {
    const json& f = pc.at("api_features");
    if (!f.is_array()) return invalid_argument("porep_config.api_features: not an array");
    for (const json& name : f) {
      if (name == "SyntheticPoRep")
        c.features.push_back(PorepFeature::kSyntheticPoRep);
      else if (name == "NonInteractivePoRep")
        c.features.push_back(PorepFeature::kNonInteractivePoRep);
      else
        return invalid_argument("porep_config.api_features: " + name.dump() +
                                " is not SyntheticPoRep or NonInteractivePoRep");
    }
  }
  ZKP_RETURN_IF_ERROR(sector_shape(c.sector_size).status().with_context("porep_config"));
  return c;
}

}  // namespace

std::string_view proof_kind_name(ProofKind k) {
  switch (k) {
    case ProofKind::kPorep:
      return "PoRep";
    case ProofKind::kWindowPost:
      return "WindowPoSt";
    case ProofKind::kWinningPost:
      return "WinningPoSt";
    case ProofKind::kSnapDeals:
      return "SnapDeals";
  }
  return "?";
}

Result<ProofKind> description_kind(std::string_view text, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(json j, parse(text, what));
  if (j.contains("comm_r_old")) return ProofKind::kSnapDeals;
  if (j.contains("registered_proof") && j.at("registered_proof").is_string()) {
    const std::string name = j.at("registered_proof").get<std::string>();
    if (name.find("Window") != std::string::npos) return ProofKind::kWindowPost;
    if (name.find("Winning") != std::string::npos) return ProofKind::kWinningPost;
  }
  return ProofKind::kPorep;
}

Result<PorepDescription> parse_porep_description(std::string_view text, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(json j, parse(text, what));
  auto in = [&](Status s) { return s.with_context(what); };
  PorepDescription d;
  Result<PorepConfig> config = porep_config(j);
  if (!config.ok()) return in(config.status());
  d.config = std::move(config).value();
  struct Field {
    const char* name;
    Bytes32* out;
  };
  for (const Field& f :
       {Field{"comm_r", &d.comm_r}, Field{"comm_d", &d.comm_d}, Field{"prover_id", &d.prover_id},
        Field{"ticket", &d.ticket}, Field{"seed", &d.seed}}) {
    Result<Bytes32> b = bytes32(j, f.name);
    if (!b.ok()) return in(b.status());
    *f.out = *b;
  }
  Result<uint64_t> sector = u64_field(j, "sector_id");
  if (!sector.ok()) return in(sector.status());
  d.sector_id = *sector;
  return d;
}

Result<PostDescription> parse_post_description(std::string_view text, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(json j, parse(text, what));
  auto in = [&](Status s) { return s.with_context(what); };
  if (!j.contains("registered_proof") || !j.at("registered_proof").is_string())
    return in(invalid_argument("registered_proof: missing or not a string"));
  PostDescription d;
  Result<PostConfig> config = registered_post(j.at("registered_proof").get<std::string>());
  if (!config.ok()) return in(config.status().with_context("registered_proof"));
  d.config = *config;
  Result<Bytes32> randomness = bytes32(j, "randomness");
  if (!randomness.ok()) return in(randomness.status());
  d.randomness = *randomness;
  if (j.contains("prover_id")) {
    Result<Bytes32> prover = bytes32(j, "prover_id");
    if (!prover.ok()) return in(prover.status());
    d.prover_id = *prover;
  }
  if (!j.contains("sectors") || !j.at("sectors").is_array())
    return in(invalid_argument("sectors: missing or not an array"));
  const json& sectors = j.at("sectors");
  for (size_t i = 0; i < sectors.size(); ++i) {
    const std::string at = "sectors[" + std::to_string(i) + "]";
    if (!sectors[i].is_object()) return in(invalid_argument(at + ": not an object"));
    PostSector s;
    Result<uint64_t> id = u64_field(sectors[i], "sector_id");
    if (!id.ok()) return in(id.status().with_context(at));
    s.sector_id = *id;
    Result<Bytes32> comm_r = bytes32(sectors[i], "comm_r");
    if (!comm_r.ok()) return in(comm_r.status().with_context(at));
    s.comm_r = *comm_r;
    d.sectors.push_back(s);
  }
  return d;
}

Result<UpdateDescription> parse_update_description(std::string_view text, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(json j, parse(text, what));
  auto in = [&](Status s) { return s.with_context(what); };
  if (!j.contains("registered_proof") || !j.at("registered_proof").is_string())
    return in(invalid_argument("registered_proof: missing or not a string"));
  UpdateDescription d;
  Result<uint64_t> size = registered_update(j.at("registered_proof").get<std::string>());
  if (!size.ok()) return in(size.status().with_context("registered_proof"));
  d.sector_size = *size;
  if (j.contains("variant")) {
    const json& v = j.at("variant");
    if (!v.is_string() || (v.get<std::string>() != "sha256" && v.get<std::string>() != "poseidon"))
      return in(invalid_argument("variant: \"sha256\" (the default) or \"poseidon\""));
    d.poseidon = v.get<std::string>() == "poseidon";
  }
  struct Field {
    const char* name;
    Bytes32* out;
  };
  for (const Field& f : {Field{"comm_r_old", &d.comm_r_old}, Field{"comm_d_new", &d.comm_d_new},
                         Field{"comm_r_new", &d.comm_r_new}}) {
    Result<Bytes32> b = bytes32(j, f.name);
    if (!b.ok()) return in(b.status());
    *f.out = *b;
  }
  return d;
}

}  // namespace zkpipe::filecoin
