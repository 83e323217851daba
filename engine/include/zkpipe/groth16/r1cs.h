// zkpipe/groth16/r1cs.h: a rank-1 constraint system in compressed sparse row form (A, B, C over
// the wires w = (1, public inputs, aux)), the a/b/c evaluation the prover needs (a multithreaded
// sparse matrix-vector product) and a satisfiability check that names the first failing row.
// Wire j < num_inputs is input j (input 0 is the constant one); wire num_inputs + k is aux k.
// Thread-safety: values; the free functions are pure and may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16 {

using crypto::Fr;

// Row-major sparse matrix: the terms of row i are [row_begin[i], row_begin[i + 1]).
struct SparseMatrix {
  std::vector<uint64_t> row_begin{0};
  std::vector<uint32_t> column;
  std::vector<Fr> value;

  size_t rows() const { return row_begin.size() - 1; }
  size_t terms() const { return column.size(); }
};

// Per-matrix shape statistics (for `params info` and for choosing how to split the product).
struct MatrixStats {
  uint64_t terms = 0;
  uint32_t max_row_terms = 0;
  uint32_t empty_rows = 0;
  uint32_t max_column_terms = 0;  // the most rows any one wire appears in
  uint32_t unused_columns = 0;    // wires that appear in no row of this matrix
};

struct R1cs {
  uint32_t num_inputs = 1;  // public wires including the constant one
  uint32_t num_aux = 0;
  SparseMatrix a, b, c;
  // Debug names: the namespace path of every constraint (an index into `namespaces`); empty when
  // the circuit used none.
  std::vector<std::string> namespaces;
  std::vector<uint32_t> constraint_namespace;

  uint32_t num_constraints() const { return static_cast<uint32_t>(a.rows()); }
  uint64_t num_wires() const { return uint64_t{num_inputs} + num_aux; }
  // The Groth16 evaluation domain: the next power of two >= num_constraints + num_inputs (one
  // extra row per public wire binds it: a = w_i, b = c = 0, as bellman and snarkjs do).
  uint64_t domain_size() const;
  // "constraint 17 (in 'sha/round 3')" or "constraint 17".
  std::string describe_constraint(uint64_t row) const;
  // Checks the matrices are well formed (monotone row_begin, columns < num_wires, equal row
  // counts, names consistent); `what` prefixes the message (e.g. a file name).
  Status validate(const std::string& what) const;
};

MatrixStats matrix_stats(const SparseMatrix& m, uint64_t num_wires);

// A full assignment split as the prover takes it. inputs[0] must be one.
struct WitnessView {
  std::span<const Fr> inputs;
  std::span<const Fr> aux;
};

// a = A w, b = B w, c = C w on the first num_constraints rows, then the public binding rows
// (a[m + i] = inputs[i], b = c = 0), then zeros up to n. n must be >= num_constraints +
// num_inputs. Rows are split over `threads` threads (0 = hardware).
Status evaluate_abc(const R1cs& r1cs, const WitnessView& w, Fr* a, Fr* b, Fr* c, size_t n,
                    unsigned threads = 0);

// OK when A w * B w == C w on every row; otherwise INVALID_ARGUMENT naming the first failing
// constraint (with its namespace) and the three values. Sizes are checked first.
Status check_satisfied(const R1cs& r1cs, const WitnessView& w, unsigned threads = 0);

}  // namespace zkpipe::groth16
