// store_common.h: private to engine/store. What both stores share: the SHA-256 of inputs, the
// back-off of a failed attempt, a connection string without its password for messages.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "zkpipe/sdk/sha256.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::store {

// SHA-256 of inputs and hex, the tree's one helper (zkpipe/sdk/sha256.h).
using Digest = Sha256Digest;
inline std::string hex(std::span<const uint8_t> bytes) {
  return to_hex(bytes);
}

// The wait before attempt `attempts + 1` after a failed attempt: base * 2^(attempts - 1),
// at most one minute.
int64_t backoff_ms(const StoreConfig& config, uint32_t attempts);

// "host=db1 dbname=zkpipe user=prover" from a conninfo, with any password left out.
std::string conninfo_for_messages(const std::string& conninfo);

// The state's stored word; nullopt for a word that is not one.

}  // namespace zkpipe::store
