// zkpipe/groth16/prover.h: the Groth16 prover, split in two so an engine can free a/b/c and start
// the next partition while the first is finished elsewhere:
//   prove_start: quotient H = (a b - c) / Z by iNTT, coset NTT, pointwise division, coset iNTT;
//                then the G1 MSMs (H, L, A, B in G1). a/b/c are not read after it returns.
//   prove_finish: the G2 MSM for B, blinding with r and s, assembly of (A, B, C).
// prove() does both. Randomness is injectable so two backends can be compared bit for bit.
// Thread-safety: pure functions over a shared, immutable ProvingKey.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe::groth16 {

struct ProverRandomness {
  Fr r, s;
  static ProverRandomness secure();  // from the operating system's CSPRNG
};

struct ProverOptions {
  unsigned threads = 0;  // 0: all hardware threads
};

// The witness as prove_start reads it: the assignment and the a/b/c evaluations on the domain
// (evaluate_abc over the cached R1CS). a, b, c (each domain_size elements) are overwritten.
struct ProverInput {
  WitnessView witness;
  Fr* a = nullptr;
  Fr* b = nullptr;
  Fr* c = nullptr;
  size_t n = 0;
  // Optional: the A and B density scalars (density_scalars of the key's densities), computed by
  // the caller (a compute plugin gets them from the engine). When b_scalars is set, prove_start
  // uses these and leaves PendingProof::b_scalars empty: the caller keeps them for prove_finish.
  const Fr* a_scalars = nullptr;
  const Fr* b_scalars = nullptr;
  // Optional: set non-zero (by another thread) once nobody wants the proof (its job was
  // cancelled). prove_start then stops at its next safe point (between the NTT passes and
  // between the MSMs) with ABORTED; the a/b/c left behind are garbage.
  const std::atomic<uint32_t>* stop = nullptr;
};

// ABORTED ("prove_start stopped before <where>: its job was cancelled") once `input.stop` is set;
// OK otherwise. Backends call it at their safe points.
Status check_stop(const ProverInput& input, const char* where);

// Where time went, in nanoseconds.
struct ProverTimings {
  uint64_t ntt_ns = 0, h_msm_ns = 0, l_msm_ns = 0, a_msm_ns = 0, b_g1_msm_ns = 0, b_g2_msm_ns = 0,
           finish_ns = 0;
};

// What prove_start leaves for prove_finish; the key it points to must outlive it.
struct PendingProof {
  crypto::G1 h, l, a, b_g1;
  std::vector<Fr> b_scalars;  // the b-density scalars, for the G2 MSM in prove_finish
  const ProvingKey* pk = nullptr;
  ProverTimings timings;
};

// What the prover's memory depends on: the domain and the point counts of the key's queries.
struct ProverShape {
  uint64_t domain = 0, h_points = 0, l_points = 0, a_points = 0, b_points = 0;
};
ProverShape prover_shape(const ProvingKey& pk);

// The heap memory the prover allocates besides its inputs, in bytes (upper bounds, for memory
// budgets): prove_start's peak (the NTT's, or an MSM's scratch with the scalars it reads), what
// a PendingProof holds for prove_finish (the B-density scalars), prove_finish's peak (the G2
// MSM), and the NTT twiddle tables the process keeps for the domain once it proved once.
struct ProverMemory {
  uint64_t start_scratch = 0, pending = 0, finish_scratch = 0, ntt_tables = 0;
};
ProverMemory prover_memory(const ProverShape& shape, const ProverOptions& options = {});

// The scalars of the wires whose density bit is set, in wire order (the A and B MSMs' scalars).
std::vector<Fr> density_scalars(const Density& density, const WitnessView& witness);

Result<PendingProof> prove_start(const ProvingKey& pk, const ProverInput& input,
                                 const ProverOptions& options = {});
Result<Proof> prove_finish(PendingProof&& pending, const ProverRandomness& randomness,
                           const ProverOptions& options = {});
Result<Proof> prove(const ProvingKey& pk, const ProverInput& input,
                    const ProverRandomness& randomness, const ProverOptions& options = {});

}  // namespace zkpipe::groth16
