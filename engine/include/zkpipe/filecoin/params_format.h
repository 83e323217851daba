// zkpipe/filecoin/params_format.h: bellperson's Groth16 parameter file (.params), the file
// Filecoin's provers load: the verifying key (zkpipe/groth16/keys.h encode_verifying_key: six
// uncompressed points, a u32 big-endian IC count, the IC points), then five vectors, each a u32
// big-endian count and that many uncompressed points: h, l, a (G1), b_g1 (G1), b_g2 (G2). No
// point of the five vectors is the point at infinity (bellperson's setup leaves them out, its
// reader refuses them). A 32GiB sector's file is 44 GiB: read_params_layout reads only the key and
// the counts (seeking), read_params streams the points in chunks.
// Library zkpipe::filecoin. Thread-safety: reentrant (distinct files).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/groth16/keys.h"

namespace zkpipe::filecoin {

using groth16::G1Affine;
using groth16::G2Affine;
using groth16::VerifyingKey;

struct ParamsVector {
  const char* name = "";  // "h", "l", "a", "b_g1", "b_g2"
  uint32_t count = 0;
  uint64_t offset = 0;       // of its first point (after the count)
  uint32_t point_bytes = 0;  // 96 (G1) or 192 (G2)
};

struct ParamsLayout {
  VerifyingKey vk;
  std::array<ParamsVector, 5> vectors;  // h, l, a, b_g1, b_g2, in file order
  uint64_t file_bytes = 0;
};

// The key and the five counts; INVALID_ARGUMENT naming the file, the field and its offset when
// the file is shorter or longer than they say, or a key point is malformed.
Result<ParamsLayout> read_params_layout(const std::string& path);

struct BellpersonParams {
  VerifyingKey vk;
  std::vector<G1Affine> h, l, a, b_g1;
  std::vector<G2Affine> b_g2;

  bool operator==(const BellpersonParams&) const = default;
};

// The whole file. `checked`: every point canonical, on the curve and in the subgroup (as
// bellperson's checked read); unchecked still refuses non-canonical coordinates, points off the
// curve and points at infinity (a digest check, filecoin_params.h, vouches for the rest).
// Errors name the file, the vector, the point index and its offset. Chunks of 4,096 points are
// read and decoded on `threads` threads (0: all hardware threads).
Result<BellpersonParams> read_params(const std::string& path, bool checked = true,
                                     unsigned threads = 1);

// Where read_params_into puts the five vectors: spans of exactly their counts (the engine's
// params cache points them into a backend buffer, so a 44 GiB file is decoded once, straight
// into the memory the prover reads).
struct ParamsTargets {
  std::span<G1Affine> h, l, a, b_g1;
  std::span<G2Affine> b_g2;
};
// Streams the points of `layout` (read_params_layout of `path`) into `out`, as read_params
// checks them; INVALID_ARGUMENT when a span's size differs from its vector's count.
Status read_params_into(const std::string& path, const ParamsLayout& layout, bool checked,
                        const ParamsTargets& out, unsigned threads = 1);

// Writes `params` in the layout above (write_output_file semantics: nothing replaced on error).
// INVALID_ARGUMENT when a vector holds the point at infinity.
Status write_params(const std::string& path, const BellpersonParams& params);

// A proving key of ours (groth16::setup) in bellperson's vectors: its a/b queries are already
// the density-filtered ones bellperson stores.
BellpersonParams params_from_proving_key(const groth16::ProvingKey& pk);

// The .params size its counts imply.
uint64_t params_file_bytes(size_t ic, size_t h, size_t l, size_t a, size_t b);

}  // namespace zkpipe::filecoin
