// zkpipe/groth16/params_file.h: the Groth16 proving key on disk (the "params file", magic
// "ZKPPARAM") and the R1CS cache beside it (magic "ZKPR1CS\0"), both in the sectioned container
// of sectioned_file.h. Params points are stored in the in-memory layout of G1Affine / G2Affine
// (Montgomery limbs, host words, the infinity byte, zeroed padding), so a mapped file is used in
// place; a layout tag in the header refuses a file written by a build with another layout.
// Thread-safety: pure functions; a loaded key is immutable and shares the mapping.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/groth16/sectioned_file.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16 {

inline constexpr uint32_t kParamsVersion = 1;
inline constexpr uint32_t kR1csCacheVersion = 1;

// Section types of the params file (the names are those of messages and `params info`).
enum class ParamsSection : uint32_t {
  kHeader = 1,     // "header": ParamsHeader
  kVk = 2,         // "vk": alpha_g1, beta_g1, delta_g1 (G1Affine), beta_g2, gamma_g2, delta_g2
  kIc = 3,         // "ic": num_inputs G1Affine
  kADensity = 4,   // "a_density": ceil(wires / 64) u64 words
  kBDensity = 5,   // "b_density"
  kHQuery = 6,     // "h_query": G1Affine
  kLQuery = 7,     // "l_query": G1Affine
  kAQuery = 8,     // "a_query": G1Affine
  kBG1Query = 9,   // "b_g1_query": G1Affine
  kBG2Query = 10,  // "b_g2_query": G2Affine
};
const SectionedFormat& params_format();

// The point layout this build uses; a file must carry the same to be mapped in place.
struct LayoutTag {
  uint32_t fp_limbs = 0;         // 64-bit limbs per Fp coordinate
  uint32_t g1_affine_bytes = 0;  // sizeof(G1Affine)
  uint32_t g2_affine_bytes = 0;  // sizeof(G2Affine)
  uint32_t g1_infinity_offset = 0;
  uint32_t g2_infinity_offset = 0;
  uint32_t little_endian = 0;  // 1: limbs are little-endian host words

  static LayoutTag native();
  std::string describe() const;  // "6 x 64-bit limbs, G1Affine 104 B, G2Affine 200 B, LE"
  bool operator==(const LayoutTag&) const = default;
};

// The "header" section (fixed 128 bytes, little-endian).
struct ParamsHeader {
  bool seeded_development_setup = false;  // toxic waste from a seed: NOT a ceremony
  uint32_t num_inputs = 0;
  uint32_t num_aux = 0;
  uint64_t domain_size = 0;
  uint64_t ic_len = 0;
  uint64_t density_wires = 0;  // bits in a_density and in b_density
  uint64_t h_len = 0, l_len = 0, a_len = 0, b_g1_len = 0, b_g2_len = 0;
  LayoutTag layout;
};

// The "header" section's bytes, and the header of an opened params file (errors name the
// section and offset; the layout tag is returned, not compared).
std::vector<uint8_t> encode_params_header(const ParamsHeader& header);
Result<ParamsHeader> read_params_header(const SectionedFileReader& reader);

struct SectionInfo {
  uint32_t type = 0;
  std::string name;
  uint64_t offset = 0, length = 0;
  std::string sha256_hex;
};

struct ParamsInfo {
  std::string path;
  uint64_t file_bytes = 0;
  uint32_t version = 0;
  ParamsHeader header;
  bool layout_matches = false;   // header.layout == LayoutTag::native()
  uint64_t table_offset = 0;     // the section table
  uint64_t checksum_offset = 0;  // the header checksum (covers bytes before it)
  std::vector<SectionInfo> sections;
};

struct ParamsWriteOptions {
  // Recorded in the header; `params info` says so. The seed itself is never stored.
  bool seeded_development_setup = true;
};

struct ParamsLoadOptions {
  // Full checks: every section's SHA-256, sizes against the header, every point's infinity
  // byte, padding, canonical coordinates, curve equation and prime-order subgroup.
  bool validate = true;
  unsigned threads = 0;  // for the point checks; 0 = all hardware threads
  // When set, read between ranges of points: true ends the check with ABORTED (an engine
  // shutting down does not wait for it).
  const std::atomic<bool>* stop = nullptr;

  // Structure only (header checksum, layout tag, section sizes): for a file this process wrote
  // or already verified. Points are used as mapped, unchecked.
  static ParamsLoadOptions trusted() {
    ParamsLoadOptions o;
    o.validate = false;
    return o;
  }
};

// Writes `pk` (after pk.check_shape) to `path` through a uniquely named temporary file and a
// rename.
Status write_params(const std::string& path, const ProvingKey& pk,
                    const ParamsWriteOptions& options = {});

// Maps `path`; the key's spans point into the mapping, which pk.storage keeps alive. Errors name
// the file, the section and the byte offset; NOT_FOUND when the file cannot be opened.
Result<ProvingKey> load_params(const std::string& path, const ParamsLoadOptions& options = {});

// The header and section table (structure checked, payload checksums not).
Result<ParamsInfo> params_info(const std::string& path);

// Every check of a validating load; *info_out (if not null) receives the info even when a later
// check fails (when the structure could be read).
Status verify_params(const std::string& path, unsigned threads, ParamsInfo* info_out);

// ---- the R1CS cache ---------------------------------------------------------------------------
// Sections: "header" (u32 num_inputs, num_aux, num_constraints, u32 0, u64 terms of A, B, C,
// u64 namespace count), per matrix X in a, b, c: "X_row_begin" (u64), "X_column" (u32),
// "X_value" (Fr canonical, 32 bytes little-endian); optionally "namespaces" (per name u32 length
// + bytes) and "constraint_namespace" (u32 per constraint).
const SectionedFormat& r1cs_cache_format();
Status write_r1cs_cache(const std::string& path, const R1cs& r1cs);
// Checks every section's SHA-256, the sizes, every value < r, then R1cs::validate.
Result<R1cs> load_r1cs_cache(const std::string& path);

}  // namespace zkpipe::groth16
