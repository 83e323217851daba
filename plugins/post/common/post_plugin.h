// post/common/post_plugin.h: what the window_post and winning_post plugins share behind the
// proof-type glue (zkpipe/sdk/proof_type_plugin.h): the parsed job, parse (decode + the native
// check, before any proving), the sample request of a preset (small sectors sealed in process
// from the seed through zkpipe::sector), the self-test's preset-table check, and the plugin's
// command line (`zkpipe-tool proof-type TYPE vanilla|shapes|help ...`). Each plugin's .cpp binds
// these to its Kind and exports the table.
// Thread-safety: reentrant; a parsed job is immutable.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shape.h"
#include "zkpipe/sdk/proof_type_plugin.h"

namespace zkpipe::post {

// Decodes a request (binary, or JSON when it starts with '{') and checks it fully.
Result<std::unique_ptr<plugins::ProofJob>> parse_request(Kind kind, std::span<const uint8_t> bytes,
                                                         const std::string& what);

// The request of a preset (its sample_sectors sectors, ids 1000, 1001, ...; randomness and
// sectors sealed from `seed`). Sectors of up to kDistinctSampleNodes nodes are each sealed;
// larger ones share kSampleReplicas sealed replicas (sealing each of 127 8MiB sectors would take
// minutes), every sector id still with its own challenges.
inline constexpr uint64_t kDistinctSampleNodes = 4096;
inline constexpr uint32_t kSampleReplicas = 2;
Result<std::vector<uint8_t>> sample_request(Kind kind, const zkp_preset& preset, uint64_t seed);

// The plugin's constant preset table is presets(kind): names, order and partitions.
Status check_preset_table(Kind kind, std::span<const zkp_preset> table);

// The command line; args[0] is the type's name. Exit codes: 0 done, 1 failure, 2 bad usage or
// input.
int run_command(Kind kind, std::span<const std::string> args);

}  // namespace zkpipe::post
