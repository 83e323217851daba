// zkpipe/filecoin/proof_format.h: Filecoin's Groth16 proof bytes and verifying keys. A proof of
// n partitions is n bellperson proofs of 192 bytes (A G1, B G2, C G1, compressed) concatenated
// in partition order (filecoin-proofs' seal and PoSt outputs; SnarkPack aggregates, as
// NonInteractivePoRep writes, are another format, not read here). A verifying key comes as a
// bellperson .vk file (groth16::decode_verifying_key: uncompressed points) or in the compressed
// layout polka-storage uses (the same fields in the same order, compressed points, a u32
// big-endian IC count).
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zkpipe/groth16/keys.h"

namespace zkpipe::filecoin {

// `partitions` proofs (0: as many as the length holds). INVALID_ARGUMENT when the length is not
// 192 per partition, or a point is malformed: the message names the partition, the element and
// the byte offset.
Result<std::vector<groth16::Proof>> decode_proofs(std::span<const uint8_t> bytes,
                                                  size_t partitions = 0);
std::vector<uint8_t> encode_proofs(std::span<const groth16::Proof> proofs);

// The compressed layout: 3 G1 + 3 G2 compressed (alpha_g1, beta_g1, beta_g2, gamma_g2,
// delta_g1, delta_g2), u32 big-endian IC count, IC points compressed (436 + 48 n bytes).
Result<groth16::VerifyingKey> decode_compressed_verifying_key(std::span<const uint8_t> bytes);
std::vector<uint8_t> encode_compressed_verifying_key(const groth16::VerifyingKey& vk);

// Either form, told apart by length (bellperson: 868 + 96 n; compressed: 436 + 48 n) and by
// the compression flag of the first point.
Result<groth16::VerifyingKey> decode_any_verifying_key(std::span<const uint8_t> bytes);

}  // namespace zkpipe::filecoin
