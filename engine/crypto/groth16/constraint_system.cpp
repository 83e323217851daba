// groth16/constraint_system.cpp: recording and witness-only synthesis.
#include "zkpipe/groth16/constraint_system.h"

#include <algorithm>
#include <string>

namespace zkpipe::groth16 {
namespace {

// While recording, the number of inputs is not final: aux columns carry this tag and are
// renumbered to num_inputs + k by take_r1cs.
constexpr uint32_t kAuxTag = 0x80000000u;
constexpr uint32_t kMaxVariables = kAuxTag - 1;

}  // namespace

ConstraintSystem ConstraintSystem::recorder() {
  ConstraintSystem cs(Mode::kRecord);
  cs.alloc_input(Fr::one());
  return cs;
}

ConstraintSystem ConstraintSystem::witness(WitnessBuffers buffers) {
  ConstraintSystem cs(Mode::kWitness);
  cs.buffers_ = buffers;
  cs.alloc_input(Fr::one());
  return cs;
}

ConstraintSystem ConstraintSystem::shape_counter() {
  ConstraintSystem cs(Mode::kShape);
  cs.alloc_input(Fr::one());
  return cs;
}

ConstraintSystem ConstraintSystem::counter() {
  ConstraintSystem cs(Mode::kCount);
  cs.alloc_input(Fr::one());
  return cs;
}

Variable ConstraintSystem::allocate(Variable::Kind kind, const Fr& value) {
  const bool input = kind == Variable::Kind::kInput;
  uint32_t& count = input ? num_inputs_ : num_aux_;
  const char* name = input ? "inputs" : "aux";
  if (count >= kMaxVariables) {
    fail(resource_exhausted(std::string("more than 2^31 ") + name + " variables"));
    return Variable::one();
  }
  if (mode_ == Mode::kCount || mode_ == Mode::kShape) return {kind, count++};
  if (mode_ == Mode::kWitness) {
    std::span<Fr> buffer = input ? buffers_.inputs : buffers_.aux;
    if (count >= buffer.size()) {
      fail(invalid_argument(std::string("the ") + name + " buffer holds " +
                            std::to_string(buffer.size()) +
                            " values; the circuit allocates more (is the cached R1CS for this "
                            "circuit shape?)"));
      return Variable::one();
    }
    buffer[count] = value;
  } else {
    (input ? inputs_ : aux_).push_back(value);
  }
  return {kind, count++};
}

Fr ConstraintSystem::value(Variable v) const {
  if (mode_ == Mode::kCount || mode_ == Mode::kShape) return Fr::zero();
  if (v.kind == Variable::Kind::kInput) {
    if (v.index >= num_inputs_) return Fr::zero();
    return mode_ == Mode::kWitness ? buffers_.inputs[v.index] : inputs_[v.index];
  }
  if (v.index >= num_aux_) return Fr::zero();
  return mode_ == Mode::kWitness ? buffers_.aux[v.index] : aux_[v.index];
}

Fr ConstraintSystem::value(const LinearCombination& lc) const {
  Fr acc = Fr::zero();
  for (const auto& [v, coeff] : lc.terms()) acc += coeff * value(v);
  return acc;
}

void ConstraintSystem::record_row(SparseMatrix& m, const LinearCombination& lc) {
  // Merge duplicate variables and drop zero coefficients, so rows are canonical.
  scratch_.assign(lc.terms().begin(), lc.terms().end());
  auto key = [](const Variable& v) {
    return v.kind == Variable::Kind::kAux ? (v.index | kAuxTag) : v.index;
  };
  std::sort(scratch_.begin(), scratch_.end(),
            [&](const auto& x, const auto& y) { return key(x.first) < key(y.first); });
  for (size_t i = 0; i < scratch_.size();) {
    const Variable v = scratch_[i].first;
    const bool known =
        v.kind == Variable::Kind::kInput ? v.index < num_inputs_ : v.index < num_aux_;
    if (!known) {
      fail(invalid_argument("constraint " + std::to_string(num_constraints_) +
                            " uses an unallocated variable"));
    }
    Fr sum = Fr::zero();
    for (; i < scratch_.size() && scratch_[i].first == v; ++i) sum += scratch_[i].second;
    if (!sum.is_zero() && known) {
      m.column.push_back(key(v));
      m.value.push_back(sum);
    }
  }
  m.row_begin.push_back(m.column.size());
}

uint32_t ConstraintSystem::current_namespace() {
  if (namespace_id_ >= 0) return static_cast<uint32_t>(namespace_id_);
  std::string path;
  for (const auto& p : path_) path += (path.empty() ? "" : "/") + p;
  auto [it, inserted] =
      namespace_ids_.try_emplace(path, static_cast<uint32_t>(r1cs_.namespaces.size()));
  if (inserted) r1cs_.namespaces.push_back(path);
  namespace_id_ = static_cast<int32_t>(it->second);
  return static_cast<uint32_t>(namespace_id_);
}

void ConstraintSystem::enforce(const LinearCombination& a, const LinearCombination& b,
                               const LinearCombination& c) {
  if (mode_ == Mode::kRecord) {
    record_row(r1cs_.a, a);
    record_row(r1cs_.b, b);
    record_row(r1cs_.c, c);
    r1cs_.constraint_namespace.push_back(current_namespace());
  } else if (mode_ == Mode::kShape) {
    terms_[0] += a.terms().size();
    terms_[1] += b.terms().size();
    terms_[2] += c.terms().size();
  }
  ++num_constraints_;
}

void ConstraintSystem::push_namespace(std::string name) {
  if (mode_ != Mode::kRecord) return;
  path_.push_back(std::move(name));
  namespace_id_ = -1;
}

void ConstraintSystem::pop_namespace() {
  if (mode_ != Mode::kRecord) return;
  if (!path_.empty()) path_.pop_back();
  namespace_id_ = -1;
}

R1cs ConstraintSystem::take_r1cs() {
  R1cs out = std::move(r1cs_);
  r1cs_ = R1cs{};
  namespace_ids_.clear();
  out.num_inputs = num_inputs_;
  out.num_aux = num_aux_;
  for (SparseMatrix* m : {&out.a, &out.b, &out.c}) {
    for (uint32_t& col : m->column) {
      if (col & kAuxTag) col = num_inputs_ + (col & ~kAuxTag);
    }
  }
  // Sorting put inputs first and aux after, so each row stays sorted by wire after renumbering.
  return out;
}

std::pair<std::vector<Fr>, std::vector<Fr>> ConstraintSystem::take_witness() {
  return {std::move(inputs_), std::move(aux_)};
}

}  // namespace zkpipe::groth16
