// zkpipe/crypto/serialize.h: G1/G2 points in the zcash/bellperson byte format (compressed 48/96
// bytes, uncompressed 96/192, flags in the top three bits of byte 0, G2 coordinates written c1
// then c0), with strict decoding: every malformed input is refused with its own DecodeError.
// Host only. Thread-safety: pure functions (the subgroup check reads constants that are
// computed once, thread-safely).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::crypto {

inline constexpr size_t kG1CompressedBytes = 48;
inline constexpr size_t kG1UncompressedBytes = 96;
inline constexpr size_t kG2CompressedBytes = 96;
inline constexpr size_t kG2UncompressedBytes = 192;

// Flag bits of byte 0. Every canonical coordinate leaves them free (p < 2^381).
inline constexpr uint8_t kFlagCompressed = 0x80;
inline constexpr uint8_t kFlagInfinity = 0x40;
inline constexpr uint8_t kFlagSign = 0x20;  // compressed only: y is lexicographically largest

// Why a decode failed, in the order the checks run (the first failing check wins):
//   kBadLength      the length is not the compressed or uncompressed size of the group;
//   kBadFlags       the compression bit does not match the length, the sign bit is set on an
//                   uncompressed point, or the infinity bit is set with any other bit or byte;
//   kNotCanonical   a coordinate is >= p (a decoder that reduced it would accept 2 encodings);
//   kNotOnCurve     compressed: x^3 + b has no square root; uncompressed: (x, y) off the curve;
//   kNotInSubgroup  on the curve but not in the prime-order subgroup (a cofactor component).
enum class DecodeError : uint8_t {
  kBadLength,
  kBadFlags,
  kNotCanonical,
  kNotOnCurve,
  kNotInSubgroup,
};

// "bad_length", "bad_flags", "not_canonical", "not_on_curve", "not_in_subgroup" (the reason
// names of tests/vectors/serialization_invalid.json).
std::string_view decode_error_name(DecodeError e);

struct DecodeOptions {
  // The subgroup check (a few scalar multiplications by the 64-bit curve parameter) runs by
  // default. Skip it only for input this process produced or has already validated.
  bool check_subgroup = true;

  static constexpr DecodeOptions trusted_input() { return DecodeOptions{false}; }
};

// ---- encoding: the caller's buffer holds exactly the named size -------------------------------
void encode_g1_compressed(const G1Affine& p, uint8_t* out);    // kG1CompressedBytes
void encode_g1_uncompressed(const G1Affine& p, uint8_t* out);  // kG1UncompressedBytes
void encode_g2_compressed(const G2Affine& p, uint8_t* out);    // kG2CompressedBytes
void encode_g2_uncompressed(const G2Affine& p, uint8_t* out);  // kG2UncompressedBytes

// ---- decoding -----------------------------------------------------------------------------------
// The form follows from `len` (G1: 48 compressed or 96 uncompressed; G2: 96 or 192) and must
// agree with the compression flag. On failure the Status is INVALID_ARGUMENT with a message
// naming the group, form, and the offending flag, byte range or coordinate, e.g.
//   "G2 compressed: x.c1 (bytes 0-47) is not canonical (>= p)",
// and, when `error` is not null, *error receives the kind (it is left untouched on success).
Result<G1Affine> decode_g1(const uint8_t* in, size_t len, const DecodeOptions& options = {},
                           DecodeError* error = nullptr);
Result<G2Affine> decode_g2(const uint8_t* in, size_t len, const DecodeOptions& options = {},
                           DecodeError* error = nullptr);

// `count` consecutive points of `stride` bytes each (one of the two sizes of the group) into
// out[0..count). Stops at the first bad point; its message is prefixed with
// "point <i> (bytes <a>-<b>)" and *error (if not null) receives its kind.
Status decode_g1_array(const uint8_t* in, size_t count, size_t stride, G1Affine* out,
                       const DecodeOptions& options = {}, DecodeError* error = nullptr);
Status decode_g2_array(const uint8_t* in, size_t count, size_t stride, G2Affine* out,
                       const DecodeOptions& options = {}, DecodeError* error = nullptr);

}  // namespace zkpipe::crypto
