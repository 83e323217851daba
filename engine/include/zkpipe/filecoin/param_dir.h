// zkpipe/filecoin/param_dir.h: Filecoin's parameter directory and its manifest. Filecoin's
// provers read their Groth16 parameters (.params), verifying keys (.vk) and SRS files from
// $FIL_PROOFS_PARAMETER_CACHE, default /var/tmp/filecoin-proof-parameters; parameters.json
// (rust-fil-proofs', built in: engine/filecoin/parameters.json) names each file with its IPFS cid,
// sector size and digest: the first 16 bytes (32 hex digits) of the file's BLAKE2b-512.
// Library zkpipe::filecoin. Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/sdk/status.h"

namespace zkpipe::filecoin {

inline constexpr const char* kDefaultParameterDir = "/var/tmp/filecoin-proof-parameters";

// $FIL_PROOFS_PARAMETER_CACHE when set and not empty, else kDefaultParameterDir.
std::string parameter_dir();

struct ParamFile {
  std::string name, cid, digest;  // digest: 32 lower-case hex digits
  uint64_t sector_size = 0;
};

// A parameters.json text; `what` (its path) prefixes errors naming the entry and field.
Result<std::vector<ParamFile>> parse_parameters_json(std::string_view text,
                                                     const std::string& what);
// rust-fil-proofs' parameters.json as built in (44 files).
const std::vector<ParamFile>& filecoin_parameters();

// The manifest digest of a file, streamed in 8 MiB reads (a 32GiB .params is 44 GiB);
// `progress(bytes done, bytes total)` after each read. NOT_FOUND / INVALID_ARGUMENT naming it.
Result<std::string> param_file_digest(const std::string& path,
                                      const std::function<void(uint64_t, uint64_t)>& progress = {});

enum class ParamState { kOk, kMismatch, kMissing, kUnknown };
std::string_view param_state_name(ParamState s);  // "ok", "mismatch", "missing", "unknown"

struct ParamCheck {
  std::string name;
  ParamState state = ParamState::kMissing;
  std::string expected, actual;  // digests (actual empty unless the file was read)
  uint64_t bytes = 0;
};

// Every manifest entry against `dir` (ok, mismatch or missing, in manifest order), then the
// files in `dir` the manifest does not name whose names look like Filecoin's (v28-*: unknown).
// NOT_FOUND when `dir` is not a readable directory.
Result<std::vector<ParamCheck>> check_parameter_dir(
    const std::string& dir, const std::vector<ParamFile>& manifest,
    const std::function<void(const std::string&, uint64_t, uint64_t)>& progress = {});

}  // namespace zkpipe::filecoin
