// zkpipe/filecoin/description.h: a proof description (DESC), the JSON object a user gives
// `zkpipe-tool filecoin inputs|verify` to name a proof and its public values:
//   PoRep: the fields of a rust-fil-proofs seal regression record: "porep_config"
//     ({sector_size, partitions, porep_id, api_version, api_features}) or "registered_proof"
//     (filecoin-proofs-api's name, e.g. "StackedDrg2KiBV1_1"), "comm_r", "comm_d", "prover_id",
//     "sector_id", "ticket", "seed";
//   Window/Winning PoSt: {"registered_proof", "randomness", "prover_id", "sectors":
//     [{"sector_id", "comm_r"}]};
//   SnapDeals: {"registered_proof", "comm_r_old", "comm_d_new", "comm_r_new"}.
// Byte strings are JSON arrays of 32 numbers (as the records write them) or hex strings (with or
// without 0x). Every error names the field ("comm_r: ...", "porep_config.api_version: ...").
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "zkpipe/filecoin/porep_inputs.h"
#include "zkpipe/filecoin/post_inputs.h"

namespace zkpipe::filecoin {

enum class ProofKind { kPorep, kWindowPost, kWinningPost, kSnapDeals };
std::string_view proof_kind_name(ProofKind k);  // "PoRep", "WindowPoSt", ...

// The kind a description names: SnapDeals by "comm_r_old", PoSt by a registered_proof naming
// Window or Winning, else PoRep. `what` (a file name) prefixes errors.
Result<ProofKind> description_kind(std::string_view json_text, const std::string& what);

// A PoRep description; `what` prefixes errors ("desc.json: comm_d: ...").
Result<PorepDescription> parse_porep_description(std::string_view json_text,
                                                 const std::string& what);
// A Window or Winning PoSt description (registered_proof, randomness, prover_id, sectors).
Result<PostDescription> parse_post_description(std::string_view json_text, const std::string& what);
// A SnapDeals description (registered_proof, comm_r_old, comm_d_new, comm_r_new; "variant":
// "poseidon" for the Poseidon variant, "sha256" or absent for the one Lotus proves).
Result<UpdateDescription> parse_update_description(std::string_view json_text,
                                                   const std::string& what);

}  // namespace zkpipe::filecoin
