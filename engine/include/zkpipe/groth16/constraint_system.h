// zkpipe/groth16/constraint_system.h: what a circuit author writes against. A circuit allocates
// public inputs and private (aux) variables with their values, builds linear combinations and
// calls enforce(a, b, c) for a * b = c. One ConstraintSystem type, two modes:
//   kRecord   captures the R1CS (CSR matrices, namespace names) once per circuit shape;
//   kWitness  enforce does nothing (its lambdas are not even called); only the assignment is
//             written, into caller-provided buffers, so a/b/c then come from evaluate_abc over
//             the cached R1CS (the fast synthesis path).
//   kCount    like kWitness but keeps nothing: counts variables and constraints of a shape too
//             large to record (value() reads zero).
//   kShape    kCount that also builds each constraint's linear combinations and counts their
//             terms (as written: like terms not merged, so at least what kRecord keeps): the
//             size of an R1CS too large to record.
// Errors (a buffer too small, an unknown variable) are sticky: the first one is kept and
// returned by finish(); later calls are ignored. Thread-safety: one thread per instance.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkpipe/groth16/r1cs.h"

namespace zkpipe::groth16 {

struct Variable {
  enum class Kind : uint8_t { kInput, kAux };
  Kind kind = Kind::kInput;
  uint32_t index = 0;

  static Variable one() { return {Kind::kInput, 0}; }
  bool operator==(const Variable&) const = default;
};

// sum of coefficient * variable; terms are kept as written (duplicates are summed when the
// row is recorded).
class LinearCombination {
 public:
  LinearCombination() = default;
  LinearCombination(Variable v) { terms_.emplace_back(v, Fr::one()); }  // NOLINT: implicit

  LinearCombination& add(const Fr& coeff, Variable v) {
    terms_.emplace_back(v, coeff);
    return *this;
  }
  LinearCombination& operator+=(Variable v) { return add(Fr::one(), v); }
  LinearCombination& operator-=(Variable v) { return add(-Fr::one(), v); }
  LinearCombination& operator+=(const LinearCombination& o) {
    terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
    return *this;
  }
  friend LinearCombination operator+(LinearCombination l, Variable v) { return l += v; }
  friend LinearCombination operator-(LinearCombination l, Variable v) { return l -= v; }

  const std::vector<std::pair<Variable, Fr>>& terms() const { return terms_; }

 private:
  std::vector<std::pair<Variable, Fr>> terms_;
};

// Where a witness-mode run writes the assignment. inputs[0] receives the constant one.
struct WitnessBuffers {
  std::span<Fr> inputs;
  std::span<Fr> aux;
};

class ConstraintSystem {
 public:
  enum class Mode { kRecord, kWitness, kCount, kShape };

  // Record mode keeps the values too (so a test can check satisfiability of what it recorded).
  static ConstraintSystem recorder();
  static ConstraintSystem witness(WitnessBuffers buffers);
  static ConstraintSystem counter();
  static ConstraintSystem shape_counter();

  Mode mode() const { return mode_; }
  // No linear combinations wanted (kWitness, kCount): gadgets skip building them.
  bool witness_only() const { return mode_ == Mode::kWitness || mode_ == Mode::kCount; }

  Variable alloc_input(const Fr& value) { return allocate(Variable::Kind::kInput, value); }
  Variable alloc(const Fr& value) { return allocate(Variable::Kind::kAux, value); }

  // a * b = c. Each argument is a LinearCombination or a Variable; in witness mode nothing is
  // built.
  void enforce(const LinearCombination& a, const LinearCombination& b, const LinearCombination& c);
  // The same with builders `void(LinearCombination&)`, which witness mode never calls.
  template <typename FA, typename FB, typename FC>
  requires std::invocable<FA, LinearCombination&>
  void enforce_with(FA&& fa, FB&& fb, FC&& fc) {
    if (witness_only()) {
      ++num_constraints_;
      return;
    }
    LinearCombination a, b, c;
    fa(a);
    fb(b);
    fc(c);
    enforce(a, b, c);
  }

  // The value of a variable or a linear combination under the assignment so far.
  Fr value(Variable v) const;
  Fr value(const LinearCombination& lc) const;

  // Debug names: constraints recorded between push and pop carry the '/'-joined path.
  void push_namespace(std::string name);
  void pop_namespace();

  uint32_t num_inputs() const { return num_inputs_; }
  uint32_t num_aux() const { return num_aux_; }
  uint64_t num_constraints() const { return num_constraints_; }
  // kShape: the terms of the A, B and C matrices (0 .. 2) as written.
  uint64_t num_terms(unsigned matrix) const { return terms_[matrix]; }

  // The first error, if any. In record mode on success `take_r1cs` and `take_witness` hand over
  // what was recorded (each once).
  Status finish() const { return error_; }
  R1cs take_r1cs();
  std::pair<std::vector<Fr>, std::vector<Fr>> take_witness();  // (inputs, aux)

 private:
  explicit ConstraintSystem(Mode mode) : mode_(mode) {}
  void fail(Status s) {
    if (error_.ok()) error_ = std::move(s);
  }
  Variable allocate(Variable::Kind kind, const Fr& value);
  void record_row(SparseMatrix& m, const LinearCombination& lc);
  uint32_t current_namespace();

  Mode mode_;
  Status error_;
  uint32_t num_inputs_ = 0;
  uint32_t num_aux_ = 0;
  uint64_t num_constraints_ = 0;
  uint64_t terms_[3] = {0, 0, 0};
  WitnessBuffers buffers_;
  std::vector<Fr> inputs_, aux_;  // record mode
  R1cs r1cs_;                     // record mode; columns tagged until take_r1cs
  std::vector<std::string> path_;
  int32_t namespace_id_ = -1;  // index of the current path in r1cs_.namespaces, -1 = none yet
  std::unordered_map<std::string, uint32_t> namespace_ids_;
  std::vector<std::pair<Variable, Fr>> scratch_;
};

// RAII namespace: ConstraintSystem::push_namespace in the constructor, pop in the destructor.
class Namespace {
 public:
  Namespace(ConstraintSystem& cs, std::string name) : cs_(cs) {
    cs_.push_namespace(std::move(name));
  }
  ~Namespace() { cs_.pop_namespace(); }
  Namespace(const Namespace&) = delete;
  Namespace& operator=(const Namespace&) = delete;

 private:
  ConstraintSystem& cs_;
};

}  // namespace zkpipe::groth16
