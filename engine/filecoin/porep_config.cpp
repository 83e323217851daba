// porep_config.cpp: registered seal proofs and sector shapes (zkpipe/filecoin/porep_config.h).
#include "zkpipe/filecoin/porep_config.h"

#include <algorithm>

namespace zkpipe::filecoin {
namespace {

// filecoin-proofs-api's families, in id order (5 sizes each).
struct Family {
  const char* suffix;
  ApiVersion api;
  std::vector<PorepFeature> features;
};
const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"V1", ApiVersion::kV1_0_0, {}},
      {"V1_1", ApiVersion::kV1_1_0, {}},
      {"V1_1_Feat_SyntheticPoRep", ApiVersion::kV1_2_0, {PorepFeature::kSyntheticPoRep}},
      {"V1_2_Feat_NonInteractivePoRep", ApiVersion::kV1_2_0, {PorepFeature::kNonInteractivePoRep}},
  };
  return f;
}

}  // namespace

Result<ApiVersion> parse_api_version(std::string_view text) {
  if (text == "V1_0_0" || text == "1.0.0") return ApiVersion::kV1_0_0;
  if (text == "V1_1_0" || text == "1.1.0") return ApiVersion::kV1_1_0;
  if (text == "V1_2_0" || text == "1.2.0") return ApiVersion::kV1_2_0;
  return invalid_argument("api_version \"" + std::string(text) +
                          "\" is not one of V1_0_0, V1_1_0, V1_2_0 (or 1.0.0, 1.1.0, 1.2.0)");
}

std::string_view api_version_name(ApiVersion v) {
  switch (v) {
    case ApiVersion::kV1_0_0:
      return "V1_0_0";
    case ApiVersion::kV1_1_0:
      return "V1_1_0";
    case ApiVersion::kV1_2_0:
      return "V1_2_0";
  }
  return "?";
}

bool PorepConfig::has(PorepFeature f) const {
  return std::find(features.begin(), features.end(), f) != features.end();
}

PorepId porep_id_of(uint64_t registered_id) {
  PorepId id{};
  for (int i = 0; i < 8; ++i) id[i] = static_cast<uint8_t>(registered_id >> (8 * i));
  return id;  // nonce 0 (bytes 8..16), then 16 zero bytes
}

Result<PorepConfig> registered_porep(std::string_view name) {
  std::string known;
  uint64_t id = 0;
  for (const Family& family : families()) {
    for (const SectorSizeName& size : kSectorSizes) {
      const std::string candidate = std::string("StackedDrg") + size.name + family.suffix;
      if (candidate == name) {
        PorepConfig c;
        c.sector_size = size.bytes;
        c.porep_id = porep_id_of(id);
        c.api_version = family.api;
        c.features = family.features;
        ZKP_ASSIGN_OR_RETURN(SectorShape shape, sector_shape(size.bytes));
        c.partitions = shape.partitions;
        if (c.has(PorepFeature::kNonInteractivePoRep))
          c.partitions = size.bytes >= 32 * kGiB ? 126 : 13;
        return c;
      }
      known += (known.empty() ? "" : ", ") + candidate;
      ++id;
    }
  }
  return invalid_argument("registered proof \"" + std::string(name) +
                          "\" is not a Filecoin seal proof (known: " + known + ")");
}

Result<SectorShape> sector_shape(uint64_t sector_size) {
  SectorShape s;
  s.sector_size = sector_size;
  s.nodes = sector_size / 32;
  if (sector_size == 2 * kKiB || sector_size == 8 * kMiB || sector_size == 512 * kMiB) {
    s.layers = 2;
    s.partitions = 1;
    s.min_challenges = 2;
  } else if (sector_size == 32 * kGiB || sector_size == 64 * kGiB) {
    s.layers = 11;
    s.partitions = 10;
    s.min_challenges = 176;  // 18 a partition
    s.sub_arity = 8;
    s.top_arity = sector_size == 64 * kGiB ? 2 : 0;
  } else {
    return invalid_argument("sector size " + std::to_string(sector_size) +
                            " is not a Filecoin production size (2KiB, 8MiB, 512MiB, 32GiB, "
                            "64GiB)");
  }
  return s;
}

}  // namespace zkpipe::filecoin
