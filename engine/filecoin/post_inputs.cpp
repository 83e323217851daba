// post_inputs.cpp: Window/Winning PoSt and SnapDeals public inputs
// (zkpipe/filecoin/post_inputs.h).
#include "zkpipe/filecoin/post_inputs.h"

#include <algorithm>
#include <bit>
#include <set>

#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {
namespace {

uint32_t window_sector_count(uint64_t size) {
  if (size == 32 * kGiB) return 2349;
  if (size == 64 * kGiB) return 2300;
  return 2;
}

uint64_t first_u64_le(const Sha256Digest& h) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | h[i];
  return v;
}

Bytes32 masked(Bytes32 randomness) {
  randomness[31] &= 0x3f;
  return randomness;
}

void put_u64_le(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Result<Fr> commitment(const Domain& d, const std::string& name) {
  if (d == Domain{}) return invalid_argument(name + " is all zero (no sealed sector has it)");
  return fr_from_domain(d, name);
}

}  // namespace

Result<PostConfig> registered_post(std::string_view name) {
  std::string known;
  for (const SectorSizeName& s : kSectorSizes) {
    const std::string size = s.name;
    struct Form {
      std::string name;
      bool winning;
      ApiVersion api;
    };
    const Form forms[] = {{"StackedDrgWinning" + size + "V1", true, ApiVersion::kV1_0_0},
                          {"StackedDrgWindow" + size + "V1", false, ApiVersion::kV1_0_0},
                          {"StackedDrgWindow" + size + "V1_2", false, ApiVersion::kV1_2_0},
                          {"StackedDrgWindow" + size + "V1_1", false, ApiVersion::kV1_2_0}};
    for (const Form& f : forms) {
      if (f.name == name) {
        PostConfig c;
        c.winning = f.winning;
        c.sector_size = s.bytes;
        c.api_version = f.api;
        c.challenges = f.winning ? 66 : 10;
        c.sector_count = f.winning ? 1 : window_sector_count(s.bytes);
        return c;
      }
      known += (known.empty() ? "" : ", ") + f.name;
    }
  }
  return invalid_argument("registered proof \"" + std::string(name) +
                          "\" is not a Filecoin PoSt proof (known: " + known + ")");
}

uint64_t post_leaf_challenge(const Bytes32& randomness, uint64_t sector_id, uint64_t index,
                             uint64_t nodes) {
  std::vector<uint8_t> in(randomness.begin(), randomness.end());
  put_u64_le(in, sector_id);
  put_u64_le(in, index);
  return first_u64_le(sha256(in)) % nodes;
}

uint64_t winning_post_sector_index(const Bytes32& prover_id, const Bytes32& randomness,
                                   uint64_t set_size) {
  const Bytes32 r = masked(randomness);
  std::vector<uint8_t> in(prover_id.begin(), prover_id.end());
  in.insert(in.end(), r.begin(), r.end());
  put_u64_le(in, 0);
  return first_u64_le(sha256(in)) % set_size;
}

Result<std::vector<std::vector<Fr>>> post_public_inputs(const PostDescription& d) {
  const PostConfig& c = d.config;
  if (d.sectors.empty()) return invalid_argument("sectors: empty (a PoSt proves at least one)");
  if (c.winning && d.sectors.size() != 1) {
    return invalid_argument("sectors: a Winning PoSt proves the one challenged sector; " +
                            std::to_string(d.sectors.size()) + " given");
  }
  std::vector<PostSector> sectors = d.sectors;
  std::stable_sort(sectors.begin(), sectors.end(), [](const PostSector& a, const PostSector& b) {
    return a.sector_id < b.sector_id;
  });
  std::vector<Fr> comm_r(sectors.size());
  for (size_t i = 0; i < sectors.size(); ++i) {
    if (i > 0 && sectors[i].sector_id == sectors[i - 1].sector_id)
      return invalid_argument("sectors: sector " + std::to_string(sectors[i].sector_id) +
                              " is given twice");
    const auto original =
        std::find_if(d.sectors.begin(), d.sectors.end(),
                     [&](const PostSector& s) { return s.sector_id == sectors[i].sector_id; });
    ZKP_ASSIGN_OR_RETURN(
        comm_r[i],
        commitment(sectors[i].comm_r,
                   "sectors[" + std::to_string(original - d.sectors.begin()) + "].comm_r"));
  }
  const Bytes32 randomness = masked(d.randomness);
  const uint64_t nodes = c.sector_size / 32;
  std::vector<std::vector<Fr>> all;
  if (c.winning) {  // 66 "sectors" of one challenge: the same sector, challenges 0..65
    std::vector<Fr> in;
    for (uint32_t n = 0; n < c.challenges; ++n) {
      in.push_back(comm_r[0]);
      in.push_back(Fr::from_u64(post_leaf_challenge(randomness, sectors[0].sector_id, n, nodes)));
    }
    all.push_back(std::move(in));
    return all;
  }
  const size_t per = c.sector_count;
  const size_t partitions = (sectors.size() + per - 1) / per;
  for (size_t k = 0; k < partitions; ++k) {
    std::vector<Fr> in;
    std::vector<Fr> block;
    for (size_t i = 0; i < per; ++i) {
      const size_t at = k * per + i;
      if (at < sectors.size()) {
        block.clear();
        block.push_back(comm_r[at]);
        for (uint32_t n = 0; n < c.challenges; ++n) {
          const uint64_t index =
              c.api_version == ApiVersion::kV1_2_0 ? n : uint64_t(at) * c.challenges + n;
          block.push_back(
              Fr::from_u64(post_leaf_challenge(randomness, sectors[at].sector_id, index, nodes)));
        }
      }
      in.insert(in.end(), block.begin(), block.end());  // past the end: the last block again
    }
    all.push_back(std::move(in));
  }
  return all;
}

Result<uint64_t> registered_update(std::string_view name) {
  std::string known;
  for (const SectorSizeName& s : kSectorSizes) {
    const std::string candidate = std::string("StackedDrg") + s.name + "V1";
    if (candidate == name) return s.bytes;
    known += (known.empty() ? "" : ", ") + candidate;
  }
  return invalid_argument("registered proof \"" + std::string(name) +
                          "\" is not a Filecoin update (SnapDeals) proof (known: " + known + ")");
}

uint32_t update_partitions(uint64_t nodes) {
  if (nodes <= (1u << 8)) return 1;
  if (nodes <= (1u << 10)) return 2;
  if (nodes <= (1u << 19)) return 4;
  return 16;
}

Result<std::vector<std::vector<Fr>>> update_public_inputs(const UpdateDescription& d) {
  const uint64_t nodes = d.sector_size / 32;
  if (nodes < 2 || !std::has_single_bit(nodes))
    return invalid_argument("sector size " + std::to_string(d.sector_size) +
                            " is not a power of two of 32-byte nodes");
  ZKP_ASSIGN_OR_RETURN(Fr old_r, commitment(d.comm_r_old, "comm_r_old"));
  ZKP_ASSIGN_OR_RETURN(Fr new_d, commitment(d.comm_d_new, "comm_d_new"));
  ZKP_ASSIGN_OR_RETURN(Fr new_r, commitment(d.comm_r_new, "comm_r_new"));
  const uint32_t partitions = d.poseidon ? 1 : update_partitions(nodes);
  const uint64_t h_select = nodes <= (1u << 10) ? 1 : 8;  // hs[3] = 1, or 10 of [7..12]
  const int partition_bits = std::countr_zero(partitions);
  std::vector<std::vector<Fr>> all;
  for (uint32_t k = 0; k < partitions; ++k)
    all.push_back({Fr::from_u64(k | (h_select << partition_bits)), old_r, new_d, new_r});
  return all;
}

}  // namespace zkpipe::filecoin
