// The filecoin_porep proof type's request (zkpipe/filecoin_circuit/porep_request.h).
#include "zkpipe/filecoin_circuit/porep_request.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "text_bytes.h"
#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

using nlohmann::json;

// 32 bytes: an array of numbers or a hex string (optional 0x).
Result<filecoin::Bytes32> bytes32(const json& v, const std::string& field) {
  filecoin::Bytes32 out{};
  if (v.is_array() && v.size() == 32) {
    for (size_t i = 0; i < 32; ++i) {
      if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() > 255) {
        return invalid_argument(field + "[" + std::to_string(i) + "]: not a byte");
      }
      out[i] = static_cast<uint8_t>(v[i].get<uint64_t>());
    }
    return out;
  }
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.rfind("0x", 0) == 0) s = s.substr(2);
    if (s.size() == 64) {
      bool ok = true;
      for (size_t i = 0; i < 32 && ok; ++i) {
        const int hi = filecoin::hex_digit(s[2 * i]), lo = filecoin::hex_digit(s[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        out[i] = static_cast<uint8_t>(hi * 16 + lo);
      }
      if (ok) return out;
    }
  }
  return invalid_argument(field + ": not 32 bytes (an array of numbers or 64 hex digits)");
}

}  // namespace

Result<PorepCircuitShape> porep_circuit_shape(const filecoin::PorepConfig& config) {
  ZKP_ASSIGN_OR_RETURN(filecoin::SectorShape s, filecoin::sector_shape(config.sector_size));
  if (config.has(filecoin::PorepFeature::kSyntheticPoRep) ||
      config.has(filecoin::PorepFeature::kNonInteractivePoRep)) {
    return invalid_argument(
        "only interactive PoRep is supported (not SyntheticPoRep or "
        "NonInteractivePoRep)");
  }
  PorepCircuitShape c;
  c.nodes = s.nodes;
  c.arities = {s.base_arity, s.sub_arity, s.top_arity};
  c.layers = s.layers;
  c.partitions = config.partitions;
  c.challenges = (s.min_challenges + config.partitions - 1) / config.partitions;
  return c;
}

Result<PorepRequest> parse_porep_request(std::span<const uint8_t> bytes, const std::string& what) {
  PorepRequest r;
  const size_t first =
      std::find_if(bytes.begin(), bytes.end(),
                   [](uint8_t c) { return c != ' ' && c != '\t' && c != '\n' && c != '\r'; }) -
      bytes.begin();
  const json j = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    // Not a JSON object: curio's binary C1 output (which may begin with '{' by chance: the JSON
    // error is reported only when the bytes look like JSON and are not that either).
    Result<Commit1Output> binary = parse_commit1_binary(bytes, what);
    if (!binary.ok() && first < bytes.size() &&
        (bytes[first] == '{' || bytes[first] == '[' || bytes[first] == '"')) {
      return invalid_argument(what + ": not a JSON object (nor curio's binary C1 output)");
    }
    ZKP_ASSIGN_OR_RETURN(r.c1, std::move(binary));
  } else if (j.contains("commit1_output")) {
    for (const auto& [key, value] : j.items()) {
      if (key != "commit1_output" && key != "prover_id" && key != "sector_id") {
        return invalid_argument(what + ": unknown key \"" + key +
                                "\" (known: commit1_output, prover_id, sector_id)");
      }
    }
    if (!j.contains("prover_id") || !j.contains("sector_id")) {
      return invalid_argument(what + ": commit1_output needs prover_id and sector_id beside it");
    }
    ZKP_ASSIGN_OR_RETURN(r.prover_id, bytes32(j["prover_id"], what + ": prover_id"));
    if (!j["sector_id"].is_number_unsigned()) {
      return invalid_argument(what + ": sector_id: not a non-negative number");
    }
    r.sector_id = j["sector_id"].get<uint64_t>();
    r.has_prover = true;
    if (j["commit1_output"].is_string()) {  // curio's binary form, hex or base64
      ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> bin,
                           text_bytes(j["commit1_output"], what + ": commit1_output", true));
      ZKP_ASSIGN_OR_RETURN(r.c1, parse_commit1_binary(bin, what + ": commit1_output"));
    } else {
      ZKP_ASSIGN_OR_RETURN(r.c1,
                           parse_commit1_json(j["commit1_output"], what + ": commit1_output"));
    }
  } else {  // the tree already parsed: one tree of a C1 output alive, not two
    ZKP_ASSIGN_OR_RETURN(r.c1, parse_commit1_json(j, what));
  }
  ZKP_RETURN_IF_ERROR(porep_circuit_shape(r.c1.config).status());

  filecoin::PorepDescription d;
  d.config = r.c1.config;
  d.comm_r = r.c1.comm_r;
  d.comm_d = r.c1.comm_d;
  d.ticket = r.c1.ticket;
  d.seed = r.c1.seed;
  d.prover_id = r.prover_id;
  d.sector_id = r.sector_id;
  if (r.has_prover) {
    const filecoin::Domain rid = filecoin::replica_id(r.prover_id, r.sector_id, r.c1.ticket,
                                                      r.c1.comm_d, r.c1.config.porep_id);
    if (rid != r.c1.replica_id) {
      return invalid_argument(what +
                              ": commit1_output.replica_id is not the one prover_id, sector_id, "
                              "ticket and comm_d derive (another sector's C1 output?)");
    }
    ZKP_ASSIGN_OR_RETURN(r.inputs, filecoin::porep_public_inputs(d));
  } else {
    ZKP_ASSIGN_OR_RETURN(r.inputs, filecoin::porep_inputs_for_replica(d, r.c1.replica_id));
  }
  for (uint32_t k = 0; k < r.c1.config.partitions; ++k) {
    ZKP_ASSIGN_OR_RETURN(PorepWitness w, porep_witness(r.c1, k, what));
    r.witnesses.push_back(std::move(w));
  }
  return r;
}

std::string encode_porep_request(const SampleCommit1& s) {
  const json j = {{"commit1_output", json::parse(encode_commit1_output(s.c1))},
                  {"prover_id", zkpipe::to_hex(s.prover_id)},
                  {"sector_id", s.sector_id}};
  return j.dump();
}

}  // namespace zkpipe::filecoin_circuit
