// zkpipe/filecoin_circuit/post_request.h: the request of the Filecoin Window and Winning PoSt
// proof types: what filecoin-proofs-api's generate_{window,winning}_post_with_vanilla takes.
//   {"registered_proof": "StackedDrgWindow2KiBV1_2",     filecoin-proofs-api's name
//    "randomness": "<32 bytes>", "prover_id": "<32 bytes>" (optional, zero by default),
//    "vanilla_proofs": ["<bytes>", ...],                 one per sector, as
//                                                        generate_single_vanilla_proof returns it
//    "sectors": [{"sector_id": N, "comm_r": "<32 bytes>"}, ...]}   optional: the verifier's
//                                                        view; when given it must match the proofs
// 32-byte values are hex (with or without 0x) or arrays of 32 numbers; a vanilla proof is hex or
// base64 (Lotus writes []byte as base64). Unknown keys are refused. Library
// zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/filecoin_circuit/vanilla_post.h"

namespace zkpipe::filecoin_circuit {

struct PostRequest {
  std::string registered_proof;  // as the request names it
  filecoin::PostDescription description;
  std::vector<SectorVanillaProof> proofs;  // proofs[i] proves description.sectors[i]
  // Filled by parse_post_request: each partition's circuit witness (the native check's product,
  // kept so synthesis does not hash every path again).
  std::vector<std::vector<PostSectorWitness>> witnesses;
};

// Parses and checks every vanilla proof natively (post_witness for every partition), so a
// request that parses proves. `winning` says which kind the proof type takes: a registered proof
// of the other kind is refused by name. INVALID_ARGUMENT naming `what` and the field.
Result<PostRequest> parse_post_request(std::span<const uint8_t> bytes, bool winning,
                                       const std::string& what);
// The request as JSON (hex everywhere): parse_post_request reads it back.
std::string encode_post_request(const PostRequest& r);

// A request over `sectors` sectors sealed here with Filecoin's SDR (zkpipe::filecoin seal_sector;
// random data and tickets from `seed`), their tree_r_last built and opened at the challenged
// leaves. Sizes up to 8MiB (a 512MiB sector takes minutes and GiBs); INVALID_ARGUMENT above.
Result<PostRequest> sample_post_request(std::string_view registered_proof, uint32_t sectors,
                                        uint64_t seed);

}  // namespace zkpipe::filecoin_circuit
