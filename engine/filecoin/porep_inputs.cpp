// porep_inputs.cpp: replica_id, interactive challenges and the per-partition public inputs of
// a PoRep proof (zkpipe/filecoin/porep_inputs.h).
#include "zkpipe/filecoin/porep_inputs.h"

#include "zkpipe/crypto/bigint.h"
#include "zkpipe/filecoin/sdr_graph.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {
namespace {

// (little-endian 256-bit integer) mod m, m < 2^64.
uint64_t mod_u64(const Sha256Digest& h, uint64_t m) {
  unsigned __int128 r = 0;
  for (int i = 31; i >= 0; --i) r = ((r << 8) | h[i]) % m;
  return static_cast<uint64_t>(r);
}

Status check_commitment(const Domain& d, const std::string& name) {
  if (d == Domain{}) return invalid_argument(name + " is all zero (no sealed sector has it)");
  return fr_from_domain(d, name).status();
}

}  // namespace

Domain replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket,
                  const Domain& comm_d, const PorepId& porep_id) {
  std::vector<uint8_t> in(prover_id.begin(), prover_id.end());
  for (int i = 7; i >= 0; --i) in.push_back(static_cast<uint8_t>(sector_id >> (8 * i)));
  in.insert(in.end(), ticket.begin(), ticket.end());
  in.insert(in.end(), comm_d.begin(), comm_d.end());
  in.insert(in.end(), porep_id.begin(), porep_id.end());
  return sha256_trunc254(in);
}

std::vector<uint64_t> interactive_challenges(const Domain& rid, const Bytes32& seed, uint64_t nodes,
                                             uint32_t per_partition, uint32_t partition) {
  std::vector<uint64_t> out;
  uint8_t in[68];
  std::copy(rid.begin(), rid.end(), in);
  std::copy(seed.begin(), seed.end(), in + 32);
  for (uint32_t i = 0; i < per_partition; ++i) {
    const uint32_t j = per_partition * partition + i;
    for (int b = 0; b < 4; ++b) in[64 + b] = static_cast<uint8_t>(j >> (8 * b));
    out.push_back(1 + mod_u64(sha256(std::span<const uint8_t>(in, 68)), nodes - 1));
  }
  return out;
}

Result<std::vector<std::vector<Fr>>> porep_public_inputs(const PorepDescription& d) {
  if (d.config.has(PorepFeature::kSyntheticPoRep) ||
      d.config.has(PorepFeature::kNonInteractivePoRep)) {
    return invalid_argument(
        std::string("porep_config: the ") +
        (d.config.has(PorepFeature::kSyntheticPoRep) ? "SyntheticPoRep" : "NonInteractivePoRep") +
        " feature's challenges are not supported yet (interactive PoRep "
        "only)");
  }
  if (Result<SectorShape> shape = sector_shape(d.config.sector_size); !shape.ok()) {
    return shape.status();
  }
  if (d.config.partitions == 0) return invalid_argument("porep_config: partitions is 0");
  ZKP_RETURN_IF_ERROR(check_commitment(d.comm_d, "comm_d"));
  ZKP_RETURN_IF_ERROR(check_commitment(d.comm_r, "comm_r"));
  const Domain rid = replica_id(d.prover_id, d.sector_id, d.ticket, d.comm_d, d.config.porep_id);
  return porep_inputs_for_replica(d, rid);
}

Result<std::vector<std::vector<Fr>>> porep_inputs_for_replica(const PorepDescription& d,
                                                              const Domain& rid) {
  if (d.config.has(PorepFeature::kSyntheticPoRep) ||
      d.config.has(PorepFeature::kNonInteractivePoRep)) {
    return porep_public_inputs(d);  // refused there, by feature
  }
  ZKP_ASSIGN_OR_RETURN(SectorShape shape, sector_shape(d.config.sector_size));
  if (d.config.partitions == 0) return invalid_argument("porep_config: partitions is 0");
  ZKP_RETURN_IF_ERROR(check_commitment(d.comm_d, "comm_d"));
  ZKP_RETURN_IF_ERROR(check_commitment(d.comm_r, "comm_r"));
  ZKP_RETURN_IF_ERROR(fr_from_domain(rid, "replica_id").status());
  const uint32_t per = (shape.min_challenges + d.config.partitions - 1) / d.config.partitions;
  const SdrGraph graph(shape.nodes, d.config.porep_id, d.config.api_version);
  std::vector<std::vector<Fr>> all;
  for (uint32_t k = 0; k < d.config.partitions; ++k) {
    std::vector<Fr> in = {*fr_from_domain(rid), *fr_from_domain(d.comm_d),
                          *fr_from_domain(d.comm_r)};
    for (uint64_t c : interactive_challenges(rid, d.seed, shape.nodes, per, k)) {
      in.push_back(Fr::from_u64(c));
      for (uint32_t p : graph.parents(c)) in.push_back(Fr::from_u64(p));
      for (int copy = 0; copy < 3; ++copy) in.push_back(Fr::from_u64(c));
    }
    all.push_back(std::move(in));
  }
  return all;
}

}  // namespace zkpipe::filecoin
