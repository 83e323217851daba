// zkpipe/filecoin/commd.h: comm_d, Filecoin's data commitment: the root of a binary Merkle tree
// over the fr32-padded data, 32 bytes a leaf, each node sha256_trunc254(left || right)
// (zkpipe/filecoin/hashes.h). A piece of all zeros has a commitment that depends only on its
// size (go-commp-utils' zerocomm table).
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>

#include "zkpipe/filecoin/hashes.h"

namespace zkpipe::filecoin {

// The root over already padded bytes: a power of two of 32-byte leaves (at least one).
// INVALID_ARGUMENT naming the size otherwise.
Result<Domain> comm_d_padded(std::span<const uint8_t> padded);

// fr32-pads `data` (a multiple of 127 bytes whose padded size is a power of two) and commits.
Result<Domain> comm_d_of_data(std::span<const uint8_t> data);

// The commitment of `padded_size` zero bytes (a power of two, at least 32): 32 zero bytes, then
// hashed with itself once per level. INVALID_ARGUMENT for another size.
Result<Domain> zero_piece_comm(uint64_t padded_size);

}  // namespace zkpipe::filecoin
