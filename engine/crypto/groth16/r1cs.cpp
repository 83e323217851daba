// groth16/r1cs.cpp: R1CS shape checks, statistics, the a/b/c sparse products and the
// satisfiability check.
#include "zkpipe/groth16/r1cs.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <string>

#include "zkpipe/crypto/parallel.h"

namespace zkpipe::groth16 {
namespace {

constexpr size_t kRowsPerTask = 4096;

Fr row_dot(const SparseMatrix& m, size_t row, const WitnessView& w) {
  const uint64_t num_inputs = w.inputs.size();
  Fr acc = Fr::zero();
  for (uint64_t t = m.row_begin[row]; t < m.row_begin[row + 1]; ++t) {
    const uint32_t col = m.column[t];
    const Fr& x = col < num_inputs ? w.inputs[col] : w.aux[col - num_inputs];
    const Fr& coeff = m.value[t];
    if (coeff.is_one()) {
      acc += x;
    } else {
      acc += coeff * x;
    }
  }
  return acc;
}

Status check_witness_sizes(const R1cs& r1cs, const WitnessView& w) {
  if (w.inputs.size() != r1cs.num_inputs || w.aux.size() != r1cs.num_aux) {
    return invalid_argument("witness has " + std::to_string(w.inputs.size()) + " inputs and " +
                            std::to_string(w.aux.size()) + " aux values; the R1CS needs " +
                            std::to_string(r1cs.num_inputs) + " and " +
                            std::to_string(r1cs.num_aux));
  }
  if (w.inputs.empty() || !w.inputs[0].is_one()) {
    return invalid_argument("witness input 0 (the constant one) is not 1");
  }
  return ok_status();
}

Status check_matrix(const SparseMatrix& m, const char* name, uint64_t wires, size_t rows,
                    const std::string& what) {
  auto bad = [&](const std::string& s) {
    return invalid_argument(what + ": matrix " + name + ": " + s);
  };
  if (m.row_begin.empty() || m.row_begin[0] != 0) return bad("row_begin must start at 0");
  if (m.rows() != rows) {
    return bad(std::to_string(m.rows()) + " rows, A has " + std::to_string(rows));
  }
  if (m.column.size() != m.value.size()) return bad("column and value counts differ");
  for (size_t i = 0; i < m.rows(); ++i) {
    if (m.row_begin[i + 1] < m.row_begin[i]) {
      return bad("row_begin decreases at row " + std::to_string(i));
    }
  }
  if (m.row_begin.back() != m.column.size()) return bad("row_begin does not end at term count");
  for (size_t t = 0; t < m.column.size(); ++t) {
    if (m.column[t] >= wires) {
      return bad("term " + std::to_string(t) + " names wire " + std::to_string(m.column[t]) +
                 " of " + std::to_string(wires));
    }
  }
  return ok_status();
}

}  // namespace

uint64_t R1cs::domain_size() const {
  return std::bit_ceil(std::max<uint64_t>(uint64_t{num_constraints()} + num_inputs, 2));
}

std::string R1cs::describe_constraint(uint64_t row) const {
  std::string s = "constraint " + std::to_string(row);
  if (row < constraint_namespace.size()) {
    const uint32_t ns = constraint_namespace[row];
    if (ns < namespaces.size() && !namespaces[ns].empty()) s += " (in '" + namespaces[ns] + "')";
  }
  return s;
}

Status R1cs::validate(const std::string& what) const {
  if (num_inputs == 0) return invalid_argument(what + ": no constant-one wire (num_inputs 0)");
  ZKP_RETURN_IF_ERROR(check_matrix(a, "A", num_wires(), a.rows(), what));
  ZKP_RETURN_IF_ERROR(check_matrix(b, "B", num_wires(), a.rows(), what));
  ZKP_RETURN_IF_ERROR(check_matrix(c, "C", num_wires(), a.rows(), what));
  if (!constraint_namespace.empty()) {
    if (constraint_namespace.size() != a.rows()) {
      return invalid_argument(what + ": namespace list covers " +
                              std::to_string(constraint_namespace.size()) + " of " +
                              std::to_string(a.rows()) + " constraints");
    }
    for (size_t i = 0; i < constraint_namespace.size(); ++i) {
      if (constraint_namespace[i] >= namespaces.size()) {
        return invalid_argument(what + ": constraint " + std::to_string(i) + " names namespace " +
                                std::to_string(constraint_namespace[i]) + " of " +
                                std::to_string(namespaces.size()));
      }
    }
  }
  if (domain_size() > (uint64_t{1} << 32)) {
    return invalid_argument(what + ": " + std::to_string(num_constraints()) + " constraints + " +
                            std::to_string(num_inputs) + " inputs exceed the 2^32 domain");
  }
  return ok_status();
}

MatrixStats matrix_stats(const SparseMatrix& m, uint64_t num_wires) {
  MatrixStats s;
  s.terms = m.terms();
  std::vector<uint32_t> per_column(num_wires, 0);
  for (size_t i = 0; i < m.rows(); ++i) {
    const uint64_t len = m.row_begin[i + 1] - m.row_begin[i];
    s.max_row_terms = std::max<uint32_t>(s.max_row_terms, static_cast<uint32_t>(len));
    if (len == 0) ++s.empty_rows;
  }
  for (uint32_t col : m.column) {
    if (col < num_wires) ++per_column[col];
  }
  for (uint32_t n : per_column) {
    s.max_column_terms = std::max(s.max_column_terms, n);
    if (n == 0) ++s.unused_columns;
  }
  return s;
}

Status evaluate_abc(const R1cs& r1cs, const WitnessView& w, Fr* a, Fr* b, Fr* c, size_t n,
                    unsigned threads) {
  ZKP_RETURN_IF_ERROR(check_witness_sizes(r1cs, w));
  const size_t m = r1cs.num_constraints();
  if (n < m + r1cs.num_inputs) {
    return invalid_argument("a/b/c buffers hold " + std::to_string(n) + " elements; " +
                            std::to_string(m) + " constraints + " +
                            std::to_string(r1cs.num_inputs) + " inputs need more");
  }
  crypto::parallel_for_ranges(n, kRowsPerTask, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (i < m) {
        a[i] = row_dot(r1cs.a, i, w);
        b[i] = row_dot(r1cs.b, i, w);
        c[i] = row_dot(r1cs.c, i, w);
      } else {
        a[i] = i - m < r1cs.num_inputs ? w.inputs[i - m] : Fr::zero();
        b[i] = Fr::zero();
        c[i] = Fr::zero();
      }
    }
  });
  return ok_status();
}

Status check_satisfied(const R1cs& r1cs, const WitnessView& w, unsigned threads) {
  ZKP_RETURN_IF_ERROR(check_witness_sizes(r1cs, w));
  const size_t m = r1cs.num_constraints();
  std::atomic<size_t> first_bad{m};
  crypto::parallel_for_ranges(m, kRowsPerTask, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < first_bad.load(std::memory_order_relaxed); ++i) {
      if (row_dot(r1cs.a, i, w) * row_dot(r1cs.b, i, w) != row_dot(r1cs.c, i, w)) {
        size_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  const size_t i = first_bad.load();
  if (i == m) return ok_status();
  const Fr av = row_dot(r1cs.a, i, w), bv = row_dot(r1cs.b, i, w), cv = row_dot(r1cs.c, i, w);
  return invalid_argument(r1cs.describe_constraint(i) + " is not satisfied: a = 0x" + av.to_hex() +
                          ", b = 0x" + bv.to_hex() + ", a*b = 0x" + (av * bv).to_hex() +
                          ", c = 0x" + cv.to_hex());
}

}  // namespace zkpipe::groth16
