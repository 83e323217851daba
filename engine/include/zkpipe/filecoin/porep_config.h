// zkpipe/filecoin/porep_config.h: what names a Filecoin PoRep: the registered seal proofs
// (filecoin-proofs-api's StackedDrg2KiBV1 ... StackedDrg64GiBV1_2_Feat_NonInteractivePoRep, ids
// 0..19), their porep_id (the id as u64 LE, a zero u64 nonce, 16 zero bytes), API version and
// features, and the shape of each sector size (filecoin-proofs' constants.rs: layers,
// partitions, challenges, the tree arities).
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/sdk/status.h"

namespace zkpipe::filecoin {

using PorepId = std::array<uint8_t, 32>;

// Filecoin's production sector sizes, as the registered proofs' names spell them, in id order.
struct SectorSizeName {
  const char* name;  // "2KiB", "8MiB", "512MiB", "32GiB", "64GiB"
  uint64_t bytes;
};
inline constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
inline constexpr SectorSizeName kSectorSizes[5] = {{"2KiB", 2 * kKiB},
                                                   {"8MiB", 8 * kMiB},
                                                   {"512MiB", 512 * kMiB},
                                                   {"32GiB", 32 * kGiB},
                                                   {"64GiB", 64 * kGiB}};

enum class ApiVersion { kV1_0_0, kV1_1_0, kV1_2_0 };
// "V1_0_0" / "1.0.0" (and V1_1_0, V1_2_0); INVALID_ARGUMENT naming the accepted spellings.
Result<ApiVersion> parse_api_version(std::string_view text);
std::string_view api_version_name(ApiVersion v);  // "V1_0_0"

enum class PorepFeature { kSyntheticPoRep, kNonInteractivePoRep };

struct PorepConfig {
  uint64_t sector_size = 0;
  uint32_t partitions = 0;
  PorepId porep_id{};
  ApiVersion api_version = ApiVersion::kV1_1_0;
  std::vector<PorepFeature> features;

  bool has(PorepFeature f) const;
};

PorepId porep_id_of(uint64_t registered_id);

// A registered seal proof by filecoin-proofs-api's name ("StackedDrg2KiBV1_1",
// "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", ...). INVALID_ARGUMENT naming the known names.
Result<PorepConfig> registered_porep(std::string_view name);

struct SectorShape {
  uint64_t sector_size = 0, nodes = 0;
  uint32_t layers = 0;
  uint32_t partitions = 0;      // interactive
  uint32_t min_challenges = 0;  // interactive, over all partitions (2; 176 for 32/64GiB)
  uint32_t base_arity = 8, sub_arity = 0, top_arity = 0;  // tree_r_last and tree_c
};

// The production sizes 2KiB, 8MiB, 512MiB, 32GiB, 64GiB; INVALID_ARGUMENT for others.
Result<SectorShape> sector_shape(uint64_t sector_size);

}  // namespace zkpipe::filecoin
