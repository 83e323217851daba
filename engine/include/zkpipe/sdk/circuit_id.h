// zkpipe/sdk/circuit_id.h: what a circuit id may be (abi/proof_type.h, zkp_job_info.circuit_id):
// [a-zA-Z0-9._-]+, under ZKP_CIRCUIT_ID_BYTES (96) bytes, and neither "." nor "..". The engine
// names params files after it (params.dir/<id>.params), so one check serves the SDK's glue (a
// plugin's id before it crosses the ABI), the engine's proof-type adapter (the id a plugin
// returned) and the gRPC layer (an id a client sent). Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "zkpipe/sdk/abi/proof_type.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe {

inline bool valid_circuit_id(std::string_view id) {
  if (id.empty() || id.size() >= ZKP_CIRCUIT_ID_BYTES || id == "." || id == "..") return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// OK, or INVALID_ARGUMENT "<what>: '<id>' is not a circuit id ([a-zA-Z0-9._-]+, under 96 bytes)".
inline Status check_circuit_id(std::string_view id, std::string_view what) {
  if (valid_circuit_id(id)) return Status();
  return invalid_argument(std::string(what) + ": '" + echo_value(id) +
                          "' is not a circuit id ([a-zA-Z0-9._-]+, under " +
                          std::to_string(ZKP_CIRCUIT_ID_BYTES) + " bytes, not . or ..)");
}

}  // namespace zkpipe
