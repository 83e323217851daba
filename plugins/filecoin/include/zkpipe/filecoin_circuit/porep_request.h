// zkpipe/filecoin_circuit/porep_request.h: the request of the filecoin_porep proof type: what
// filecoin-proofs-api's seal_commit_phase2 takes, either
//   the C1 output itself, as JSON or in curio's binary form (vanilla_porep.h; its replica_id is
//   taken as given), or
//   {"commit1_output": <the C1 output: a JSON object, or the binary form as a hex or base64
//   string>, "prover_id": <32 bytes>, "sector_id": <number>}, in
//   which case replica_id must be the one prover_id, sector_id, ticket and comm_d derive (as the
//   chain's verifier derives it).
// Parse checks every partition's vanilla proofs natively and keeps each partition's circuit
// witness and public inputs. Library zkpipe::filecoin_circuit. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/filecoin_circuit/vanilla_porep.h"

namespace zkpipe::filecoin_circuit {

struct PorepRequest {
  Commit1Output c1;
  bool has_prover = false;
  filecoin::Bytes32 prover_id{};
  uint64_t sector_id = 0;
  std::vector<PorepWitness> witnesses;  // per partition
  std::vector<std::vector<Fr>> inputs;  // per partition, as the verifier derives them
};

// INVALID_ARGUMENT naming `what` and the field (see vanilla_porep.h), or the partition and
// challenge whose vanilla proof does not check.
Result<PorepRequest> parse_porep_request(std::span<const uint8_t> bytes, const std::string& what);

// The wrapper form of a sample (with its prover_id and sector_id).
std::string encode_porep_request(const SampleCommit1& s);

// The circuit's shape for a registered proof: nodes, tree arities, layers, challenges a
// partition. INVALID_ARGUMENT for a name that is not an interactive PoRep.
struct PorepCircuitShape {
  uint64_t nodes = 0;
  TreeArities arities;
  uint32_t layers = 0, challenges = 0, partitions = 0;
};
Result<PorepCircuitShape> porep_circuit_shape(const filecoin::PorepConfig& config);

}  // namespace zkpipe::filecoin_circuit
