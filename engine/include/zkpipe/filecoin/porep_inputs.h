// zkpipe/filecoin/porep_inputs.h: the public inputs of a Filecoin PoRep proof, derived as
// filecoin-proofs' verify_seal derives them (rust-fil-proofs' StackedCompound):
//   replica_id = sha256_trunc254(prover_id || sector_id u64 BE || ticket || comm_d || porep_id);
//   interactive challenges of partition k: for i < n (n = ceil(min_challenges / partitions)),
//     j = n k + i, 1 + (SHA-256(replica_id || seed || j u32 LE) as a little-endian integer)
//     mod (nodes - 1);
//   per partition: [replica_id, comm_d, comm_r], then per challenge c: c (comm_d's leaf), its 6
//   DRG and 8 expander parents (comm_c's leaves), c (the challenge), c (comm_r_last), c (comm_c):
//   3 + 18 n field elements (39 for 2KiB..512MiB, 327 for 32/64GiB).
// SyntheticPoRep and NonInteractivePoRep derive their challenges otherwise: refused
// (INVALID_ARGUMENT, naming the feature) until built.
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/filecoin/porep_config.h"

namespace zkpipe::filecoin {

using Bytes32 = std::array<uint8_t, 32>;

struct PorepDescription {
  PorepConfig config;
  Domain comm_r{}, comm_d{};
  Bytes32 prover_id{}, ticket{}, seed{};
  uint64_t sector_id = 0;
};

Domain replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket,
                  const Domain& comm_d, const PorepId& porep_id);

std::vector<uint64_t> interactive_challenges(const Domain& replica_id, const Bytes32& seed,
                                             uint64_t nodes, uint32_t per_partition,
                                             uint32_t partition);

// One vector of inputs per partition. INVALID_ARGUMENT naming the field for a comm_d or comm_r
// that is zero or not a canonical Fr, a config whose size has no shape, and the SyntheticPoRep
// and NonInteractivePoRep features.
Result<std::vector<std::vector<Fr>>> porep_public_inputs(const PorepDescription& d);
// The same for a replica_id given (a C1 output carries it): prover_id, sector_id and ticket are
// not read. INVALID_ARGUMENT also for a replica_id that is not a canonical Fr.
Result<std::vector<std::vector<Fr>>> porep_inputs_for_replica(const PorepDescription& d,
                                                              const Domain& replica_id);

}  // namespace zkpipe::filecoin
