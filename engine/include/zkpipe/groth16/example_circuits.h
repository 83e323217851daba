// zkpipe/groth16/example_circuits.h: small circuits for tests, demos, interop checks and
// benchmarks (the proof types live in plugins/). Each synthesizes into any ConstraintSystem, so
// one definition serves recording and witness mode.
//   cubic      public y, private x: x^3 + x + 5 = y (3 constraints; the classic example).
//   mimc       public (x0, k, out), a MiMC-like chain x_{i+1} = (x_i + k + c_i)^3, c_i from the
//              seed; `size` rounds (2 constraints each).
//   synthetic  `size` constraints: a chain of products of pseudo-random private values mixed with
//              two public inputs, dense enough that every query of the key is used (a benchmark
//              shape with ~3 terms per row, like hash circuits).
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/groth16/constraint_system.h"

namespace zkpipe::groth16 {

struct ExampleCircuit {
  std::string name;   // "cubic", "mimc" or "synthetic"
  uint64_t size = 0;  // rounds (mimc) or constraints (synthetic); ignored by cubic
  uint64_t seed = 1;  // the private values (and mimc's constants)
};

std::vector<std::string_view> example_circuit_names();

// INVALID_ARGUMENT for an unknown name or a size out of range (1..2^26). mimc with a
// `witness_seed`: x0 and k come from it and the round constants from circuit.seed, so witnesses
// of one circuit (one set of constants) differ; without, both come from circuit.seed.
Status synthesize_example(const ExampleCircuit& circuit, ConstraintSystem& cs,
                          std::optional<uint64_t> witness_seed = std::nullopt);

}  // namespace zkpipe::groth16
