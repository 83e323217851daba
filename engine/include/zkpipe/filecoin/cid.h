// zkpipe/filecoin/cid.h: the commitments inside Filecoin's CIDs, as Lotus writes them
// (go-fil-commcid): multibase 'b' (RFC 4648 base32, lower case, no padding) of CIDv1 0x01,
// the codec (fil-commitment-sealed 0xf102 for comm_r, fil-commitment-unsealed 0xf101 for comm_d),
// the multihash (poseidon-bls12_381-a2-fc1 0xb401, sha2-256-trunc254-padded 0x1012), length
// 32 and the commitment's 32 bytes. Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "zkpipe/filecoin/hashes.h"

namespace zkpipe::filecoin {

// comm_r of a SealedCID; INVALID_ARGUMENT naming `what` for another multibase, codec, hash or
// length, or a commitment that is not a canonical Fr.
Result<Domain> comm_r_from_cid(std::string_view cid, const std::string& what);
// comm_d of an UnsealedCID (a piece CID); the same errors.
Result<Domain> comm_d_from_cid(std::string_view cid, const std::string& what);

}  // namespace zkpipe::filecoin
