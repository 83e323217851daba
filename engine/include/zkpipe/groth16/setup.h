// zkpipe/groth16/setup.h: a Groth16 setup for development and tests. The toxic waste (tau,
// alpha, beta, gamma, delta) comes from a seed, so anyone with the seed can forge proofs: this
// is NOT a trusted-setup ceremony, and every caller that prints or stores its output says so.
// The query points are computed with the crypto core's fixed-base batch multiplication,
// multithreaded, with an optional progress callback.
// Thread-safety: pure functions; concurrent calls are independent.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>

#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe::groth16 {

inline constexpr std::string_view kNotACeremony =
    "seeded development setup: NOT a trusted-setup ceremony; anyone with the seed can forge "
    "proofs";

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;

  // Deterministic from the seed (SHA-256 in counter mode, each value non-zero, tau outside the
  // evaluation domain).
  static ToxicWaste from_seed(uint64_t seed);
};

struct SetupOptions {
  unsigned threads = 0;  // 0: all hardware threads
  // Called with (points done, points total) after each batch of query points.
  std::function<void(uint64_t, uint64_t)> progress;
  // When set, read between batches: true ends the setup with ABORTED (an engine shutting down
  // does not wait for a setup nobody will use).
  const std::atomic<bool>* stop = nullptr;
};

// The proving key (which holds the verifying key) for `r1cs`. Fails when the R1CS is malformed or
// its domain exceeds 2^32.
Result<ProvingKey> setup(const R1cs& r1cs, const ToxicWaste& waste,
                         const SetupOptions& options = {});

// The wires a key holds A and B bases for: A every input (their binding rows) and each wire in a
// row of A, B each wire in a row of B, as bellperson's prover tracks them; so a key made by
// another setup (bellperson's .params) is matched to the circuit's wires.
Density a_density(const R1cs& r1cs);
Density b_density(const R1cs& r1cs);

}  // namespace zkpipe::groth16
